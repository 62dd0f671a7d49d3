// clew/cassette's tapeModel (issue 31): a tape answers the model while the task follows it,
// and the live model answers from the first request the tape does not have. The tools, the
// asks and the clock stay live.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Task, tapeModel, fromSse } from "clew/cassette";
import { memoryModel, replyBody, taskOptions } from "./support/cassette-task.mjs";

const FORMATS = ["anthropic", "openai", "openai-responses", "gemini"];
const TEXT = "Summarise the notes";

/**
 * What the task said, without the times (a live clock gives other `ts`) and without the partial
 * updates: a tapeModel replays bytes, not timing, so how reads fall between two presentations
 * (and so which partial states show) follows the real clock. The cassette's own replay, on a
 * virtual clock, is the one that gives them back exactly.
 */
const said = (log) => log.messages.filter((m) => m.type === "say" && !m.partial).map(({ ts, ...m }) => m);

/** Records the task of support/cassette-task.mjs in `format`: its tape and log. */
async function record(format) {
  const log = { messages: [], stored: [] };
  const options = taskOptions(format, log);
  const task = new Task({ ...options, model: { ...options.model, request: memoryModel(format) }, cassette: { mode: "record" } });
  const outcome = await task.start(TEXT);
  return { task, outcome, log, tape: await task.cassette() };
}

/** A live model that must not be called, counting the calls that came anyway. */
function unusedModel() {
  const calls = [];
  return { calls, request: async (req) => { calls.push(req); throw new Error("the live model was called"); } };
}

/** An Anthropic SSE reply that completes the task with `result`. */
function completionBody(result) {
  const ev = (name, data) => `event: ${name}\ndata: ${JSON.stringify({ type: name, ...data })}\n\n`;
  return ev("message_start", { message: { id: "msg_live", type: "message", role: "assistant", content: [], model: "live", usage: { input_tokens: 5, output_tokens: 1 } } }) +
    ev("content_block_start", { index: 0, content_block: { type: "tool_use", id: "toolu_live1", name: "attempt_completion", input: {} } }) +
    ev("content_block_delta", { index: 0, delta: { type: "input_json_delta", partial_json: JSON.stringify({ result }) } }) +
    ev("content_block_stop", { index: 0 }) +
    ev("message_delta", { delta: { stop_reason: "tool_use" }, usage: { output_tokens: 9 } }) +
    ev("message_stop", {});
}

/** A live model (`request`) that completes the task at once, keeping the requests it got. */
function completingModel(result = "Done live.") {
  const calls = [];
  return { calls, request: async (req) => { calls.push(req); return new Response(completionBody(result), { headers: { "content-type": "text/event-stream" } }); } };
}

for (const format of FORMATS) {
  test(`${format}: a tape answers every model request of the task it recorded, with live tools and approvals, and the live model is never called`, async () => {
    const recorded = await record(format);
    const log = { messages: [], stored: [] };
    const options = taskOptions(format, log);
    const live = unusedModel();
    const left = [];
    const task = new Task({ ...options, model: tapeModel(recorded.tape, { ...options.model, request: live.request }, { onLive: (why) => left.push(why) }) });
    const outcome = await task.start(TEXT);
    assert.deepEqual(outcome, recorded.outcome);
    assert.deepEqual(live.calls, []);
    assert.deepEqual(left, []);
    assert.deepEqual(said(log), said(recorded.log));
    assert.equal(task.messages.length, recorded.task.messages.length);
    assert.deepEqual(task.usage, recorded.task.usage);
  });
}

/** Every `[path, value]` in `value` whose string is a tape placeholder. */
function placeholders(value, path = "$", out = []) {
  if (typeof value === "string" && /^redacted-\d+$/.test(value)) out.push([path, value]);
  else if (Array.isArray(value)) value.forEach((v, i) => placeholders(v, `${path}[${i}]`, out));
  else if (value && typeof value === "object") for (const [k, v] of Object.entries(value)) placeholders(v, `${path}.${k}`, out);
  return out;
}

for (const format of FORMATS) {
  test(`${format}: a task recorded over fetch is answered by its tape under model settings with fetch, whose fetch is never called`, async () => {
    const log = { messages: [], stored: [] };
    const options = taskOptions(format, log);
    const memory = memoryModel(format);
    const recorder = new Task({ ...options, model: { ...options.model, fetch: (_url, init) => memory(null, init) }, cassette: { mode: "record" } });
    const recorded = await recorder.start(TEXT);
    assert.equal(recorded.status, "completed");
    const tape = await recorder.cassette();

    const fetched = [];
    const left = [];
    const fetch = async (url) => { fetched.push(url); throw new Error("the live fetch was called"); };
    const task = new Task({ ...taskOptions(format), model: tapeModel(tape, { ...options.model, fetch }, { onLive: (why) => left.push(why) }) });
    assert.deepEqual(await task.start(TEXT), recorded);
    assert.deepEqual(left, []);
    assert.deepEqual(fetched, []);
  });

  test(`${format}: going live, the request leaves out the signatures and encrypted reasoning the tape holds as placeholders, and keeps call ids paired`, async () => {
    const recorded = await record(format);
    const options = taskOptions(format);
    options.tools.find((t) => t.name === "read_file").execute = async () => "three\nfour";
    const bodies = [];
    const fetch = async (url, init) => {
      bodies.push(JSON.parse(init.body));
      const body = replyBody(format, { round: 9, text: "Finishing live.", call: { id: "call_live9", name: "attempt_completion", args: { result: "Done live." } } });
      return new Response(body, { headers: { "content-type": "text/event-stream" } });
    };
    const left = [];
    const task = new Task({ ...options, model: tapeModel(recorded.tape, { ...options.model, fetch }, { onLive: (why) => left.push(why) }) });
    assert.deepEqual(await task.start(TEXT), { status: "completed", result: "Done live." });
    assert.equal(left.length, 1);
    assert.equal(left[0].call, 1);
    assert.equal(bodies.length, 1);
    const live = bodies[0];
    const text = JSON.stringify(live);
    assert.match(text, /three\\nfour/, "the live request has the live tool result");
    // What stays a placeholder is the first round's call id, in the call and in its result
    // (Gemini's calls here have no id), never a signature or encrypted reasoning.
    const kept = placeholders(live);
    for (const [path] of kept) assert.match(path, /\.(id|call_id|tool_use_id|tool_call_id)$/, path);
    if (format === "gemini") {
      assert.deepEqual(kept, []);
      assert.match(text, /skip_thought_signature_validator/, "the unsigned call gets Gemini's stand-in");
    } else {
      assert.equal(kept.length, 2, `the call id in its call and its result: ${JSON.stringify(kept)}`);
      assert.equal(kept[0][1], kept[1][1]);
    }
    // The first round's reasoning, unsigned now, is not sent back.
    assert.doesNotMatch(text, /Plan 1\./);
  });
}

test("a tool result that differs sends the next request live, once, naming where it left the tape", async () => {
  const recorded = await record("anthropic");
  const options = taskOptions("anthropic");
  const read = options.tools.find((t) => t.name === "read_file");
  read.execute = async () => "three\nfour";
  const live = completingModel("Done live.");
  const left = [];
  const task = new Task({ ...options, model: tapeModel(recorded.tape, { ...options.model, request: live.request }, { onLive: (why) => left.push(why) }) });
  const outcome = await task.start(TEXT);
  assert.deepEqual(outcome, { status: "completed", result: "Done live." });
  assert.equal(left.length, 1);
  assert.equal(left[0].reason, "differs");
  assert.equal(left[0].call, 1);
  assert.match(left[0].path, /^\$\.messages\[\d+\]\.content/);
  assert.match(left[0].recorded, /one/);
  assert.match(left[0].actual, /three/);
  assert.equal(live.calls.length, 1);
  assert.match(JSON.stringify(live.calls[0].messages), /three\\nfour/);
});

test("past the tape's last request the live model answers", async () => {
  const recorded = await record("anthropic");
  // The tape up to its first response (the read_file round) only.
  const cut = recorded.tape.interactions.findIndex((e, i) => i > 0 && e.type === "request");
  const tape = { ...recorded.tape, interactions: recorded.tape.interactions.slice(0, cut), wakes: [] };
  const options = taskOptions("anthropic");
  const live = completingModel("Finished by the live model.");
  const left = [];
  const task = new Task({ ...options, model: tapeModel(tape, { ...options.model, request: live.request }, { onLive: (why) => left.push(why) }) });
  const outcome = await task.start(TEXT);
  assert.deepEqual(outcome, { status: "completed", result: "Finished by the live model." });
  assert.deepEqual(left, [{ call: 1, reason: "ended" }]);
  assert.equal(live.calls.length, 1);
});

test("model settings with fetch (no request function): the tape answers, then their fetch gets the request as clew builds it", async () => {
  const recorded = await record("anthropic");
  const cut = recorded.tape.interactions.findIndex((e, i) => i > 0 && e.type === "request");
  const tape = { ...recorded.tape, interactions: recorded.tape.interactions.slice(0, cut), wakes: [] };
  const options = taskOptions("anthropic");
  const fetched = [];
  const fetch = async (url, init) => {
    fetched.push({ url, init });
    return new Response(completionBody("Done over fetch."), { headers: { "content-type": "text/event-stream" } });
  };
  const task = new Task({ ...options, model: tapeModel(tape, { ...options.model, fetch }) });
  const outcome = await task.start(TEXT);
  assert.deepEqual(outcome, { status: "completed", result: "Done over fetch." });
  assert.equal(fetched.length, 1);
  assert.match(fetched[0].url, /\/v1\/messages$/);
  assert.equal(fetched[0].init.headers["x-api-key"], options.model.apiKey);
  assert.equal(JSON.parse(fetched[0].init.body).messages.length, 3);
});

test("a replayed body keeps the recorded reads, and pace: \"recorded\" takes the recorded time between them", async () => {
  const body = "event: ping\ndata: {\"type\":\"ping\"}\n\n";
  const tape = fromSse(completionBody("Paced.") + body, { format: "anthropic" });
  // Spread the reads 40 ms apart on the tape.
  const response = tape.interactions[0].response;
  response.reads.at = response.reads.at.map((_, i) => 40 * (i + 1));
  response.end.at = 40 * (response.reads.at.length + 1);
  const reads = response.reads.at.length;
  const options = taskOptions("anthropic");
  const model = tapeModel(tape, { ...options.model, request: unusedModel().request }, { pace: "recorded" });
  const stream = await model.request({ model: { id: "m" }, system: "", messages: [{ role: "user", content: "hi" }], tools: [] }, {});
  const started = performance.now();
  const sizes = [];
  for (const reader = stream.body.getReader(); ;) {
    const { done, value } = await reader.read();
    if (done) break;
    sizes.push(value.length);
  }
  const elapsed = performance.now() - started;
  assert.deepEqual(sizes, response.reads.bytes);
  // A lower bound only (timers never fire early by more than a millisecond).
  assert.ok(elapsed >= 40 * reads - reads, `${reads} reads 40 ms apart took ${elapsed} ms`);
});

test("a body whose recording stops short (the task cancelled it) fails with CLEW_CASSETTE_EXHAUSTED, and the retry goes live", async () => {
  const tape = fromSse(completionBody("Never seen."), { format: "anthropic" });
  const response = tape.interactions[0].response;
  const keep = 2;
  const bytes = response.reads.bytes.slice(0, keep).reduce((a, b) => a + b, 0);
  tape.interactions[0].response = { ...response, text: new TextDecoder().decode(new TextEncoder().encode(response.text).slice(0, bytes)),
    reads: { n: response.reads.n.slice(0, keep), at: response.reads.at.slice(0, keep), bytes: response.reads.bytes.slice(0, keep) }, end: { type: "abort" } };
  const options = taskOptions("anthropic");
  const live = completingModel("Done after the cut.");
  const left = [];
  const errors = [];
  const task = new Task({ ...options, retry: { baseDelayMs: 1, maxDelayMs: 1 },
    say: (m) => { if (m.say === "error_retry" || m.say === "api_req_retried") errors.push(m.text); },
    model: tapeModel(tape, { ...options.model, request: live.request }, { onLive: (why) => left.push(why) }) });
  const outcome = await task.start(TEXT);
  assert.deepEqual(outcome, { status: "completed", result: "Done after the cut." });
  assert.deepEqual(left.map((l) => l.reason), ["ended"]);
  assert.match(errors.join("\n"), /stops here/);
});

test("an abort during a paced body ends the task at once", async () => {
  const tape = fromSse(completionBody("Slow."), { format: "anthropic" });
  const options = taskOptions("anthropic");
  const task = new Task({ ...options, model: tapeModel(tape, { ...options.model, request: unusedModel().request }, { pace: 10_000 }) });
  const started = performance.now();
  const run = task.start(TEXT);
  setTimeout(() => task.abort("enough"), 50);
  const outcome = await run;
  assert.equal(outcome.status, "aborted");
  assert.ok(performance.now() - started < 5000);
});

test("tapeModel refuses a tape of another format, a bad pace or onLive, and no model, with coded TypeErrors", () => {
  const tape = fromSse(completionBody("x"), { format: "anthropic" });
  const model = { format: "anthropic", request: async () => null };
  const code = (f, expected) => assert.throws(f, (e) => e instanceof TypeError && e.code === expected);
  code(() => tapeModel(tape, { ...model, format: "openai" }), "CLEW_INVALID_CASSETTE");
  code(() => tapeModel({ format: "nope" }, model), "CLEW_INVALID_CASSETTE");
  code(() => tapeModel(tape, model, { pace: -1 }), "CLEW_INVALID_ARGUMENT");
  code(() => tapeModel(tape, model, { pace: "fast" }), "CLEW_INVALID_ARGUMENT");
  code(() => tapeModel(tape, model, { onLive: "yes" }), "CLEW_INVALID_ARGUMENT");
  code(() => tapeModel(tape), "CLEW_INVALID_ARGUMENT");
  // The JSON text of a tape is a tape too.
  assert.equal(typeof tapeModel(JSON.stringify(tape), model).request, "function");
});
