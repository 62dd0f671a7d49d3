// The README examples as programs, for front-door-examples.mjs: each fenced JavaScript block of
// a markdown file, read as it is now, and a way to run one as an ES module against the
// installed package, offline.
import { execFile } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);
const FENCE = /^(\s*)(`{3,}|~{3,})\s*(js|javascript|mjs)\s*$/;
const FRAGMENT = /^\s*<!--\s*fragment:\s*([\s\S]*?)\s*-->\s*$/;

/**
 * The fenced ```js blocks of `path`: `{ name, line, heading, code, fragment }`. `code` is
 * dedented by its fence's indentation (a block inside a list item); `fragment` is the reason
 * given by an `<!-- fragment: why -->` comment on the last non-blank line before the fence.
 */
export function jsBlocks(path, label = path) {
  const lines = readFileSync(path, "utf8").split("\n");
  const blocks = [];
  let heading = "";
  for (let i = 0; i < lines.length; i++) {
    const title = /^#{1,6}\s+(.*)$/.exec(lines[i]);
    if (title) heading = title[1];
    const open = FENCE.exec(lines[i]);
    if (!open) {
      // Step over fences of other languages whole, so their contents are not read as markdown.
      const other = /^(\s*)(`{3,}|~{3,})/.exec(lines[i]);
      if (other) while (++i < lines.length && !lines[i].trim().startsWith(other[2]));
      continue;
    }
    const [, indent, fence] = open;
    const start = i;
    const body = [];
    while (++i < lines.length && !lines[i].trim().startsWith(fence)) body.push(lines[i].startsWith(indent) ? lines[i].slice(indent.length) : lines[i].trimStart());
    let before = start - 1;
    while (before >= 0 && lines[before].trim() === "") before--;
    const fragment = before >= 0 ? FRAGMENT.exec(lines[before])?.[1] : undefined;
    blocks.push({ name: `${label}:${start + 1} (${heading})`, line: start + 1, heading, code: body.join("\n") + "\n", fragment });
  }
  return blocks;
}

/** Whether an example is a test file (it imports node:test): it runs under `node --test`. */
export const isTestFile = (code) => /from\s+["']node:test["']/.test(code);

/** Whether an example is written for the browser entry (it awaits `ready`): it runs in a page too. */
export const isPageCode = (code) => /import\s*\{[^}]*\bready\b[^}]*\}\s*from\s*["']clew["']/.test(code) && /\bawait\s+ready\b/.test(code);

const PRELUDE = new URL("./front-door-prelude.mjs", import.meta.url).href;
const MODEL = new URL("./front-door-model.mjs", import.meta.url).href;

/**
 * Writes the example into `dir` (under pkg-tests/, so `import "clew"` is the installed
 * package) as example.mjs, beside what it may import of "your app": my-agent.mjs (`options`
 * with the scripted model and a read_file tool) and the folders of the files it names
 * relative to itself (`new URL("./tapes/x.json", import.meta.url)`).
 */
export function writeExample(dir, code) {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "example.mjs"), code);
  writeFileSync(join(dir, "my-agent.mjs"), [
    "// What the example imports from \"your app\": the options of an agent (the harness's scripted model).",
    `import { scriptedModel } from ${JSON.stringify(MODEL)};`,
    "export const options = {",
    "  model: scriptedModel(),",
    "  tools: [{ name: \"read_file\", description: \"Read a file\", readOnly: true,",
    "    parameters: [{ name: \"path\", description: \"Path of the file\", required: true }],",
    "    execute: async ({ path }) => path === \"README.md\" ? \"# Helo wrold\\n\" : `no file at ${path}` }],",
    "};",
    "",
  ].join("\n"));
  for (const match of code.matchAll(/new URL\(\s*["'`](\.\/[^"'`]+)["'`]\s*,\s*import\.meta\.url\s*\)/g)) {
    mkdirSync(dirname(join(dir, match[1])), { recursive: true });
  }
  writeFileSync(join(dir, "run.mjs"), [
    `import { finish } from ${JSON.stringify(PRELUDE)};`,
    "await import(\"./example.mjs\");",
    "console.log(`front-door: ${JSON.stringify(await finish())}`);",
    "process.exit(0);",
    "",
  ].join("\n"));
}

/**
 * Runs the example written in `dir` with the prelude: a test file twice under `node --test`
 * (the first run may record what the second replays), anything else once through run.mjs,
 * which then waits for the tasks it started. Rejects with the output when a run fails.
 * Resolves to the runs' stdout.
 */
export async function runExample(dir, code, { timeoutMs = 30_000 } = {}) {
  const options = { cwd: dir, timeout: timeoutMs, killSignal: "SIGKILL", maxBuffer: 16 << 20 };
  // NOTE: inside a `node --test` run, NODE_TEST_CONTEXT makes a nested `node --test` report to
  // its parent in a binary form instead of TAP: the example's runs are top-level runs.
  const { NODE_TEST_CONTEXT: _, ...topLevelEnv } = process.env;
  const attempt = async (args, env = topLevelEnv) => {
    try {
      return (await run(process.execPath, args, { ...options, env })).stdout;
    } catch (error) {
      const why = error.killed ? `killed after ${timeoutMs} ms` : `exit ${error.code}`;
      throw new Error(`node ${args.join(" ")} in ${dir}: ${why}\n${error.stdout ?? ""}\n${error.stderr ?? ""}`);
    }
  };
  if (!isTestFile(code)) return [await attempt(["run.mjs"])];
  const env = { ...topLevelEnv, NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} --import=${PRELUDE}`.trim() };
  const outputs = [];
  for (let i = 0; i < 2; i++) {
    const out = await attempt(["--test", "--test-reporter=tap", "example.mjs"], env);
    const pass = Number(/^# pass (\d+)/m.exec(out)?.[1] ?? 0);
    const fail = Number(/^# fail (\d+)/m.exec(out)?.[1] ?? 1);
    if (pass === 0 || fail !== 0) throw new Error(`run ${i + 1} of node --test example.mjs in ${dir}: ${pass} passed, ${fail} failed\n${out}`);
    outputs.push(out);
  }
  return outputs;
}
