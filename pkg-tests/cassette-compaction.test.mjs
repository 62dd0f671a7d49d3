// clew/cassette and context management (README: "Long tasks: context management", "Testing
// with tapes"): a task whose context is compacted records to a tape and replays from it.
// Anthropic's native compaction (the block comes back in the next request, which starts from
// it) and the summarize strategy (its `summarize_task` round, its files read live by
// `readRequiredFiles` in both runs). The model's SSE bodies are written here by hand.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Task, tapeModel } from "clew/cassette";
import { buildRequest } from "clew";
import { sameRedacted } from "./support/same-redacted.mjs";

const KEY = "sk-test-SECRET-compaction-0123456789";
const COMPACTED = "summary of the task so far";

/** One SSE event of Anthropic's Messages stream. */
const event = (type, fields = {}) => `event: ${type}\ndata: ${JSON.stringify({ type, ...fields })}\n\n`;

/**
 * An Anthropic reply as its SSE events: `blocks` (`{ compaction }`, `{ text }` or
 * `{ call: { id, name, input } }`), `start` the usage of `message_start`, `end` that of
 * `message_delta`.
 */
function anthropicEvents({ id, blocks, start, end }) {
  const events = [event("message_start", { message: { id, type: "message", role: "assistant", content: [], model: "claude-sonnet-4-6", stop_reason: null, usage: start } })];
  blocks.forEach((block, index) => {
    if ("compaction" in block) {
      events.push(event("content_block_start", { index, content_block: { type: "compaction", content: null } }));
      events.push(event("content_block_delta", { index, delta: { type: "compaction_delta", content: block.compaction } }));
    } else if ("text" in block) {
      events.push(event("content_block_start", { index, content_block: { type: "text", text: "" } }));
      for (const piece of block.text.match(/.{1,6}/gs)) events.push(event("content_block_delta", { index, delta: { type: "text_delta", text: piece } }));
    } else {
      const { call } = block;
      events.push(event("content_block_start", { index, content_block: { type: "tool_use", id: call.id, name: call.name, input: {} } }));
      for (const piece of JSON.stringify(call.input).match(/.{1,8}/gs)) events.push(event("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: piece } }));
    }
    events.push(event("content_block_stop", { index }));
  });
  const stop = blocks.some((b) => b.call) ? "tool_use" : "end_turn";
  events.push(event("message_delta", { delta: { stop_reason: stop, stop_sequence: null }, usage: end }));
  events.push(event("message_stop"));
  return events;
}

/** A streamed response: one SSE event per read. */
function sseResponse(events) {
  const bytes = events.map((e) => new TextEncoder().encode(e));
  const body = new ReadableStream({
    async pull(controller) {
      await new Promise((r) => setTimeout(r, 1));
      if (bytes.length) controller.enqueue(bytes.shift());
      else controller.close();
    },
  }, { highWaterMark: 0 });
  return new Response(body, { headers: { "content-type": "text/event-stream" } });
}

/** A reply that completes the task (call `id`). */
const completion = (id, result) => anthropicEvents({
  id: `msg_${id}`, blocks: [{ call: { id: `toolu_${id}`, name: "attempt_completion", input: { result } } }],
  start: { input_tokens: 2_100, output_tokens: 1 }, end: { output_tokens: 20 },
});

/** The request bodies a tape holds, whole (each `{ "$previous": n }` resolved). */
function tapeBodies(tape) {
  const bodies = [];
  let previous = null;
  for (const entry of tape.interactions.filter((e) => e.type === "request")) {
    const body = { ...entry.body };
    for (const [key, items] of Object.entries(body)) {
      if (Array.isArray(items) && Number.isInteger(items[0]?.$previous)) body[key] = [...previous[key].slice(0, items[0].$previous), ...items.slice(1)];
    }
    bodies.push(body);
    previous = body;
  }
  return bodies;
}

const files = new Map([["notes.md", "one\ntwo"], ["src/app.js", "let x = 1;"]]);
const readFile = {
  name: "read_file", description: "Read a file", readOnly: true, parameters: [{ name: "path", description: "Path", required: true }],
  execute: async ({ path }) => files.get(path) ?? `no file at ${path}`,
};

/** Options shared by the recording and the replays; `log` keeps every message (cloned). */
function options(model, contextManagement, log) {
  return {
    model, contextManagement, toolCalling: "native", systemPrompt: "You are a careful agent.",
    autoApprove: { readOnly: true }, presentationIntervalMs: 20, tools: [readFile],
    say: (m) => log.push(structuredClone(m)),
    ask: async (m) => { log.push(structuredClone(m)); return m.partial ? undefined : { response: "yesButtonClicked" }; },
  };
}

const compactionSays = (log) => log.filter((m) => m.say === "compaction").map((m) => JSON.parse(m.text));
const says = (log) => log.filter((m) => m.type === "say");

// ---------------------------------------------------------------------------------------
// Anthropic's native compaction.

const SONNET = { format: "anthropic", id: "claude-sonnet-4-6", apiKey: KEY, info: { contextWindow: 200_000 } };
const NATIVE = { strategy: "native" };
const TEXT = "Read notes.md and sum it up";

/** The first reply: the compaction block, text and a read, billed as two passes. */
const compactedReply = () => anthropicEvents({
  id: "msg_01cmp",
  blocks: [{ compaction: COMPACTED }, { text: "Going on from the summary." }, { call: { id: "toolu_01read", name: "read_file", input: { path: "notes.md" } } }],
  start: { input_tokens: 170_000, output_tokens: 1 },
  end: {
    input_tokens: 2_000, output_tokens: 40,
    iterations: [{ type: "compaction", input_tokens: 170_000, output_tokens: 400 }, { type: "message", input_tokens: 2_000, output_tokens: 40 }],
  },
});

test("a task compacted by Anthropic records to a tape, and a fresh task replays it to the same requests, the same compaction say and its end", async () => {
  const scripted = [compactedReply(), completion("02done", "The notes say one and two.")];
  const live = [];
  const fetch = async (url, init) => {
    live.push({ url, headers: init.headers, body: init.body });
    const events = scripted[live.length - 1];
    if (!events) throw new Error(`the script has no reply for request ${live.length}`);
    return sseResponse(events);
  };
  const log = [];
  const recorder = new Task({ ...options({ ...SONNET, fetch }, NATIVE, log), cassette: { mode: "record" } });
  const recorded = await recorder.start(TEXT);
  assert.deepEqual(recorded, { status: "completed", result: "The notes say one and two." });
  assert.equal(live.length, 2);

  // What went to the provider: context management asked in both requests (a window of
  // 200,000: a limit of 160,000; clew asks Anthropic to pause after a compaction), the
  // compaction block sent back first in the second, which starts from it.
  const sent = live.map((r) => JSON.parse(r.body));
  const edits = [{ type: "compact_20260112", trigger: { type: "input_tokens", value: 160_000 }, pause_after_compaction: true }];
  for (const [i, body] of sent.entries()) {
    assert.deepEqual(body.context_management, { edits }, `request ${i}`);
    assert.match(live[i].headers["anthropic-beta"] ?? "", /compact-2026-01-12/, `request ${i}`);
  }
  assert.doesNotMatch(JSON.stringify(sent[0].messages), /compaction/);
  assert.equal(sent[1].messages[0].role, "assistant", JSON.stringify(sent[1].messages));
  assert.deepEqual(sent[1].messages[0].content[0], { type: "compaction", content: COMPACTED });
  assert.deepEqual(sent[1].messages[0].content.map((b) => b.type), ["compaction", "text", "tool_use"]);
  assert.ok(sent[1].messages.some((m) => m.role === "user" && m.content.some((b) => b.type === "tool_result" && b.tool_use_id === "toolu_01read")));

  const [say, ...more] = compactionSays(log);
  assert.deepEqual(more, [], "one compaction say");
  assert.deepEqual({ kind: say.kind, provider: say.provider, status: say.status, summary: say.summary, before: say.tokensBefore, after: say.tokensAfter },
    { kind: "native", provider: "anthropic", status: "completed", summary: COMPACTED, before: 170_000, after: 2_040 });
  const history = recorder.history;
  assert.deepEqual(history.find((m) => m.role === "assistant").content[0], { type: "compaction", provider: "anthropic", content: COMPACTED });

  // The tape: both requests, each the body sent (redacted), the block in the second.
  const tape = JSON.parse(JSON.stringify(await recorder.cassette()));
  assert.doesNotMatch(JSON.stringify(tape), /sk-test-SECRET|toolu_01read|msg_01cmp/);
  const taped = tapeBodies(tape);
  assert.equal(taped.length, 2);
  assert.equal(sameRedacted(sent, taped), null);
  assert.deepEqual(taped[1].messages[0].content[0], { type: "compaction", content: COMPACTED });
  assert.ok(taped.every((b) => b.context_management), "context_management in both");

  // A fresh task replays it: the model, the tool and the asks from the tape, on a virtual
  // clock. Each request it makes is checked against the tape's (a body that differs ends the
  // task CLEW_CASSETTE_MISMATCH); it completes, saying what the recording said.
  const fetchNever = async () => assert.fail("the replay called the model");
  const replayLog = [];
  const replayed = new Task({ ...options({ ...SONNET, fetch: fetchNever }, NATIVE, replayLog), cassette: { mode: "replay", data: tape } });
  const outcome = await replayed.start(TEXT);
  assert.deepEqual(outcome, recorded, `${outcome.error?.code}: ${outcome.error?.message}`);
  assert.deepEqual(compactionSays(replayLog), compactionSays(log));
  assert.equal(JSON.stringify(says(replayLog)), JSON.stringify(says(log)));
  assert.equal(JSON.stringify(replayed.messages), JSON.stringify(recorder.messages));
  assert.deepEqual(replayed.usage, recorder.usage);
  assert.equal(sameRedacted(recorder.history, replayed.history), null);

  // A tape whose second request sent another block: the replay stops there.
  const changed = structuredClone(tape);
  const second = changed.interactions.filter((e) => e.type === "request")[1].body;
  assert.equal(second.messages[0].content[0].type, "compaction", JSON.stringify(second.messages[0]));
  second.messages[0].content[0].content = "another summary";
  const refused = await new Task({ ...options({ ...SONNET, fetch: fetchNever }, NATIVE, []), cassette: { mode: "replay", data: changed } }).start(TEXT);
  assert.equal(refused.status, "failed");
  assert.equal(refused.error.code, "CLEW_CASSETTE_MISMATCH");
  assert.match(refused.error.message, /at \$\.messages\[0\]\.content\[0\]\.content: recorded "another summary", now "summary of the task so far"/);

  // The requests a task makes when the tape answers it, seen whole (tapeModel: the same
  // comparison with the tape, and the bodies clew builds for them): the tape's own.
  const seen = [];
  const left = [];
  const model = tapeModel(tape, { ...SONNET, request: () => assert.fail("the tape ran out") }, { onLive: (why) => left.push(why) });
  const third = new Task(options({ ...model, request: (req, init) => { seen.push(JSON.parse(buildRequest("anthropic", req).body)); return model.request(req, init); } }, NATIVE, []));
  assert.deepEqual(await third.start(TEXT), recorded);
  assert.deepEqual(left, []);
  assert.deepEqual(seen, taped);
});

// ---------------------------------------------------------------------------------------
// The summarize strategy.

const SUMMARY = [
  "1. Request and intent: read the notes.", "2. Technical concepts: none.", "3. Files and code: src/app.js.",
  "4. Problems solved: none.", "5. Pending tasks: finish.", "6. How the task evolved: no change.",
  "7. Current work: reading.", "8. Next step: complete.", "9. Required files:", "- `src/app.js`", "- notes.md",
  "10. Latest user message: Read the notes.",
].join("\n");
const CLAUDE = { format: "anthropic", id: "claude-test", apiKey: KEY, info: { contextWindow: 200_000 } };
const read = (id, path, input) => anthropicEvents({
  id: `msg_${id}`, blocks: [{ text: `Reading ${path}.` }, { call: { id: `toolu_${id}`, name: "read_file", input: { path } } }],
  start: { input_tokens: input, output_tokens: 1 }, end: { output_tokens: 10 },
});
const SUMMARIZE_SCRIPT = [
  read("s1", "notes.md", 500),
  read("s2", "src/app.js", 1_500),
  anthropicEvents({
    id: "msg_s3", blocks: [{ text: "Summarizing." }, { call: { id: "toolu_s3", name: "summarize_task", input: { context: SUMMARY } } }],
    start: { input_tokens: 1_600, output_tokens: 1 }, end: { output_tokens: 300 },
  }),
  completion("s4", "done"),
];

/** `contextManagement` under summarize; `asked` keeps each readRequiredFiles call's paths. */
const summarizing = (asked) => ({
  strategy: "summarize", maxContextTokens: 1_000,
  summarize: { models: "all", readRequiredFiles: async (paths) => { asked.push(paths); return paths.map((path) => ({ path, content: files.get(path) })); } },
});

test("a task under summarize records to a tape (its summarize_task round included) and replays to the same requests, its files read live", async () => {
  const live = [];
  const request = (req) => {
    live.push(JSON.parse(buildRequest("anthropic", req).body));
    const events = SUMMARIZE_SCRIPT[live.length - 1];
    if (!events) throw new Error(`the script has no reply for request ${live.length}`);
    return sseResponse(events);
  };
  const log = [];
  const asked = [];
  const recorder = new Task({ ...options({ ...CLAUDE, request }, summarizing(asked), log), cassette: { mode: "record" } });
  const recorded = await recorder.start("Read the notes.");
  assert.deepEqual(recorded, { status: "completed", result: "done" });
  assert.equal(live.length, 4);
  assert.deepEqual(asked, [["src/app.js", "notes.md"]]);
  assert.ok(live[0].tools.some((t) => t.name === "summarize_task"));
  assert.match(JSON.stringify(live[2].messages.at(-1)), /summarize_task/);
  const continuation = JSON.stringify(live[3].messages);
  assert.match(continuation, /Context summarized/);
  assert.ok(continuation.includes(JSON.stringify(SUMMARY).slice(1, -1)), "the summary follows");
  assert.match(continuation, /Content of src\/app\.js:\\n\\nlet x = 1;/);
  assert.equal(compactionSays(log)[0]?.kind, "summary");

  const tape = JSON.parse(JSON.stringify(await recorder.cassette()));
  const taped = tapeBodies(tape);
  assert.equal(sameRedacted(live, taped), null);
  assert.equal(tape.interactions.filter((e) => e.type === "tool").length, 2, "the reads; summarize_task is the task's own");

  const replayLog = [];
  const replayAsked = [];
  const replayed = new Task({ ...options({ ...CLAUDE, request: () => assert.fail("the replay called the model") }, summarizing(replayAsked), replayLog), cassette: { mode: "replay", data: tape } });
  const outcome = await replayed.start("Read the notes.");
  assert.deepEqual(outcome, recorded, `${outcome.error?.code}: ${outcome.error?.message}`);
  assert.deepEqual(replayAsked, asked, "readRequiredFiles is called again (it is not on the tape)");
  assert.deepEqual(compactionSays(replayLog), compactionSays(log));
  assert.equal(JSON.stringify(says(replayLog)), JSON.stringify(says(log)));
  assert.equal(sameRedacted(recorder.history, replayed.history), null);

  // The replayed requests, seen whole through tapeModel: the tape's.
  const seen = [];
  const left = [];
  const thirdAsked = [];
  const model = tapeModel(tape, { ...CLAUDE, request: () => assert.fail("the tape ran out") }, { onLive: (why) => left.push(why) });
  const third = new Task(options({ ...model, request: (req, init) => { seen.push(JSON.parse(buildRequest("anthropic", req).body)); return model.request(req, init); } }, summarizing(thirdAsked), []));
  assert.deepEqual(await third.start("Read the notes."), recorded);
  assert.deepEqual(left, []);
  assert.deepEqual(thirdAsked, asked);
  assert.deepEqual(seen, taped);
});
