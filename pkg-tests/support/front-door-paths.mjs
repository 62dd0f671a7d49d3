// The repository paths the project's scripts name (scripts/*, .ci/run), for
// front-door-paths.mjs: a helper that moved must fail the tests, not a newcomer.
//
// What counts as a named path, in any script (bash or .mjs), comments included:
//   - a relative module a script imports (`import … from "./x.mjs"`, `import("../x.mjs")`,
//     `new URL("./x", import.meta.url)`), in an .mjs file or in an inline `node -e` snippet;
//   - a token shaped like a path (`a/b`, `./a/b`, `a/*.mjs`, `$PWD/a/b`; in an .mjs file
//     `../a/b` from the file's directory) whose first segment is one of the repository's
//     top-level entries (pkg-tests, scripts, benches, tests, www, …);
//   - in a bash script's code (not its comments or heredocs), a bare file name ending in .mjs
//     (`node.test.mjs`), which must exist at the repository root or in a directory the script
//     `cd`s into.
// Imports inside an .mjs file's template literals belong to the code it writes, not to it.
// Where it is looked for: a bash script runs from the repository root (every script `cd`s
// there first) or a directory it `cd`s into; an .mjs file's imports and `../` tokens from its
// own directory, its other tokens from the root. A token cut by a shell or template
// variable (`tests/fixtures/$name`, `pkg-tests/${x}/a.js`) is checked up to its last `/`.
// A `*` matches within one segment and must match at least one entry.
// Not checked: build outputs, i.e. any path git ignores (.gitignore: pkg/, target/,
// node_modules, pkg-tests/.tmp*, www/mcp-sdk.js, …), which exist only after a build or an
// install; and paths outside the repository.
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, normalize, relative, resolve, sep } from "node:path";

/** The scripts whose paths are checked: every file of scripts/ and .ci/run. */
export function scriptFiles(root) {
  const files = readdirSync(join(root, "scripts")).map((name) => join("scripts", name));
  return [...files, join(".ci", "run")].filter((file) => statSync(join(root, file)).isFile()).sort();
}

/** The repository's top-level entries, from git (committed or staged) and the working tree. */
export function topLevel(root) {
  const tracked = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard"], { cwd: root, encoding: "utf8" });
  return new Set(tracked.split("\n").filter(Boolean).map((path) => path.split("/")[0]));
}

const IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|new URL\(\s*)(["'`])(\.{1,2}\/[^"'`$]+)\1/g;
const TOKEN = /(?<![\w.@:/$~])(?<![^:]-)(?:\.\.?\/)?[\w.*][\w.*-]*(?:\/[\w.*-]*)+/g;
const BARE = /(?<![\w.@:/$~-])[\w-][\w.-]*\.mjs(?![\w/$-])/g;

/**
 * Every path `file` (relative to `root`) names: `{ file, line, path, bases }`, where `path` is
 * as written (variables cut) and `bases` the directories (relative to root) it may be relative to.
 */
export function namedPaths(root, file, top = topLevel(root)) {
  const text = readFileSync(join(root, file), "utf8");
  const isModule = file.endsWith(".mjs");
  const own = dirname(file);
  // Directories a bash script changes into (`cd pkg-tests &&`), relative to the root.
  const cds = isModule ? [] : [...text.matchAll(/\bcd\s+["']?([\w.-]+(?:\/[\w.-]+)*)/g)].map((m) => m[1]).filter((d) => top.has(d.split("/")[0]));
  const shellBases = [".", ...cds];
  // An .mjs file's own imports, not those of the code it writes in template literals.
  const code = isModule ? withoutTemplates(text).split("\n") : text.split("\n");
  const heredocs = isModule ? new Set() : heredocLines(text);
  const found = [];
  text.split("\n").forEach((raw, index) => {
    const line = raw.replace(/\$\{?PWD\}?\//g, "./");
    const comment = !isModule && /^\s*#/.test(line);
    const add = (path, bases) => {
      const clean = path.replace(/[.-]+$/, "");
      if (clean && clean !== "." && clean !== "..") found.push({ file, line: index + 1, path: clean, bases });
    };
    const cut = (match) => {
      const next = line[match.index + match[0].length];
      return next === "$" || next === "{" ? match[0].slice(0, match[0].lastIndexOf("/") + 1) : match[0];
    };
    const imports = new Set();
    for (const match of (isModule ? code[index] : line).matchAll(IMPORT)) {
      imports.add(match[2]);
      add(match[2], isModule ? [own] : shellBases);
    }
    for (const match of line.matchAll(TOKEN)) {
      if (imports.has(match[0])) continue;
      const path = cut(match);
      // `../x` in an .mjs file is relative to the file; anything else to the root.
      const base = isModule && path.startsWith("../") ? own : ".";
      const first = normalize(join(base, path)).split(sep)[0];
      if (top.has(first)) add(path, [base]);
    }
    if (!comment && !isModule && !heredocs.has(index)) {
      for (const match of line.matchAll(BARE)) {
        if (top.has(match[0])) continue;
        add(match[0], shellBases);
      }
    }
  });
  return found;
}

/** The text with the contents of its template literals blanked (line breaks kept). */
function withoutTemplates(text) {
  let out = "", inside = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inside) {
      if (c === "\\") { out += "  "; i++; continue; }
      if (c === "`") inside = false;
      out += c === "\n" || c === "`" ? c : " ";
    } else {
      if (c === "`") inside = true;
      out += c;
    }
  }
  return out;
}

/** The indexes of the lines inside a bash script's heredocs (`<<WORD` … `WORD`). */
function heredocLines(text) {
  const lines = text.split("\n");
  const inside = new Set();
  for (let i = 0; i < lines.length; i++) {
    const open = lines[i].match(/<<-?\s*["']?(\w+)["']?/);
    if (!open) continue;
    let j = i + 1;
    while (j < lines.length && lines[j].trim() !== open[1]) inside.add(j++);
    i = j;
  }
  return inside;
}

/** Whether a path with `*` in its segments matches at least one entry. */
function globExists(absolute) {
  const parts = absolute.split(sep);
  let candidates = [parts[0] || sep];
  for (const part of parts.slice(1)) {
    if (!part) continue;
    if (!part.includes("*")) {
      candidates = candidates.map((dir) => join(dir, part)).filter(existsSync);
      continue;
    }
    const pattern = new RegExp(`^${part.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replaceAll("*", "[^/]*")}$`);
    candidates = candidates.flatMap((dir) => {
      try { return readdirSync(dir).filter((name) => pattern.test(name)).map((name) => join(dir, name)); } catch { return []; }
    });
  }
  return candidates.length > 0;
}

/** The paths of `named` that git ignores (build outputs), relative to root. */
function ignored(root, paths) {
  if (paths.length === 0) return new Set();
  try {
    return new Set(execFileSync("git", ["check-ignore", "--no-index", "--stdin"], { cwd: root, input: paths.join("\n"), encoding: "utf8" }).split("\n").filter(Boolean));
  } catch (error) {
    if (error.status === 1) return new Set(); // none ignored
    throw error;
  }
}

/**
 * The named paths that do not exist: each `{ file, line, path, tried }`. A path resolves when,
 * against one of its bases, it exists, is ignored by git (a build output) or lies outside the
 * repository.
 */
export function missingPaths(root, named) {
  const inside = (path) => {
    const rel = relative(root, resolve(root, path));
    return rel && !rel.startsWith("..") ? rel.split(sep).join("/") : undefined;
  };
  // A path written with a trailing "/" is a directory: git's directory-only patterns match it so.
  const candidates = named.flatMap(({ path, bases }) => bases.map((base) => inside(join(base, path)))).filter(Boolean);
  const built = ignored(root, [...new Set(candidates.flatMap((rel) => [rel, `${rel}/`]))]);
  return named.filter(({ path, bases }) => !bases.some((base) => {
    const rel = inside(join(base, path));
    if (rel === undefined) return true;
    if (built.has(rel) || built.has(`${rel}/`)) return true;
    return rel.includes("*") ? globExists(join(root, rel)) : existsSync(join(root, rel));
  })).map(({ file, line, path, bases }) => ({ file, line, path, tried: bases.map((base) => inside(join(base, path)) ?? path) }));
}
