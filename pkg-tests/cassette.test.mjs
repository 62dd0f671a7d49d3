// clew/cassette (issue 31): a whole task recorded, then replayed offline on a virtual clock.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { Task, fromSse } from "clew/cassette";
import { memoryModel, taskOptions } from "./support/cassette-task.mjs";
import { sameRedacted } from "./support/same-redacted.mjs";

const FORMATS = ["anthropic", "openai", "openai-responses", "gemini"];
const says = (log) => log.messages.filter((m) => m.type === "say");

/** Records the task of support/cassette-task.mjs in `format`; the tape and what the task said and stored. */
async function record(format, more = {}) {
  const log = { messages: [], stored: [] };
  const options = taskOptions(format, log);
  const started = performance.now();
  const task = new Task({ ...options, model: { ...options.model, request: memoryModel(format) }, cassette: { mode: "record", ...more } });
  const outcome = await task.start("Summarise the notes");
  return { task, outcome, log, ms: performance.now() - started, tape: await task.cassette() };
}

/** Replays `tape` with the same options (changed by `change`). */
async function replay(format, tape, cassette = {}, change = (o) => o) {
  const log = { messages: [], stored: [] };
  const started = performance.now();
  const task = new Task(change({ ...taskOptions(format, log), cassette: { mode: "replay", data: tape, ...cassette } }));
  const outcome = await task.start("Summarise the notes");
  return { task, outcome, log, ms: performance.now() - started };
}

for (const format of FORMATS) {
  test(`${format}: a recorded task (tools, an approval, a 529, a reply cut mid-stream) replays the same, on a virtual clock`, async () => {
    const recorded = await record(format);
    assert.deepEqual(recorded.outcome, { status: "completed", result: "The summary is written." });
    const kinds = recorded.tape.interactions.map((e) => e.type);
    assert.deepEqual(kinds.filter((k) => k === "request").length, 5, kinds.join());
    assert.ok(kinds.includes("tool") && kinds.includes("ask"));
    const statuses = recorded.tape.interactions.filter((e) => e.type === "request").map((e) => e.response.status);
    assert.ok(statuses.includes(529));
    assert.ok(recorded.tape.interactions.some((e) => e.response?.end?.type === "error"), "a body that failed mid-stream");

    const replayed = await replay(format, JSON.parse(JSON.stringify(recorded.tape)));
    assert.deepEqual(replayed.outcome, recorded.outcome);
    // Everything said, byte for byte (text, ts, partial flags), and the transcript.
    assert.equal(JSON.stringify(says(replayed.log)), JSON.stringify(says(recorded.log)));
    assert.equal(JSON.stringify(replayed.task.messages), JSON.stringify(recorded.task.messages));
    assert.deepEqual(replayed.task.usage, recorded.task.usage);
    // The history and every persist, with the tape's placeholders for ids and signatures.
    assert.equal(sameRedacted(recorded.task.history, replayed.task.history), null);
    assert.equal(sameRedacted(recorded.log.stored.map((s) => JSON.parse(s)), replayed.log.stored.map((s) => JSON.parse(s))), null);
    // Two retry delays of at least 300 ms were waited live; the replay waits none of them.
    const retries = says(recorded.log).filter((m) => m.say === "error_retry" || m.say === "api_req_retried");
    assert.ok(recorded.ms > 600, `recorded in ${recorded.ms} ms`);
    assert.ok(replayed.ms < recorded.ms / 4, `replayed in ${replayed.ms} ms, recorded in ${recorded.ms} ms (${retries.length} retry messages)`);
    // Replaying the tape again gives the very same history.
    const again = await replay(format, recorded.tape);
    assert.equal(JSON.stringify(again.task.history), JSON.stringify(replayed.task.history));
  });
}

test("the tape keeps no key, id, signature or encrypted reasoning, and a redacted call id still pairs with its result", async () => {
  for (const format of FORMATS) {
    const { tape } = await record(format);
    const text = JSON.stringify(tape);
    assert.doesNotMatch(text, /sk-test-SECRET|call_\d+\dZq|msg_0\dabc|EqSig|ZW5j-|dGhvdWdodA-|Y2FsbA-|resp_\d/, format);
    assert.equal(tape.format, "clew-cassette");
    assert.equal(tape.version, 2);
    assert.equal(tape.model.format, format);
    const requests = tape.interactions.filter((e) => e.type === "request");
    for (const r of requests) assert.match(r.digest, /^sha256:[0-9a-f]{64}$/);
    // The first call's id, as the response gave it, is in the next request's body.
    const firstBody = requests[0].response.text;
    const placeholders = [...new Set(firstBody.match(/redacted-\d+/g))];
    const next = JSON.stringify(requests[1].body);
    assert.ok(placeholders.some((p) => next.includes(p)), `${format}: the next request refers to the response's ids by their placeholders`);
  }
});

test("the same tape with its reads split differently gives the same history", async () => {
  const { tape, task } = await record("anthropic");
  // NOTE: the timer's recorded firings belong to the recorded reads: without them the tape
  // is replayed by time.
  const resplit = { ...structuredClone(tape), wakes: [] };
  for (const entry of resplit.interactions) {
    const reads = entry.response?.reads;
    if (entry.type !== "request" || !reads?.n.length) continue;
    // One read per body: everything in the first read's place.
    entry.response.reads = { n: [reads.n[0]], at: [reads.at[0]], bytes: [reads.bytes.reduce((a, b) => a + b)] };
  }
  const replayed = await replay("anthropic", resplit);
  assert.equal(replayed.outcome.status, "completed", `${replayed.outcome.error?.code}: ${replayed.outcome.error?.message}`);
  assert.equal(sameRedacted(task.history, replayed.task.history), null);
});

test("replayed by time, a timer due when the next response came fires first (the request it makes comes in the same millisecond)", async () => {
  const { tape, task } = await record("anthropic");
  const byTime = { ...structuredClone(tape), wakes: [] };
  const requests = byTime.interactions.filter((e) => e.type === "request");
  const overloaded = requests.findIndex((e) => e.response?.status === 529);
  const next = requests[overloaded + 1].response;
  // The retry's timer fired; the next request's response is stamped at the very time it was due.
  const wake = tape.wakes.filter((w) => w.n > requests[overloaded].response.n && w.n < next.n).at(-1);
  assert.ok(wake, JSON.stringify(tape.wakes));
  next.at = wake.due;
  const replayed = await replay("anthropic", byTime, { stallMs: 1000 });
  assert.equal(replayed.outcome.status, "completed", `${replayed.outcome.error?.code}: ${replayed.outcome.error?.message}`);
  assert.equal(sameRedacted(task.history, replayed.task.history), null);
});

test("reads that end inside a character replay as bytes, to the same history", async () => {
  const log = { messages: [], stored: [] };
  const options = taskOptions("openai", log);
  const task = new Task({ ...options, model: { ...options.model, request: memoryModel("openai", { readBytes: 3, pauseMs: 0 }) }, cassette: { mode: "record" } });
  assert.equal((await task.start("Summarise the notes")).status, "completed");
  const tape = await task.cassette();
  const response = tape.interactions[0].response;
  const bytes = new TextEncoder().encode(response.text);
  let end = 0;
  const inside = response.reads.bytes.filter((length) => (end += length) < bytes.length && (bytes[end] & 0xc0) === 0x80);
  assert.ok(inside.length > 0, "some read ends inside a character");
  const replayed = await replay("openai", tape);
  assert.equal(replayed.outcome.status, "completed");
  assert.equal(JSON.stringify(says(replayed.log)), JSON.stringify(says(log)));
  assert.equal(sameRedacted(task.history, replayed.task.history), null);
});

test("a model's tool arguments with a key named __proto__ are kept on the tape, and replay", async () => {
  const { anthropicReply } = await import("./support/sse-server.mjs");
  const replies = [
    anthropicReply("Reading.", { id: "toolu_p1", name: "read_file", input: JSON.parse('{"path":"notes.md","__proto__":{"x":1}}') }),
    anthropicReply("", { id: "toolu_p2", name: "attempt_completion", input: { result: "read" } }),
  ];
  let n = 0;
  const model = () => new Response(replies[Math.min(n++, 1)], { headers: { "content-type": "text/event-stream" } });
  const options = taskOptions("anthropic");
  const recorder = new Task({ ...options, model: { ...options.model, request: model }, cassette: { mode: "record" } });
  assert.equal((await recorder.start("Read")).status, "completed");
  const tape = await recorder.cassette();
  assert.match(JSON.stringify(tape.interactions.filter((e) => e.type === "request")[1].body), /"__proto__":\{"x":1\}/);
  const again = new Task({ ...taskOptions("anthropic"), cassette: { mode: "replay", data: tape } });
  const outcome = await again.start("Read");
  assert.equal(outcome.status, "completed", `${outcome.error?.code}: ${outcome.error?.message}`);
});

test("a model stream that reads text (not bytes) records its UTF-8 and replays the same", { timeout: 20_000 }, async () => {
  const { anthropicReply } = await import("./support/sse-server.mjs");
  const replies = [
    anthropicReply("Reading — café.", { id: "toolu_t1", name: "read_file", input: { path: "notes.md" } }),
    anthropicReply("", { id: "toolu_t2", name: "attempt_completion", input: { result: "read" } }),
  ];
  let n = 0;
  // A bare stream of strings, one SSE event each.
  const model = () => {
    const events = replies[Math.min(n++, 1)].split(/(?<=\n\n)/);
    return new ReadableStream({ pull(c) { if (events.length) c.enqueue(events.shift()); else c.close(); } });
  };
  const log = { messages: [], stored: [] };
  const options = taskOptions("anthropic", log);
  const recorder = new Task({ ...options, model: { ...options.model, request: model }, cassette: { mode: "record" } });
  assert.equal((await recorder.start("Read")).status, "completed");
  const tape = await recorder.cassette();
  assert.match(tape.interactions[0].response.text, /caf\u00e9|café/);
  const again = { messages: [], stored: [] };
  const replayed = new Task({ ...taskOptions("anthropic", again), cassette: { mode: "replay", data: tape } });
  const outcome = await replayed.start("Read");
  assert.equal(outcome.status, "completed", `${outcome.error?.code}: ${outcome.error?.message}`);
  assert.equal(JSON.stringify(says(again)), JSON.stringify(says(log)));
  assert.equal(sameRedacted(recorder.history, replayed.history), null);
});

test("a response without a body (a 500, a 204) replays without one", { timeout: 20_000 }, async () => {
  const { anthropicReply } = await import("./support/sse-server.mjs");
  const done = anthropicReply("", { id: "toolu_b1", name: "attempt_completion", input: { result: "done" } });
  for (const status of [500, 204]) {
    let n = 0;
    const model = () => (n++ === 0 ? new Response(null, { status }) : new Response(done, { headers: { "content-type": "text/event-stream" } }));
    const log = { messages: [], stored: [] };
    const options = taskOptions("anthropic", log);
    const recorder = new Task({ ...options, model: { ...options.model, request: model }, cassette: { mode: "record" } });
    const recorded = await recorder.start("Go");
    const tape = await recorder.cassette();
    const again = { messages: [], stored: [] };
    const replayed = new Task({ ...taskOptions("anthropic", again), cassette: { mode: "replay", data: tape } });
    const outcome = await replayed.start("Go");
    assert.deepEqual(outcome, recorded, `${status}: ${outcome.error?.code}: ${outcome.error?.message}`);
    assert.equal(JSON.stringify(says(again)), JSON.stringify(says(log)), String(status));
    assert.equal(sameRedacted(recorder.history, replayed.history), null, String(status));
  }
});

test("a request that fails before any response (a network error) replays the same", { timeout: 20_000 }, async () => {
  const { anthropicReply } = await import("./support/sse-server.mjs");
  const done = anthropicReply("", { id: "toolu_n1", name: "attempt_completion", input: { result: "done" } });
  let n = 0;
  const model = async () => {
    if (n++ === 0) throw new TypeError("fetch failed");
    return new Response(done, { headers: { "content-type": "text/event-stream" } });
  };
  const log = { messages: [], stored: [] };
  const options = taskOptions("anthropic", log);
  const recorder = new Task({ ...options, model: { ...options.model, request: model }, cassette: { mode: "record" } });
  const recorded = await recorder.start("Go");
  const tape = await recorder.cassette();
  assert.equal(tape.interactions[0].error.name, "TypeError");
  const again = { messages: [], stored: [] };
  const replayed = new Task({ ...taskOptions("anthropic", again), cassette: { mode: "replay", data: tape } });
  assert.deepEqual(await replayed.start("Go"), recorded);
  assert.equal(JSON.stringify(says(again)), JSON.stringify(says(log)));
  assert.equal(sameRedacted(recorder.history, replayed.history), null);
});

test("recording changes nothing for a tool whose result JSON cannot hold (a BigInt, a cycle), and the replay gives the same", async () => {
  const cycle = {};
  cycle.self = cycle;
  for (const result of [{ big: 10n }, cycle, () => 1]) {
    const enc = new TextEncoder();
    const run = (cassette) => {
      let n = 0;
      const replies = ["<read_file><path>a</path></read_file>", "<attempt_completion><result>ok</result></attempt_completion>"];
      return new Task({
        model: { format: "chunks", request: () => new ReadableStream({ start(c) { c.enqueue(enc.encode(JSON.stringify({ type: "text", text: replies[Math.min(n++, 1)] }) + "\n")); c.close(); } }) },
        tools: [{ name: "read_file", readOnly: true, parameters: [{ name: "path", required: true }], execute: () => result }],
        autoApprove: { readOnly: true },
        ask: () => ({ response: "yesButtonClicked" }),
        ...(cassette && { cassette }),
      });
    };
    const plainTask = run();
    await plainTask.start("go");
    const recorder = run({ mode: "record" });
    await recorder.start("go");
    assert.equal(JSON.stringify(recorder.history), JSON.stringify(plainTask.history));
    const replayed = run({ mode: "replay", data: await recorder.cassette() });
    assert.equal((await replayed.start("go")).status, "completed");
    assert.equal(JSON.stringify(replayed.history), JSON.stringify(plainTask.history));
  }
});

test("a changed system prompt fails with the first path where the request differs", async () => {
  const { tape } = await record("anthropic");
  const { outcome, task } = await replay("anthropic", tape, {}, (o) => ({ ...o, systemPrompt: "You are a hasty agent." }));
  assert.equal(outcome.status, "failed");
  assert.equal(outcome.error.code, "CLEW_CASSETTE_MISMATCH");
  assert.match(outcome.error.message, /at \$\.system.*recorded .*careful.*now .*hasty/s);
  assert.equal(task.outcome.error.code, "CLEW_CASSETTE_MISMATCH");
});

test("a removed tool fails where the tools differ", async () => {
  const { tape } = await record("openai");
  const { outcome } = await replay("openai", tape, {}, (o) => ({ ...o, tools: o.tools.filter((t) => t.name !== "write_file") }));
  assert.equal(outcome.error.code, "CLEW_CASSETTE_MISMATCH");
  // The first difference is the system prompt's list of tools.
  assert.match(outcome.error.message, /at \$\.messages\[0\]\.content: recorded \.\.\."[^"]*## write_file/);
});

test("a live tool whose result changed fails, or warns and goes on", async () => {
  const { tape } = await record("gemini");
  const changed = (o) => ({ ...o, tools: o.tools.map((t) => t.name === "read_file" ? { ...t, execute: async () => "three\nfour" } : t) });
  const failed = await replay("gemini", tape, { tools: "live" }, changed);
  assert.equal(failed.outcome.error.code, "CLEW_CASSETTE_TOOL_DIVERGED");
  assert.match(failed.outcome.error.message, /read_file.*recorded "one\\ntwo", now "three\\nfour"/);
  const warnings = [];
  const warned = await replay("gemini", tape, { tools: "live", onDivergence: "warn", onWarning: (m) => warnings.push(m) }, changed);
  assert.equal(warned.outcome.status, "completed");
  assert.ok(warnings.length >= 1);
  const same = await replay("gemini", tape, { tools: "live" });
  assert.equal(same.outcome.status, "completed");
});

test("a request after the tape ended, and interactions never used, fail loudly", async () => {
  const { tape } = await record("anthropic");
  const short = structuredClone(tape);
  const last = short.interactions.findLastIndex((e) => e.type === "request");
  short.interactions = short.interactions.slice(0, last);
  short.wakes = [];
  const exhausted = await replay("anthropic", short, { stallMs: 2000 });
  assert.equal(exhausted.outcome.status, "failed");
  assert.match(exhausted.outcome.error.code, /CLEW_CASSETTE_(EXHAUSTED|STALLED)/);

  const long = structuredClone(tape);
  const extra = structuredClone(long.interactions.find((e) => e.type === "tool"));
  extra.call = long.interactions.filter((e) => e.type === "tool").length;
  extra.outcome.n = 1e6;
  long.interactions.push(extra);
  const unused = await replay("anthropic", long);
  assert.equal(unused.outcome.error.code, "CLEW_CASSETTE_UNUSED");
  assert.match(unused.outcome.error.message, /1 recorded interaction was never used, from the tool result of call/);
  const allowed = await replay("anthropic", long, { allowUnused: true });
  assert.equal(allowed.outcome.status, "completed");
});

test("a tape that is not one, or from a later clew, is a TypeError with a code", () => {
  const options = taskOptions("anthropic");
  const make = (data) => () => new Task({ ...options, cassette: { mode: "replay", data } });
  assert.throws(make("{"), { code: "CLEW_INVALID_CASSETTE" });
  assert.throws(make({ format: "vcr" }), { code: "CLEW_INVALID_CASSETTE", message: /format/ });
  assert.throws(make({ format: "clew-cassette", version: 99, model: { format: "anthropic" }, startedAt: 0, interactions: [] }), { code: "CLEW_CASSETTE_VERSION" });
  assert.throws(make({ format: "clew-cassette", version: 1, model: { format: "gemini" }, startedAt: 0, interactions: [] }), { code: "CLEW_INVALID_CASSETTE", message: /gemini/ });
  assert.throws(() => new Task({ ...options, cassette: { mode: "rewind" } }), { code: "CLEW_INVALID_OPTIONS" });
  assert.throws(() => new Task({ ...options, cassette: { mode: "replay" } }), { code: "CLEW_INVALID_OPTIONS" });
});

test("a damaged tape is a TypeError naming the place, never a hang or a trap", async () => {
  const { tape } = await record("anthropic");
  const request = (t) => t.interactions.find((e) => e.type === "request");
  const damages = {
    "response.headers": (t) => { request(t).response.headers = "x"; },
    "response.status": (t) => { request(t).response.status = 99999; },
    "needs the body as text, or base64": (t) => { delete request(t).response.text; request(t).response.base64 = "!!!"; },
    "reads.bytes": (t) => { request(t).response.reads.bytes[0] += 1; },
    "reads[1]": (t) => { request(t).response.reads.at[1] = -5; },
    "of one length": (t) => { request(t).response.reads.n.pop(); },
    "body": (t) => { request(t).body = "hello"; },
    "call": (t) => { t.interactions.filter((e) => e.type === "request")[1].call = 0; },
    "outcome": (t) => { delete t.interactions.find((e) => e.type === "ask").outcome; },
    "response.end": (t) => { request(t).response.end = { n: 1e6, at: 0, type: "error", message: "boom", name: 5 }; },
    "startedAt": (t) => { t.startedAt = 1e300; },
    "keeps 999 items": (t) => { t.interactions.filter((e) => e.type === "request")[1].body.messages[0] = { $previous: 999 }; },
    "interactions[1].type": (t) => { delete t.interactions[1]; },
    "wakes[0]": (t) => { t.wakes = [, { n: 1, at: 0, due: 0 }]; },
    "redaction": (t) => { t.redaction = { ignore: 5 }; },
    "mcp": (t) => { t.mcp = { notes: { methods: 3 } }; },
  };
  for (const [place, damage] of Object.entries(damages)) {
    const data = structuredClone(tape);
    damage(data);
    assert.throws(() => new Task({ ...taskOptions("anthropic"), cassette: { mode: "replay", data } }),
      (error) => error instanceof TypeError && error.code === "CLEW_INVALID_CASSETTE" && error.message.includes(place), place);
  }
});

test("a tape changed at random places is refused with a coded TypeError or replays to an end, never a trap or a hang", { timeout: 120_000 }, async () => {
  const base = JSON.parse(readFileSync(new URL("../tests/fixtures/cassettes/v2-anthropic.json", import.meta.url), "utf8"));
  let seed = 31;
  const random = () => { seed = (seed * 1103515245 + 12345) & 0x7fffffff; return seed / 0x7fffffff; };
  const pick = (xs) => xs[Math.floor(random() * xs.length)];
  const values = [null, undefined, 0, -1, 1e300, NaN, "", "x", "redacted-1", [], {}, { n: 1 }, true, 2 ** 53, "__proto__"];
  const places = (value, path = [], out = []) => {
    out.push(path);
    if (value && typeof value === "object") for (const key of Object.keys(value)) places(value[key], [...path, key], out);
    return out;
  };
  const ends = {};
  for (let i = 0; i < 80; i++) {
    const tape = structuredClone(base);
    const all = places(tape).filter((p) => p.length);
    for (let m = 0; m < 1 + Math.floor(random() * 3); m++) {
      const path = pick(all);
      let holder = tape;
      for (const key of path.slice(0, -1)) holder = holder?.[key];
      if (!holder || typeof holder !== "object") continue;
      const key = path.at(-1);
      if (random() < 0.2) delete holder[key];
      else holder[key] = pick(values);
    }
    let end;
    try {
      const task = new Task({ ...taskOptions("anthropic"), cassette: { mode: "replay", data: tape, stallMs: 200 } });
      const outcome = await Promise.race([task.start("Summarise the notes"), new Promise((r) => setTimeout(() => r({ status: "hung" }), 5000))]);
      end = `${outcome.status} ${outcome.error?.code ?? ""}`;
    } catch (error) {
      assert.ok(error instanceof TypeError && error.code === "CLEW_INVALID_CASSETTE", `mutation ${i}: ${error.stack}`);
      end = "refused";
    }
    assert.notEqual(end, "hung ", `mutation ${i}`);
    ends[end] = (ends[end] ?? 0) + 1;
  }
  assert.ok(ends.refused > 0 && Object.keys(ends).length > 2, JSON.stringify(ends));
});

test("mode auto records without data and replays with it", async () => {
  const options = taskOptions("openai");
  const first = new Task({ ...options, model: { ...options.model, request: memoryModel("openai") }, cassette: { mode: "auto" } });
  await first.start("Summarise the notes");
  const tape = await first.cassette();
  const second = new Task({ ...taskOptions("openai"), cassette: { data: JSON.stringify(tape) } });
  assert.equal((await second.start("Summarise the notes")).status, "completed");
});

// NOTE: one tape of each released format version, written by the build that released it.
const fixtures = new URL("../tests/fixtures/cassettes/", import.meta.url);
for (const name of readdirSync(fixtures).filter((f) => /^v\d+-[a-z]+\.json$/.test(f))) {
  test(`a tape written by an earlier build replays to the end recorded with it: ${name}`, async () => {
    const tape = JSON.parse(readFileSync(new URL(name, fixtures), "utf8"));
    const expected = JSON.parse(readFileSync(new URL(name.replace(".json", ".end.json"), fixtures), "utf8"));
    const { outcome, task } = await replay(tape.model.format, tape);
    assert.deepEqual(outcome, expected.outcome);
    // NOTE: since snapshot format 4 (context management) a finished request's
    // `api_req_started` also says its context figure, which the earlier builds did not write.
    const messages = task.messages.map((m) =>
      m.say === "api_req_started" ? { ...m, text: m.text.replace(/,"contextTokens":\d+/, "") } : m);
    assert.equal(JSON.stringify(messages), JSON.stringify(expected.messages));
    assert.equal(JSON.stringify(task.history), JSON.stringify(expected.history));
  });
}

test("a provider's SSE body imports as a one-round tape", async () => {
  const body = [
    'data: {"choices":[{"index":0,"delta":{"role":"assistant","content":"Done: "}}]}',
    'data: {"choices":[{"index":0,"delta":{"content":"<attempt_completion><result>ok</result></attempt_completion>"}}]}',
    'data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}',
    "data: [DONE]", "",
  ].join("\n\n");
  const tape = fromSse(body, { format: "openai", id: "gpt-test" });
  assert.equal(tape.interactions[0].response.reads.n.length, 4);
  const said = [];
  const task = new Task({
    model: { format: "openai", id: "gpt-test" }, say: (m) => said.push(m),
    ask: async () => ({ response: "yesButtonClicked" }),
    cassette: { mode: "replay", data: tape, asks: "live" },
  });
  const outcome = await task.start("Finish");
  assert.deepEqual(outcome, { status: "completed", result: "ok" });
  assert.ok(said.some((m) => m.say === "text" && m.text.startsWith("Done:")));
});

test("a body that starts with a byte order mark keeps it on the tape, and replays", async () => {
  const body = "\uFEFF" + 'data: {"choices":[{"index":0,"delta":{"role":"assistant","content":"<attempt_completion><result>ok</result></attempt_completion>"}}]}\n\ndata: [DONE]\n\n';
  const tape = fromSse(body, { format: "openai", id: "gpt-test" });
  assert.equal(tape.interactions[0].response.text, body);
  const task = new Task({ model: { format: "openai", id: "gpt-test" }, ask: async () => ({ response: "yesButtonClicked" }), cassette: { mode: "replay", data: tape, asks: "live" } });
  assert.deepEqual(await task.start("Finish"), { status: "completed", result: "ok" });
});

test("an MCP server's listing and calls are on the tape, and the replay needs no server", async () => {
  const line = (text) => new TextEncoder().encode(JSON.stringify({ type: "text", text }) + "\n");
  const replies = [
    'Looking it up.\n<use_mcp_tool>\n<server_name>notes</server_name>\n<tool_name>lookup</tool_name>\n<arguments>{"term":"clew"}</arguments>\n</use_mcp_tool>',
    "<attempt_completion>\n<result>found it</result>\n</attempt_completion>",
  ];
  let n = 0;
  const calls = [];
  const client = {
    listTools: async () => ({ tools: [{ name: "lookup", description: "Look a term up", inputSchema: { type: "object", properties: { term: { type: "string" } }, required: ["term"] }, annotations: { readOnlyHint: true } }] }),
    callTool: async (params) => { calls.push(params); return { content: [{ type: "text", text: `the notes say ${params.arguments.term} is a thread` }] }; },
  };
  const options = (log, mcpClient) => ({
    model: { format: "chunks", id: "m", request: () => new ReadableStream({ start(c) { c.enqueue(line(replies[n++])); c.close(); } }) },
    autoApprove: { readOnly: true },
    mcpServers: [{ name: "notes", client: mcpClient }],
    say: (m) => log.push(m),
    ask: async () => ({ response: "yesButtonClicked" }),
  });
  const said = [];
  const recorder = new Task({ ...options(said, client), cassette: { mode: "record" } });
  assert.deepEqual(await recorder.start("What is clew?"), { status: "completed", result: "found it" });
  const tape = await recorder.cassette();
  const mcp = tape.interactions.filter((e) => e.type === "mcp").map((e) => e.method);
  assert.ok(mcp.includes("listTools") && mcp.includes("callTool"), mcp.join());
  assert.equal(calls.length, 1);

  const gone = { listTools: () => assert.fail("the server was called"), callTool: () => assert.fail("the server was called") };
  const replayedSaid = [];
  const replayed = new Task({ ...options(replayedSaid, gone), cassette: { mode: "replay", data: tape } });
  assert.deepEqual(await replayed.start("What is clew?"), { status: "completed", result: "found it" });
  assert.equal(JSON.stringify(replayed.messages), JSON.stringify(recorder.messages));
  assert.ok(replayedSaid.some((m) => m.say === "mcp_server_response" && m.text.includes("is a thread")));
  assert.equal(calls.length, 1);
});

test("a task aborted mid-stream while recording ends aborted, and its tape says the body was cut", async () => {
  const log = { messages: [], stored: [] };
  const options = taskOptions("anthropic", log);
  let task;
  const say = (m) => { options.say(m); if (m.say === "text" && m.partial) task.abort("enough"); };
  task = new Task({ ...options, say, model: { ...options.model, request: memoryModel("anthropic", { pauseMs: 5 }) }, cassette: { mode: "record" } });
  const outcome = await task.start("Summarise the notes");
  assert.equal(outcome.status, "aborted");
  // A read that was on its way when the body was cancelled does not stop the recording.
  await new Promise((r) => setTimeout(r, 50));
  const tape = await task.cassette();
  const request = tape.interactions.find((e) => e.type === "request");
  assert.equal(request.response.end.type, "abort");
});
