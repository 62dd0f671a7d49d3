// The installed package in the JavaScript runtimes besides Node that import npm packages
// directly: Bun (ESM and CommonJS) and Deno. Each runs a small Task (a scripted model stream,
// a tool, a completion), the same task restored from a snapshot taken while its tool ran, an
// abort, and the synchronous exports, with no init call.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { here } from "./support/package-dir.mjs";

const run = promisify(execFile);

/** A script that exercises the package and prints one JSON report line (CommonJS wraps it in an async function, for its awaits). */
const APP = (load) => `
${load}
const enc = new TextEncoder();
const line = (o) => enc.encode(JSON.stringify(o) + "\\n");
const replies = [["Reading.\\n<read_file><path>a.md</path></read_file>"], ["<attempt_completion><result>done</result></attempt_completion>"]];
let n = 0;
const read = [];
let snapshot;
const options = {
  model: { format: "chunks", request: () => new ReadableStream({ start(c) {
    for (const text of replies[n++]) c.enqueue(line({ type: "text", text }));
    c.close();
  } }) },
  tools: [{ name: "read_file", readOnly: true, parameters: [{ name: "path", required: true }], execute: async ({ path }) => {
    read.push(path);
    snapshot ??= JSON.stringify(task.snapshot());
    return "content of " + path;
  } }],
  autoApprove: { readOnly: true },
  ask: (m) => (m.partial ? undefined : { response: "yesButtonClicked" }),
};
const task = new Task(options);
const aborted = new Task({
  model: { format: "chunks", request: (_req, { signal }) => new ReadableStream({ start(c) {
    c.enqueue(line({ type: "text", text: "thinking" }));
    signal.addEventListener("abort", () => c.error(new Error("aborted")));
  } }) },
  say: (m) => { if (m.say === "text") aborted.abort("enough"); },
});
let invalid = null;
try { new Task({}); } catch (e) { invalid = { type: e instanceof TypeError, code: e.code }; }
const decoder = new StreamDecoder("anthropic");
const chunks = decoder.push(enc.encode('event: content_block_delta\\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"yo"}}\\n\\n'));
const outcome = await task.start("go");
n = 1;
const restored = Task.restore(snapshot, options);
const report = {
  outcome,
  restored: { state: restored.state, outcome: await restored.resume(), history: restored.history.length },
  merged: Task.mergeSnapshot(undefined, { historyFrom: 0, history: [1], messagesFrom: 0, messages: [], state: {} }).history,
  aborted: (await aborted.start("go")).status,
  read,
  history: task.history.length,
  blocks: parseAssistantMessage("<read_file><path>b.md</path></read_file>")[0].params,
  chunks,
  invalid,
};
task.free();
restored.free();
aborted.free();
console.log(JSON.stringify(report));
`;
const ESM = 'import { Task, StreamDecoder, parseAssistantMessage } from "clew";';
const CJS = 'const { Task, StreamDecoder, parseAssistantMessage } = require("clew");';

function check(stdout) {
  const report = JSON.parse(stdout.trim().split("\n").at(-1));
  assert.deepEqual(report.outcome, { status: "completed", result: "done" });
  assert.equal(report.aborted, "aborted");
  assert.deepEqual(report.read, ["a.md", "a.md"], "the read-only tool runs again after the restore");
  assert.deepEqual(report.restored, { state: "tool", outcome: { status: "completed", result: "done" }, history: 4 });
  assert.deepEqual(report.merged, [1]);
  assert.equal(report.history, 4);
  assert.deepEqual(report.blocks, { path: "b.md" });
  assert.deepEqual(report.chunks, [{ type: "text", text: "yo" }]);
  assert.deepEqual(report.invalid, { type: true, code: "CLEW_INVALID_OPTIONS" });
}

/** Writes `source` as `name` in a directory inside pkg-tests (so "clew" resolves) and runs it. */
async function runScript(name, source, command, args) {
  const dir = mkdtempSync(join(here, ".tmp-runtime-"));
  try {
    writeFileSync(join(dir, name), source);
    const { stdout } = await run(join(here, "node_modules", ".bin", command), [...args, join(dir, name)], { cwd: here, timeout: 60_000 });
    return stdout;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test("Bun: import { Task } from \"clew\"", async () => {
  check(await runScript("app.mjs", APP(ESM), "bun", []));
});

test("Bun: require(\"clew\")", async () => {
  check(await runScript("app.cjs", `(async () => {${APP(CJS)}})();`, "bun", []));
});

test("Deno: import { Task } from \"clew\" (npm package in node_modules)", async () => {
  check(await runScript("app.mjs", APP(ESM), "deno", ["run", "--allow-read", "--allow-env"]));
});
