// The Task class of the installed package in Node: whole multi-round tasks replayed from
// their tapes (support/task-tapes.mjs), one against a local HTTP server through the built-in
// fetch, and single behaviours with scripted bodies.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Task } from "clew";
import { Task as TapedTask } from "clew/cassette";
import { startModelServer } from "./support/sse-server.mjs";
import { TASK_TAPES, taskTape } from "./support/task-tapes.mjs";

/** Replays the checked-in tape of the task `name` (support/task-tapes.mjs), tools live. */
async function replayTask(name) {
  const log = [];
  const messages = [];
  const scenario = TASK_TAPES[name];
  const tape = await taskTape(name);
  const task = new TapedTask({ ...scenario.options({ log, messages }), cassette: { mode: "replay", data: tape, tools: "live" } });
  const outcome = await task.start(scenario.text);
  return { outcome, task, log, messages, tape };
}

/** The ids of the calls an assistant message makes and of the results that answer them, in the history. */
function callPairs(history) {
  const calls = history.flatMap((m) => (Array.isArray(m.content) ? m.content : []).filter((b) => b.type === "tool_use").map((b) => b.id))
    .concat(history.flatMap((m) => (m.tool_calls ?? []).map((c) => c.id)));
  const results = history.flatMap((m) => (Array.isArray(m.content) ? m.content : []).filter((b) => b.type === "tool_result").map((b) => b.tool_use_id))
    .concat(history.filter((m) => m.role === "tool").map((m) => m.tool_call_id));
  return { calls, results };
}

test("an Anthropic task: native tool call from a recorded stream, a mid-stream overload retried, then completion", async () => {
  const { outcome, task, log, messages, tape } = await replayTask("anthropic-native-overload");
  assert.deepEqual(outcome, { status: "completed", result: "config read" });
  assert.deepEqual(log, ["read_file src/config.ts"]);
  const { calls, results } = callPairs(task.history);
  assert.deepEqual(results, calls.slice(0, 1), "the result answers the provider's call id");
  const requests = tape.interactions.filter((e) => e.type === "request");
  assert.ok(requests[0].body.tools.some((t) => t.name === "read_file"), "native mode sends tool definitions");
  const ts = messages.map((m) => m.ts);
  assert.ok(messages.some((m) => m.say === "error_retry"), "the overload was retried");
  const finals = new Map();
  for (const m of messages) finals.set(m.ts, m);
  assert.ok([...finals.values()].every((m) => m.partial !== true), "every message ends final: " + JSON.stringify([...finals.values()].filter((m) => m.partial)));
  assert.ok(ts.every((t, i) => i === 0 || t >= ts[i - 1] || finals.has(t)));
  assert.ok(task.usage.totalCost > 0 && task.usage.requests === 3);
});

test("an OpenAI task: two native calls in one recorded reply run in parallel mode, a 429 retried, XML completion", async () => {
  const { outcome, task, log, tape } = await replayTask("openai-parallel-429");
  assert.equal(outcome.status, "completed", JSON.stringify(outcome));
  assert.deepEqual(log, ["read_file a.md", "list_files src"]);
  const { calls, results } = callPairs(task.history);
  assert.equal(calls.length, 2);
  assert.deepEqual(results, calls, "each result answers its call, in order");
  assert.equal(task.history.length, 4);
  assert.ok(tape.interactions.some((e) => e.response?.status === 429 && e.response.headers["retry-after"] === "0"));
});

test("the HTTP requests of a task carry the key and go to the base URL (what a tape leaves out)", async () => {
  const scenario = TASK_TAPES["anthropic-native-overload"];
  const server = await startModelServer(scenario.replies);
  try {
    const task = new Task(scenario.options({ baseUrl: server.url, log: [], messages: [] }));
    assert.equal((await task.start(scenario.text)).status, "completed");
    assert.deepEqual(server.received.map((r) => r.path), ["/v1/messages", "/v1/messages", "/v1/messages"]);
    assert.equal(server.received[0].headers["x-api-key"], "sk-test");
    const results = server.received[1].body.messages.at(-1).content.filter((b) => b.type === "tool_result");
    assert.equal(results[0].tool_use_id, "toolu_01A", "the result answers the provider's call id, unredacted");
  } finally {
    await server.close();
  }
});

test("a custom request function, abort from inside say, and no callback after the outcome", async () => {
  let after = false;
  const calls = [];
  let task;
  task = new Task({
    model: {
      format: "chunks",
      request: (req, { signal }) => {
        calls.push(req);
        return new ReadableStream({
          start(c) {
            c.enqueue(new TextEncoder().encode(JSON.stringify({ type: "text", text: "Thinking about it" }) + "\n"));
            signal.addEventListener("abort", () => c.error(new Error("aborted")));
          },
        });
      },
    },
    say: (m) => {
      if (after) throw new Error("say after the outcome");
      if (m.say === "text") task.abort("enough");
    },
  });
  const outcome = await task.start("go");
  after = true;
  assert.equal(outcome.status, "aborted");
  assert.equal(outcome.error.message, "enough");
  assert.equal(calls[0].messages[0].content[0].text, "<task>\ngo\n</task>");
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(task.state, "finished");
  await assert.rejects(async () => task.start("again"), (e) => e.code === "CLEW_TASK_STARTED");
});

test("invalid options are TypeErrors naming the field", () => {
  assert.throws(() => new Task({}), (e) => e instanceof TypeError && e.code === "CLEW_INVALID_OPTIONS" && /model/.test(e.message));
  assert.throws(() => new Task({ model: {}, tools: [{ name: "x y", execute() {} }] }), (e) => /tools\[0\]\.name/.test(e.message));
  assert.throws(() => new Task({ model: {}, retry: { maxRetries: -1 } }), (e) => /retry\.maxRetries/.test(e.message));
});

test("options that cannot be copied are TypeErrors saying why and where", () => {
  const invalid = (options, why) => assert.throws(() => new Task(options),
    (e) => e instanceof TypeError && e.code === "CLEW_INVALID_OPTIONS" && why.test(e.message), why.source);
  const cycle = { id: "m" };
  cycle.self = cycle;
  invalid({ model: cycle }, /cannot be read: they hold a cycle/);
  invalid({ model: { id: "m" }, tools: [{ name: "t", execute() {}, parameters: [{ name: "p", weight: NaN }] }] }, /not finite at options\.tools\[0\]\.parameters\[0\]\.weight/);
  invalid({ model: { id: "m", maxTokens: 1n } }, /a BigInt at options\.model\.maxTokens/);
  let deep = {};
  for (let i = 0; i < 80; i++) deep = { deep };
  invalid({ model: { id: "m" }, deep }, /nested too deeply/);
  invalid({ model: { id: "m", get apiKey() { throw new Error("no key here"); } } }, /no key here/);
  // The same object twice is not a cycle; a `__proto__` key is a key, not a prototype.
  const shared = { name: "p", required: true };
  const tools = [{ name: "a", execute() {}, parameters: [shared] }, { name: "b", execute() {}, parameters: [shared] }];
  assert.doesNotThrow(() => new Task({ model: { id: "m" }, tools, ...JSON.parse('{"__proto__": {"tools": 5}}') }));
  // Only options.mcpServers[i].client is taken for an MCP client, by what it offers.
  const client = { listTools() {}, callTool() {} };
  assert.doesNotThrow(() => new Task({ model: { id: "m" }, mcpServers: [{ name: "s", client }] }));
  invalid({ model: { id: "m" }, mcpServers: [{ name: "s", client: { listTools() {} } }] }, /mcpServers\[0\]\.client/);
  invalid({ model: { id: "m" }, mcpServers: { 0: { name: "s", client } } }, /mcpServers/);
});

test("a model error whose body never ends is read only in part, and the task retries", { timeout: 20_000 }, async () => {
  let pulls = 0;
  const endless = () =>
    new Response(
      new ReadableStream({
        async pull(c) {
          pulls++;
          await new Promise((resolve) => setTimeout(resolve, 1));
          c.enqueue(new Uint8Array(16 * 1024).fill(0x20));
        },
      }),
      { status: 503 },
    );
  const done = () =>
    new Response(JSON.stringify({ type: "text", text: "<attempt_completion>\n<result>done</result>\n</attempt_completion>" }) + "\n");
  const replies = [endless, done];
  const messages = [];
  const task = new Task({
    model: { format: "chunks", request: () => replies.shift()() },
    retry: { baseDelayMs: 1 },
    say: (m) => messages.push(m),
    ask: (m) => (m.partial ? undefined : { response: "yesButtonClicked" }),
  });
  const outcome = await task.start("go");
  assert.deepEqual(outcome, { status: "completed", result: "done" });
  assert.ok(messages.some((m) => m.say === "error_retry"), "the 503 was retried");
  assert.ok(pulls <= 8, `the error body was read to its bound, not to its end (${pulls} pieces of 16 KB)`);
});

test("a model stream chunk that is neither bytes nor text fails the request and says why", async () => {
  const asks = [];
  const task = new Task({
    model: { format: "chunks", request: () => new ReadableStream({ start(c) { c.enqueue(42); c.close(); } }) },
    retry: { maxRetries: 0 },
    ask: (m) => { if (!m.partial) asks.push(m); return m.partial ? undefined : { response: "noButtonClicked" }; },
  });
  const outcome = await task.start("go");
  assert.equal(outcome.status, "ended");
  assert.equal(outcome.error.code, "CLEW_API_REQ_FAILED");
  const failed = asks.find((m) => m.ask === "api_req_failed");
  assert.match(failed.text, /chunk must be a Uint8Array, an ArrayBuffer or a string, not number/);
});

/** A `model.request` that answers each request with the next of `replies` (chunk lines). */
function scripted(replies, seen = []) {
  let n = 0;
  return (req) => {
    seen.push(req);
    const text = replies[Math.min(n++, replies.length - 1)];
    return new ReadableStream({
      start(c) {
        c.enqueue(new TextEncoder().encode(JSON.stringify({ type: "text", text }) + "\n"));
        c.close();
      },
    });
  };
}

test("a tool's describe(params) names its result header; a throwing one leaves the default", async () => {
  const seen = [];
  const reply = "<lookup><term>rust</term><scope>docs</scope></lookup>\n<probe><target>db</target></probe>";
  const task = new Task({
    model: { format: "chunks", request: scripted([reply, "<attempt_completion><result>ok</result></attempt_completion>"], seen) },
    parallelToolCalling: true,
    autoApprove: { all: true },
    tools: [
      { name: "lookup", parameters: [{ name: "term", required: true }, { name: "scope" }], execute: () => "found", describe: (p) => `${p.term} in ${p.scope}` },
      { name: "probe", parameters: [{ name: "target", required: true }], execute: () => "up", describe: () => { throw new Error("no"); } },
    ],
    ask: (m) => (m.partial ? undefined : { response: "yesButtonClicked" }),
  });
  assert.equal(task.state, "idle");
  const outcome = await task.start("go");
  assert.equal(outcome.status, "completed");
  const texts = seen[1].messages.at(-1).content.map((b) => b.text);
  assert.ok(texts.includes("[lookup for 'rust in docs'] Result:\nfound"), JSON.stringify(texts));
  assert.ok(texts.includes("[probe for 'db'] Result:\nup"), JSON.stringify(texts));
});

test("each request's messages are fresh objects: changing one does not change the next request", async () => {
  const seen = [];
  const firsts = [];
  const reply = scripted(["<read><path>a</path></read>", "<read><path>b</path></read>", "<attempt_completion><result>ok</result></attempt_completion>"], seen);
  const task = new Task({
    model: {
      format: "chunks",
      request: (req, ctx) => {
        firsts.push(req.messages[0].content[0].text);
        req.messages[0].content[0].text = "changed by the request function";
        return reply(req, ctx);
      },
    },
    tools: [{ name: "read", readOnly: true, parameters: [{ name: "path", required: true }], execute: ({ path }) => `contents of ${path}` }],
    autoApprove: { readOnly: true },
    ask: (m) => (m.partial ? undefined : { response: "yesButtonClicked" }),
  });
  assert.equal((await task.start("go")).status, "completed");
  assert.equal(seen.length, 3);
  assert.deepEqual(firsts, Array(3).fill("<task>\ngo\n</task>"));
  assert.equal(task.history[0].content[0].text, "<task>\ngo\n</task>", "the task's history is untouched");
  const texts = seen[2].messages.flatMap((m) => m.content.map((b) => b.text));
  assert.ok(texts.includes("[read for 'a'] Result:\ncontents of a"));
});

test("a describe that reads the task or starts it cannot break the instance", async () => {
  const seen = [];
  let task;
  task = new Task({
    model: { format: "chunks", request: scripted(["<lookup><term>a</term></lookup>", "<attempt_completion><result>ok</result></attempt_completion>"]) },
    autoApprove: { all: true },
    tools: [{
      name: "lookup", parameters: [{ name: "term", required: true }], execute: () => "found",
      describe: () => { seen.push(task.state, task.messages.length, task.history, task.outcome); task.start("again").catch(() => {}); return "subject"; },
    }],
    ask: (m) => (m.partial ? undefined : { response: "yesButtonClicked" }),
  });
  assert.equal((await task.start("go")).status, "completed");
  assert.deepEqual(seen, ["", 0, undefined, undefined], "the getters read nothing while the machine is busy");
  await aTaskStillWorks();
});

async function aTaskStillWorks() {
  const again = new Task({ model: { format: "chunks", request: scripted(["<attempt_completion><result>fine</result></attempt_completion>"]) }, ask: (m) => (m.partial ? undefined : { response: "yesButtonClicked" }) });
  assert.deepEqual(await again.start("go"), { status: "completed", result: "fine" });
}

test("options.clock gives every time the task reads and runs its timer; task.fail ends it with your code", async () => {
  let time = 1_000_000;
  const timers = [];
  const clock = {
    now: () => time,
    setTimeout: (callback, ms) => { const timer = { callback, due: time + ms }; timers.push(timer); return timer; },
    clearTimeout: (timer) => { timer.cleared = true; },
  };
  const line = (text) => new TextEncoder().encode(JSON.stringify({ type: "text", text }) + "\n");
  let requests = 0;
  const said = [];
  const task = new Task({
    model: { format: "chunks", id: "m", request: () => {
      requests++;
      if (requests === 1) return new Response("overloaded", { status: 529 });
      return new ReadableStream({ start(c) { c.enqueue(line("<attempt_completion><result>ok</result></attempt_completion>")); c.close(); } });
    } },
    retry: { baseDelayMs: 5000 },
    clock,
    say: (m) => said.push(m),
    ask: async () => ({ response: "yesButtonClicked" }),
  });
  const outcome = task.start("go");
  // The 529 waits for the retry delay on the clock's timer (the first-byte timeout, 120 s,
  // was set on it before): nothing happens until it fires.
  const retryDelay = () => timers.find((t) => !t.cleared && t.due - 1_000_000 < 100_000);
  for (let i = 0; i < 200 && !retryDelay(); i++) await new Promise((r) => setTimeout(r, 5));
  const delay = retryDelay();
  assert.ok(delay && delay.due - 1_000_000 >= 5000, "the retry delay is set on the clock");
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(requests, 1);
  time = delay.due;
  delay.callback();
  assert.deepEqual(await outcome, { status: "completed", result: "ok" });
  assert.equal(requests, 2);
  assert.ok(said.every((m) => m.ts >= 1_000_000 && m.ts <= time), "every ts is the clock's");
  assert.ok(said.some((m) => m.ts === time), "the retried request is stamped at the timer's time");

  const failing = new Task({ model: { format: "chunks", id: "m", request: () => new Promise(() => {}) } });
  const ended = failing.start("go");
  failing.fail("MY_WATCHDOG", "took too long");
  const failed = await ended;
  assert.equal(failed.status, "failed");
  assert.deepEqual([failed.error.code, failed.error.message], ["MY_WATCHDOG", "took too long"]);
  assert.equal(failing.outcome.error.code, "MY_WATCHDOG");
});

/** A `model.request` answering each request with the next of `replies`, each a list of text chunks, one per read. */
function piecewise(replies) {
  let n = 0;
  return () => {
    const encoder = new TextEncoder();
    const pieces = replies[Math.min(n++, replies.length - 1)].map((text) => encoder.encode(JSON.stringify({ type: "text", text }) + "\n"));
    let i = 0;
    return new ReadableStream({ pull(c) { if (i < pieces.length) c.enqueue(pieces[i++]); else c.close(); } });
  };
}

test("a streaming text's every partial say carries its whole text so far, whatever the say callback did to the one before", async () => {
  // Past 1 KiB (where updates wait for an eighth more), with characters of two, three and four bytes.
  const deltas = Array.from({ length: 600 }, (_, i) => `${i ? " " : ""}wörd${i}✓😀`);
  const sofar = new Set(deltas.map((_, k) => deltas.slice(0, k + 1).join("")));
  const full = deltas.join("");
  const says = [];
  const task = new Task({
    model: { format: "chunks", request: piecewise([[...deltas, "\n<attempt_completion><result>ok</result></attempt_completion>"]]) },
    presentationIntervalMs: 0,
    say: (m) => {
      if (m.say === "text") says.push({ ts: m.ts, text: m.text, partial: m.partial });
      m.text = "changed by the say callback";
    },
    ask: (m) => (m.partial ? undefined : { response: "yesButtonClicked" }),
  });
  assert.equal((await task.start("go")).status, "completed");
  assert.ok(says.length > 30, `many partial updates (${says.length})`);
  assert.ok(says.every((s) => s.ts === says[0].ts), "one message");
  const partials = says.filter((s) => s.partial);
  assert.ok(partials.every((s) => sofar.has(s.text)), "each partial text is the text so far");
  assert.ok(partials.every((s, i) => i === 0 || s.text.length >= partials[i - 1].text.length));
  assert.deepEqual(says.at(-1), { ts: says[0].ts, text: full, partial: false });
  assert.equal(task.messages.find((m) => m.say === "text").text, full);
});

test("partial asks and says that do not only grow, one message after another, end as the task's messages say", async () => {
  // A tool's partial ask is JSON whose closing characters move as its parameter grows; a text
  // message follows another in the next round.
  const open = ["Ré", "ading ✓ now.\n<read_file><path>sr", "c/dé", "ep/😀", "/file.ts</pa", "th></read_file>"];
  const last = ["Dön", "e 😀 ", "and done.", "\n<attempt_completion><result>ok</result></attempt_completion>"];
  const seen = [];
  const task = new Task({
    model: { format: "chunks", request: piecewise([open, last]) },
    presentationIntervalMs: 0,
    tools: [{ name: "read_file", parameters: [{ name: "path", required: true }], execute: () => "contents" }],
    say: (m) => { seen.push(structuredClone(m)); m.text = "changed"; },
    ask: (m) => {
      seen.push(structuredClone(m));
      m.text = "changed";
      return m.partial ? undefined : { response: "yesButtonClicked" };
    },
  });
  assert.equal((await task.start("go")).status, "completed");
  const asks = seen.filter((m) => m.ask === "tool");
  assert.ok(asks.length > 2, "the tool's ask was updated while it streamed");
  for (const m of asks) assert.doesNotThrow(() => JSON.parse(m.text), m.text);
  assert.equal(JSON.parse(asks.at(-1).text).params.path, "src/déep/😀/file.ts");
  const lastOf = new Map(seen.map((m) => [m.ts, m]));
  assert.deepEqual([...lastOf.values()].sort((a, b) => a.ts - b.ts), [...task.messages].sort((a, b) => a.ts - b.ts));
});

test("each say and ask object is its transcript entry, keys in the same order, images and partial: false included", async () => {
  const image = "data:image/png;base64,iVBORw0KGgo=";
  const seen = [];
  const task = new Task({
    model: { format: "chunks", request: piecewise([["Lo", "oking.\n<attempt_completion><result>ok</result></attempt_completion>"]]) },
    presentationIntervalMs: 0,
    say: (m) => seen.push(JSON.stringify(m)),
    ask: (m) => { seen.push(JSON.stringify(m)); return m.partial ? undefined : { response: "yesButtonClicked" }; },
  });
  assert.equal((await task.start("look", [image])).status, "completed");
  const first = JSON.parse(seen[0]);
  assert.deepEqual(Object.keys(first), ["ts", "type", "say", "text", "images"]);
  assert.deepEqual(first.images, [image]);
  assert.ok(seen.some((m) => JSON.parse(m).partial === false), "a message that was partial says so when it ends");
  const lastOf = new Map(seen.map((m) => [JSON.parse(m).ts, m]));
  assert.deepEqual([...lastOf.values()].sort(), task.messages.map((m) => JSON.stringify(m)).sort());
});

const yes = (m) => (m.partial ? undefined : { response: "yesButtonClicked" });

test("tasks made with the same options each call their own functions; options that differ in a value or a function are read anew", async () => {
  const run = async (model, result) => {
    const says = [];
    const seen = [];
    const task = new Task({ model: { ...model, format: "chunks", request: scripted([`<attempt_completion><result>${result}</result></attempt_completion>`], seen) }, say: (m) => says.push(m.say), ask: yes });
    return { outcome: await task.start("go"), says, model: seen[0].model };
  };
  const [a, b] = await Promise.all([run({ id: "m1" }, "first"), run({ id: "m1" }, "second")]);
  assert.deepEqual([a.outcome, b.outcome], [{ status: "completed", result: "first" }, { status: "completed", result: "second" }]);
  assert.deepEqual(a.says, b.says, "each task's say got its own task's messages, once");
  assert.equal(a.says.filter((s) => s === "task").length, 1);
  const other = await run({ id: "m2", maxTokens: 77 }, "third");
  assert.equal(other.model.id, "m2");
  assert.equal(other.model.maxTokens, 77);
  assert.equal((await run({ id: "m1" }, "again")).model.maxTokens, a.model.maxTokens);
  // The same JSON with a function fewer: a plain object where the first task had its second function.
  const request = scripted(["<attempt_completion><result>ok</result></attempt_completion>"]);
  const fine = new Task({ model: { id: "m1", format: "chunks", request }, ask: yes, say: () => {} });
  assert.throws(() => new Task({ model: { id: "m1", format: "chunks", request }, ask: yes, say: { $fn: 2 } }),
    (e) => e.code === "CLEW_INVALID_OPTIONS" && /say/.test(e.message));
  assert.equal((await fine.start("go")).status, "completed");
  // Options whose config cannot work are refused every time, not only the first.
  const twice = () => new Task({ model: { id: "m1", format: "chunks", request }, tools: [{ name: "a", execute() {} }, { name: "a", execute() {} }] });
  for (let i = 0; i < 2; i++) assert.throws(twice, (e) => e.code === "CLEW_INVALID_OPTIONS" && /tools\[1\]\.name/.test(e.message));
});
