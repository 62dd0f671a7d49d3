// The playground's workspace: an in-memory file system (store.js keeps it in IndexedDB when
// asked) and the tools an agent uses on it. Plain ES module with no DOM, so `scripts/demo --cli`
// runs it in Node.

/** The sample project the agent works on. */
export const SAMPLE_FILES = {
  "README.md": "# Greeter\n\nHelo wrold! This tiny project prints a greeting.\n\nRun `node src/main.js`.\n",
  "src/main.js": "import { greet } from \"./greet.js\";\n\nconsole.log(greet(\"world\"));\n",
  "src/greet.js": "export function greet(name) {\n  return `Hello, ${name}!`;\n}\n",
};

/** Applies SEARCH/REPLACE blocks (`------- SEARCH` / `=======` / `+++++++ REPLACE`, or the
 * older `<<<<<<< SEARCH` / `>>>>>>> REPLACE`) to `text`. Throws when a SEARCH part is not found. */
export function applyDiff(text, diff) {
  const pattern = /^(?:-{3,} SEARCH|<{3,} SEARCH)\r?\n([\s\S]*?)^={3,}\r?\n([\s\S]*?)^(?:\+{3,} REPLACE|>{3,} REPLACE)\s*$/gm;
  let out = text;
  let blocks = 0;
  for (const [, search, replace] of diff.matchAll(pattern)) {
    blocks++;
    const at = out.indexOf(search);
    if (at < 0) throw new Error(`the SEARCH block was not found in the file:\n${search}`);
    out = out.slice(0, at) + replace + out.slice(at + search.length);
  }
  if (blocks === 0) throw new Error("no SEARCH/REPLACE block in the diff");
  return out;
}

export class Workspace extends EventTarget {
  constructor(files = SAMPLE_FILES) {
    super();
    this.files = new Map(Object.entries(files));
  }

  /** Replaces every file (a restore, or a reset). */
  load(files) {
    this.files = new Map(Object.entries(files));
    this.changed(null);
  }

  snapshot() {
    return Object.fromEntries(this.files);
  }

  changed(path) {
    this.dispatchEvent(Object.assign(new Event("change"), { path }));
  }

  list(dir = ".", recursive = true) {
    const prefix = dir === "." || dir === "" || dir === "/" ? "" : dir.replace(/\/?$/, "/");
    const names = new Set();
    for (const path of [...this.files.keys()].sort()) {
      if (!path.startsWith(prefix)) continue;
      const rest = path.slice(prefix.length);
      names.add(recursive || !rest.includes("/") ? rest : rest.split("/")[0] + "/");
    }
    return [...names];
  }

  read(path) {
    if (!this.files.has(path)) throw new Error(`no file at ${path}`);
    return this.files.get(path);
  }

  write(path, content) {
    const existed = this.files.has(path);
    this.files.set(path, content);
    this.changed(path);
    return existed;
  }

  /** The tools of the agent over this workspace, in the package's TaskTool shape. */
  tools() {
    const param = (name, description, required = true) => ({ name, description, required });
    return [
      {
        name: "list_files", readOnly: true, description: "List the files of a directory of the workspace.",
        parameters: [param("path", "Directory, relative to the workspace root ('.' for the root)"), param("recursive", "true to list every level", false)],
        execute: ({ path, recursive }) => this.list(path, recursive !== "false").join("\n") || "(empty directory)",
      },
      {
        name: "read_file", readOnly: true, description: "Read a file of the workspace.",
        parameters: [param("path", "File path, relative to the workspace root")],
        execute: ({ path }) => this.read(path),
      },
      {
        name: "search_files", readOnly: true, description: "Search the files of a directory with a regular expression.",
        parameters: [param("path", "Directory to search"), param("regex", "JavaScript regular expression"), param("file_pattern", "Only files whose name contains this", false)],
        execute: ({ path, regex, file_pattern }) => {
          const re = new RegExp(regex);
          const hits = [];
          for (const name of this.list(path, true)) {
            const full = path === "." || !path ? name : `${path.replace(/\/$/, "")}/${name}`;
            if (file_pattern && !full.includes(file_pattern.replace(/\*/g, ""))) continue;
            this.read(full).split("\n").forEach((line, i) => { if (re.test(line)) hits.push(`${full}:${i + 1}: ${line}`); });
          }
          return hits.join("\n") || "(no match)";
        },
      },
      {
        name: "write_to_file", description: "Create or overwrite a file with the given content.",
        parameters: [param("path", "File path"), param("content", "The whole new content")],
        execute: ({ path, content }) => {
          const existed = this.write(path, content);
          return `${existed ? "Updated" : "Created"} ${path} (${content.length} characters).`;
        },
      },
      {
        name: "replace_in_file", description: "Edit a file with SEARCH/REPLACE blocks:\n------- SEARCH\n[exact lines]\n=======\n[new lines]\n+++++++ REPLACE",
        parameters: [param("path", "File path"), param("diff", "One or more SEARCH/REPLACE blocks")],
        execute: ({ path, diff }) => {
          const next = applyDiff(this.read(path), diff);
          this.write(path, next);
          return `Edited ${path}. Its content now:\n${next}`;
        },
      },
    ];
  }
}
