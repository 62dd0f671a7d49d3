// Abort from anywhere: at every point where a task waits, from outside and from inside each
// callback. Each case checks that no callback of the task runs once abort() has returned (the
// cancel hook aside), that the request's signal fired and its body was cancelled, that the
// transcript shows what the history keeps, that nothing is left partial, that no promise
// rejection goes unhandled, and that a new Task works afterwards. Then the faults that end a
// round (a malformed body is cancelled at once), and the memory of aborted tasks whose bodies
// ignore the signal.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { Task } from "clew";
import { here } from "./support/package-dir.mjs";

const enc = new TextEncoder();
const line = (chunk) => enc.encode(JSON.stringify(chunk) + "\n");
const text = (t) => line({ type: "text", text: t });
const MARKER = "\n\n[Response interrupted by user]";

const unhandled = [];
process.on("unhandledRejection", (reason) => unhandled.push(reason));

/**
 * A model whose replies are lists of byte pieces; `hold: true` leaves the body open after
 * them (and deaf to the signal, as a careless `model.request` would be). Records each
 * request's signal and whether its body was cancelled.
 */
function model(replies) {
  const requests = [];
  let n = 0;
  const request = (req, { signal }) => {
    const reply = replies[Math.min(n++, replies.length - 1)];
    const record = { signal, cancelled: false, closed: false, req };
    requests.push(record);
    let i = 0;
    return new ReadableStream({
      pull(controller) {
        if (i < reply.pieces.length) controller.enqueue(reply.pieces[i++]);
        else if (!reply.hold) { controller.close(); record.closed = true; }
        else return new Promise(() => {});
      },
      cancel() { record.cancelled = true; },
    }, { highWaterMark: 0 });
  };
  return { request, requests };
}

/**
 * Runs one task, aborting it where `when(event, task)` returns true (`event` names the
 * callback being called, or "tick" for a check from outside between events), and checks the
 * invariants. Returns what it saw.
 */
async function abortAt({ replies, when, options = {}, outside = false, hang = [] }) {
  const { request, requests } = model(replies);
  let aborted = false;
  let returned = false;
  const late = [];
  const calls = [];
  let task;
  const guard = (name, f) => (...args) => {
    if (returned && name !== "taskCancel") late.push(name);
    calls.push(name);
    if (!outside && !aborted && when(name, args[0], task)) {
      aborted = true;
      task.abort("user");
      returned = true;
      return name === "ask" ? new Promise(() => {}) : undefined;
    }
    if (hang.includes(name) && !(name === "ask" && args[0]?.partial)) return new Promise(() => {});
    return f ? f(...args) : undefined;
  };
  const tools = [
    { name: "read", readOnly: true, parameters: [{ name: "path", required: true }], execute: guard("execute", ({ path }) => `contents of ${path}`) },
    { name: "write", parameters: [{ name: "path", required: true }], execute: guard("execute", (_, { signal }) => new Promise((resolve) => signal.addEventListener("abort", () => resolve("stopped")))) },
  ];
  task = new Task({
    model: { format: "chunks", request: guard("request", request) },
    tools,
    say: guard("say"),
    ask: guard("ask", (m) => (m.partial ? undefined : m.ask === "followup" ? { response: "messageResponse", text: "blue" } : { response: "yesButtonClicked" })),
    retry: { baseDelayMs: 30 },
    presentationIntervalMs: 10_000,
    checkpoint: { save: guard("checkpoint") },
    hooks: { preToolUse: guard("preToolUse"), taskCancel: guard("taskCancel") },
    ...options,
  });
  const outcome = task.start("go");
  if (outside) {
    for (let i = 0; i < 200 && !aborted; i++) {
      await new Promise((r) => setTimeout(r, 2));
      if (when("tick", undefined, task)) {
        aborted = true;
        task.abort("user");
        returned = true;
      }
    }
  }
  const result = await outcome;
  await new Promise((r) => setTimeout(r, 40));
  assert.ok(aborted, "the abort point was reached");
  assert.equal(result.status, "aborted", JSON.stringify(result));
  assert.deepEqual(late, [], `callbacks after abort() returned: ${late.join(", ")}`);
  for (const r of requests) assert.ok(r.closed || r.signal.aborted, "every request still open had its signal fired");
  const held = requests.filter((r, i) => replies[Math.min(i, replies.length - 1)].hold);
  for (const r of held) assert.ok(r.cancelled, "a body left open was cancelled");
  assert.ok(task.messages.every((m) => !m.partial), "nothing is left partial");
  const last = task.history.at(-1);
  if (last?.role === "assistant") {
    const said = last.content.filter((b) => b.type === "text").map((b) => b.text).join("");
    const shown = task.messages.filter((m) => m.say === "text").at(-1);
    // Plain text (no tool tags) shows as it was streamed.
    if (said.endsWith(MARKER) && said.length > MARKER.length && !said.includes("<")) {
      assert.equal(shown?.text, said.slice(0, -MARKER.length).trim(), "the transcript shows what the history keeps");
    }
  }
  assert.deepEqual(unhandled, []);
  task.free();
  return { calls, requests };
}

async function aNewTaskWorks() {
  const { request } = model([{ pieces: [text("<attempt_completion><result>fine</result></attempt_completion>")] }]);
  const task = new Task({ model: { format: "chunks", request }, ask: (m) => (m.partial ? undefined : { response: "yesButtonClicked" }) });
  assert.deepEqual(await task.start("again"), { status: "completed", result: "fine" });
}

const silent = { pieces: [], hold: true };
const streaming = { pieces: [text("Let me l"), text("ook at it"), text(" closely")], hold: true };
const readTool = { pieces: [text("Reading.\n<read><path>a</path></read>")] };
const writeTool = { pieces: [text("Writing.\n<write><path>a</path></write>")] };
const followup = { pieces: [text("<ask_followup_question><question>Which?</question></ask_followup_question>")] };
const completion = { pieces: [text("Done.\n<attempt_completion><result>ok</result></attempt_completion>")] };
const broken = { pieces: [enc.encode("{ not json\n")] };
const say = (kind) => (event, m) => event === "say" && m?.say === kind && !m.partial;

const cases = [
  ["before the first byte, from inside model.request", [silent], (e) => e === "request"],
  ["in the say that opens a round (api_req_started)", [silent], (e, m) => e === "say" && m?.say === "api_req_started"],
  ["mid-stream, from inside a paced partial say", [streaming], (e, m) => e === "say" && m?.say === "text" && m.partial],
  ["in the say of an auto-approved tool", [readTool, completion], say("tool"), { autoApprove: { readOnly: true } }],
  ["in a write tool's say under autoApprove.all", [writeTool, completion], say("tool"), { autoApprove: { all: true } }],
  ["in the final say of a text block", [readTool, completion], (e, m) => e === "say" && m?.say === "text" && !m.partial],
  ["in an approval ask", [writeTool, completion], (e, m) => e === "ask" && m?.ask === "tool" && !m.partial],
  ["in a follow-up question", [followup, completion], (e, m) => e === "ask" && m?.ask === "followup" && !m.partial],
  ["inside a tool's execute", [readTool, completion], (e) => e === "execute", { autoApprove: { readOnly: true } }],
  ["in the say of a completion result", [completion], say("completion_result")],
  ["in the say of a retry (error_retry)", [broken, completion], say("error_retry")],
  ["inside checkpoint.save", [writeTool, completion], (e) => e === "checkpoint", { autoApprove: { all: true } }],
  ["inside the PreToolUse hook", [readTool, completion], (e) => e === "preToolUse", { autoApprove: { readOnly: true } }],
];

for (const [name, replies, when, options] of cases) {
  test(`abort ${name}: nothing runs after abort() returns`, async () => {
    await abortAt({ replies, when, options });
    await aNewTaskWorks();
  });
}

const outsideCases = [
  ["before the first byte", [silent], (_, __, t) => t.state === "stream"],
  ["mid-stream", [streaming], (_, __, t) => t.messages.some((m) => m.say === "text")],
  ["during an approval", [writeTool, completion], (_, __, t) => t.state === "answer", { hang: ["ask"] }],
  ["during a follow-up question", [followup, completion], (_, __, t) => t.state === "answer", { hang: ["ask"] }],
  ["during a checkpoint", [writeTool, completion], (_, __, t) => t.state === "checkpoint", { hang: ["checkpoint"], autoApprove: { all: true } }],
  ["during a hook", [readTool, completion], (_, __, t) => t.state === "hook", { hang: ["preToolUse"], autoApprove: { readOnly: true } }],
  ["while a tool runs", [writeTool, completion], (_, __, t) => t.state === "tool", { autoApprove: { all: true } }],
  ["during a retry delay", [broken, completion], (_, __, t) => t.state === "retryDelay", { retry: { baseDelayMs: 5_000 } }],
];

for (const [name, replies, when, { hang, ...options } = {}] of outsideCases) {
  test(`abort from outside ${name}`, async () => {
    await abortAt({ replies, when, options, outside: true, hang });
    await aNewTaskWorks();
  });
}

test("abort from a tool's signal listener when its timeout fires: no say, no request after it", async () => {
  const { request, requests } = model([writeTool, completion]);
  let returned = false;
  const late = [];
  let task;
  task = new Task({
    model: { format: "chunks", request: (...args) => { if (returned) late.push("request"); return request(...args); } },
    autoApprove: { all: true },
    tools: [{
      name: "write", timeoutMs: 20, parameters: [{ name: "path", required: true }],
      execute: (_, { signal }) => new Promise(() => signal.addEventListener("abort", () => { task.abort("timeout listener"); returned = true; })),
    }],
    say: (m) => { if (returned) late.push(`say ${m.say}`); },
  });
  const outcome = await task.start("go");
  await new Promise((r) => setTimeout(r, 40));
  assert.equal(outcome.status, "aborted");
  assert.deepEqual(late, []);
  assert.equal(requests.length, 1);
});

test("abort() before start(): start() resolves aborted and calls nothing", async () => {
  let called = false;
  const task = new Task({ model: { format: "chunks", request: () => { called = true; } }, say: () => { called = true; } });
  task.abort("changed my mind");
  const outcome = await task.start("go");
  assert.equal(outcome.status, "aborted");
  assert.equal(outcome.error.message, "changed my mind");
  assert.equal(called, false);
});

test("a malformed body is cancelled at the failure, not read on until the retry", async () => {
  const events = [];
  let pulls = 0;
  const bodies = [
    new ReadableStream({
      pull(c) {
        pulls++;
        if (pulls === 1) c.enqueue(text("Some text"));
        else if (pulls === 2) c.enqueue(enc.encode("{ broken\n"));
        else c.enqueue(text(" more"));
      },
      cancel() { events.push("cancelled"); },
    }, { highWaterMark: 0 }),
  ];
  let n = 0;
  const task = new Task({
    model: { format: "chunks", request: () => bodies[n++] ?? new ReadableStream({ start(c) { c.enqueue(text("<attempt_completion><result>ok</result></attempt_completion>")); c.close(); } }) },
    retry: { baseDelayMs: 200 },
    ask: (m) => (m.partial ? undefined : { response: "yesButtonClicked" }),
  });
  const outcome = task.start("go");
  await new Promise((r) => setTimeout(r, 100));
  assert.deepEqual(events, ["cancelled"], "cancelled at the failure");
  assert.ok(pulls <= 3, `read ${pulls} times`);
  assert.equal((await outcome).status, "completed");
});

/** A task over one HTTP-like failure, answered "yes" to every ask; returns the outcome and asks. */
async function faulted(response, options = {}) {
  const asks = [];
  let cancelled = false;
  const task = new Task({
    model: { format: "chunks", request: () => (typeof response === "function" ? response(() => { cancelled = true; }) : response) },
    ask: (m) => { if (!m.partial) asks.push(m); return m.partial ? undefined : { response: "noButtonClicked" }; },
    retry: { baseDelayMs: 5 },
    ...options,
  });
  const outcome = await task.start("go");
  await new Promise((r) => setTimeout(r, 20));
  assert.deepEqual(unhandled, []);
  return { outcome, asks, cancelled: () => cancelled };
}

test("faults that would repeat end the task with a code that says why, without retries", async () => {
  const bad = await faulted(new Response('{"type":"error","error":{"type":"invalid_request_error","message":"tools.0: bad"}}', { status: 400 }));
  assert.equal(bad.outcome.status, "failed");
  assert.equal(bad.outcome.error.code, "CLEW_BAD_REQUEST");
  assert.deepEqual(bad.asks, []);
  const long = await faulted((cancel) => new ReadableStream({
    pull(c) { c.enqueue(enc.encode("x".repeat(1 << 20))); },
    cancel,
  }));
  assert.equal(long.outcome.error.code, "CLEW_LINE_TOO_LONG");
  assert.ok(long.cancelled(), "the endless line's body was cancelled");
  const overflow = await faulted(new Response('{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 210000 tokens > 200000 maximum"}}', { status: 400 }));
  assert.equal(overflow.outcome.error.code, "CLEW_CONTEXT_WINDOW_EXCEEDED");
});

test("without AbortController (a bare runtime) a request fails at once instead of waiting forever", { timeout: 10_000 }, async () => {
  const saved = globalThis.AbortController;
  globalThis.AbortController = undefined;
  try {
    let requested = false;
    const bare = await faulted(() => { requested = true; return new Response(""); }, { retry: { maxRetries: 0 } });
    assert.equal(bare.asks[0]?.ask, "api_req_failed");
    assert.match(bare.asks[0].text, /no AbortController/);
    assert.equal(bare.outcome.status, "ended", "declined, as the test's ask answers");
    assert.equal(requested, false, "no request the task could not cancel");
  } finally {
    globalThis.AbortController = saved;
  }
});

test("a retry-after longer than retry.maxDelayMs asks at once with the server's delay", async () => {
  const started = Date.now();
  const slow = await faulted(new Response("slow down", { status: 429, headers: { "retry-after": "86400" } }));
  assert.ok(Date.now() - started < 2_000, "no day-long sleep");
  assert.equal(slow.asks[0].ask, "api_req_failed");
  assert.match(slow.asks[0].text, /86400 s/);
  assert.equal(slow.outcome.error.code, "CLEW_API_REQ_FAILED");
});

test("1,000 aborted tasks whose bodies ignore the signal do not keep their memory", () => {
  const out = execFileSync(process.execPath, ["--expose-gc", join(here, "support", "abort-probe.mjs")], { cwd: here, encoding: "utf8" });
  const { perTask } = JSON.parse(out.trim().split("\n").at(-1));
  assert.ok(perTask < 4096, `each aborted task keeps ${perTask} bytes of heap`);
});
