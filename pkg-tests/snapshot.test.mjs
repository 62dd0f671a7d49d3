// Durable tasks (issue 18) in Node: snapshots at every waiting point restored into a fresh
// module instance, options.persist and its changes, Task.restore's errors, Task.fromHistory.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Worker } from "node:worker_threads";
import { Task } from "clew";
import { anthropicReply, startModelServer } from "./support/sse-server.mjs";

const xml = (text) => anthropicReply(text);
const script = () => [
  xml("Looking first.\n<read_file><path>a</path></read_file>"),
  xml("<write_file><path>b</path><content>x</content></write_file>"),
  xml("<write_file><path>c</path><content>y</content></write_file>"),
  xml("<ask_followup_question><question>Which one?</question></ask_followup_question>"),
  xml("<check_file><path>z</path></check_file>"),
  { status: 500, body: JSON.stringify({ error: { type: "api_error", message: "flaky" } }) },
  xml("Done.\n<attempt_completion><result>tidied</result></attempt_completion>"),
];

/** Runs the worker once; resolves with its first message (a snapshot, or the final result). */
function life(data) {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL("./support/snapshot-worker.mjs", import.meta.url), { workerData: { script: script(), ...data } });
    worker.once("message", (message) => {
      worker.terminate().then(() => resolve(message));
    });
    worker.once("error", reject);
  });
}

/** A transcript as compared: each entry's kind and text (and `partial`), without its `ts`. */
const transcript = (messages) => messages.map(({ ts, ...rest }) => rest);

test("a task snapshotted at every waiting point and restored in a fresh module instance ends exactly as the uninterrupted run", async () => {
  const expected = await life({});
  assert.equal(expected.outcome.status, "completed");
  assert.ok(expected.messages.some((m) => m.say === "error_retry"), "the script has a retry");
  assert.ok(expected.messages.some((m) => m.ask === "followup"), "and a follow-up");
  assert.ok(expected.trail.length > 15, `only ${expected.trail.length} waiting points`);
  const again = await life({});
  assert.deepEqual(transcript(again.messages), transcript(expected.messages), "two uninterrupted runs show the same transcript");
  assert.deepEqual(again.trail, expected.trail, "and pass the same points");
  // NOTE: a point is named by its kind and how many of that kind came before it.
  const seen = new Set();
  let missed = 0;
  let waits = 0;
  for (const [i, what] of expected.trail.entries()) {
    const stopAt = { what, nth: expected.trail.slice(0, i + 1).filter((w) => w === what).length };
    const stopped = await life({ stopAt });
    if (!stopped.snapshot) {
      missed++;
      continue;
    }
    seen.add(stopped.what);
    const rest = await life({ snapshot: stopped.snapshot, served: stopped.served });
    const at = `restored at ${what} #${stopAt.nth} (state ${stopped.state})`;
    // Exactly the uninterrupted run: its history, transcript (kinds, texts, partial or not)
    // and usage. Only `ts` differs, from the clock.
    assert.deepEqual(rest.outcome, expected.outcome, at);
    assert.deepEqual(rest.history, expected.history, at);
    assert.deepEqual(transcript(rest.messages), transcript(expected.messages), at);
    assert.deepEqual(rest.usage, expected.usage, at);
    assert.doesNotMatch(JSON.stringify([rest.history, rest.messages]), /Response interrupted|cut off/, at);
    const ts = rest.messages.map((m) => m.ts);
    assert.ok(ts.every((t, i) => i === 0 || t > ts[i - 1]), `${at}: ts rises`);
    // The messages the snapshot held keep their ts.
    const held = JSON.parse(stopped.snapshot).messages;
    assert.deepEqual(rest.messages.slice(0, held.length).map((m) => m.ts), held.map((m) => m.ts), `${at}: the snapshot's messages keep their ts`);
    if (what.startsWith("ask ") || what === "persist ask") {
      // A wait for a person, snapshotted the moment it began: no reply streams any more.
      waits++;
      assert.equal(stopped.state, "answer", at);
      if (stopped.ask) assert.deepEqual(rest.asks[0], stopped.ask, `${at}: the same ask comes back, with its ts`);
    }
  }
  console.log(`${expected.trail.length} points, ${expected.trail.length - missed} snapshotted and resumed exactly, ${waits} of them waits for a person`);
  assert.equal(missed, 0, `${missed} of ${expected.trail.length} points were not reached again`);
  assert.ok(waits >= 10, `only ${waits} waits for a person`);
  for (const kind of ["ask tool", "ask followup", "ask completion_result", "tool read_file", "tool write_file", "tool check_file", "persist ask", "persist tool", "persist round", "persist retryDelay", "persist finished", "say error_retry"]) {
    assert.ok(seen.has(kind), `a snapshot was taken at ${kind}: ${[...seen]}`);
  }
});

const tool = (name, extra = {}) => ({
  name,
  parameters: [{ name: "path", required: true }, { name: "content" }],
  execute: async ({ path }) => `${name} ${path}: ok`,
  ...extra,
});
const optionsFor = (url, extra = {}) => ({
  model: { format: "anthropic", id: "claude-test", apiKey: "k", baseUrl: url },
  tools: [tool("read_file", { readOnly: true }), tool("write_file")],
  autoApprove: { readOnly: true },
  ask: (m) => (m.partial ? undefined : { response: "yesButtonClicked" }),
  ...extra,
});

test("persist is awaited before each wait starts, and its changes assemble into the snapshot", async () => {
  const server = await startModelServer({ "/v1/messages": script().filter((r) => typeof r === "string").slice(0, 2).concat([xml("<attempt_completion><result>ok</result></attempt_completion>")]) });
  try {
    const events = [];
    let stored;
    let historyItems = 0;
    let task;
    task = new Task(optionsFor(server.url, {
      tools: [tool("read_file", { readOnly: true }), tool("write_file", { execute: async () => { events.push("tool write_file"); return "wrote"; } })],
      ask: (m) => {
        if (m.partial) return undefined;
        events.push(`ask ${m.ask}`);
        return { response: "yesButtonClicked" };
      },
      persist: async (changes, { reason }) => {
        historyItems += changes.history.length;
        events.push(`persist ${reason}`);
        stored = Task.mergeSnapshot(stored, changes);
        assert.deepEqual(stored, { ...task.snapshot() }, `the assembled changes are the snapshot (${reason})`);
        assert.equal(typeof changes.historyFrom, "number");
        await new Promise((resolve) => setTimeout(resolve, 5));
        events.push(`stored ${reason}`);
      },
    }));
    const outcome = await task.start("go");
    assert.equal(outcome.status, "completed");
    for (const [i, event] of events.entries()) {
      if (event.startsWith("ask ") || event.startsWith("tool ")) {
        assert.match(events[i - 1], /^stored /, `${event} comes after a stored snapshot: ${events.join(", ")}`);
      }
    }
    assert.equal(events.at(-1), "stored finished");
    assert.ok(events.includes("persist round") && events.includes("persist ask"), events.join(", "));
    assert.deepEqual(stored, task.snapshot(), "the last persist is the final snapshot");
    assert.equal(historyItems, task.history.length, "each history entry is handed to persist once");
  } finally {
    await server.close();
  }
});

/** Whether `value` and everything inside it is frozen. */
const deeplyFrozen = (value) => typeof value !== "object" || value === null || (Object.isFrozen(value) && Object.values(value).every(deeplyFrozen));

test("with model.request, the history entries persist gets are frozen, and the requests are made of them, each a copy", async () => {
  const replies = [xml("<read_file><path>a</path></read_file>"), xml("<read_file><path>b</path></read_file>"), xml("<attempt_completion><result>ok</result></attempt_completion>")];
  const requests = [];
  let stored;
  const persisted = [];
  const task = new Task({
    model: {
      format: "anthropic",
      request: (request) => {
        requests.push(structuredClone(request));
        // A request that changes its messages changes neither the task nor the next request.
        request.messages[0].role = "changed";
        return new Response(replies[requests.length - 1]);
      },
    },
    tools: [tool("read_file", { readOnly: true })],
    autoApprove: { readOnly: true },
    ask: (m) => (m.partial ? undefined : { response: "yesButtonClicked" }),
    persist: (changes) => {
      persisted.push(...changes.history);
      stored = Task.mergeSnapshot(stored, changes);
    },
  });
  assert.equal((await task.start("go")).status, "completed");
  assert.equal(requests.length, 3);
  assert.deepEqual(persisted, task.history, "each history entry reached persist once");
  for (const entry of persisted) {
    assert.ok(deeplyFrozen(entry), "the entries are frozen, all the way down");
    assert.throws(() => { "use strict"; entry.content.push({ type: "text", text: "x" }); }, TypeError);
  }
  for (const [i, request] of requests.entries()) {
    assert.equal(request.messages.length, 1 + 2 * i);
    // Every assistant entry of a request is the history's (the user entries may carry more).
    for (const [j, message] of request.messages.entries()) {
      if (message.role === "assistant") assert.deepEqual(message, task.history[j], `request ${i}, message ${j}`);
    }
    assert.equal(request.messages[0].role, "user", "each request is a copy");
  }
  assert.deepEqual(stored, task.snapshot(), "the stored changes are the snapshot");
});

test("a history entry with arrays inside its blocks reaches persist frozen all the way down, and the requests still get their own copies", async () => {
  const input = { path: "a", lines: [[1, 2], [5, 9]] };
  const replies = [
    anthropicReply("Reading.", { id: "toolu_1", name: "read_file", input }),
    anthropicReply("", { id: "toolu_2", name: "attempt_completion", input: { result: "ok" } }),
  ];
  const requests = [];
  const persisted = [];
  const task = new Task({
    model: {
      format: "anthropic",
      request: (request) => {
        requests.push(structuredClone(request));
        // Changing an array deep inside the request changes neither the task nor the next one.
        const call = request.messages[1]?.content.find((b) => b.type === "tool_use");
        if (call) call.input.lines[0].push(3);
        return new Response(replies[requests.length - 1]);
      },
    },
    tools: [tool("read_file", { readOnly: true })],
    toolCalling: "native",
    autoApprove: { readOnly: true },
    ask: (m) => (m.partial ? undefined : { response: "yesButtonClicked" }),
    persist: (changes) => { persisted.push(...changes.history); },
  });
  assert.equal((await task.start("go")).status, "completed");
  assert.ok(persisted.every(deeplyFrozen));
  assert.deepEqual(persisted[1].content.find((b) => b.type === "tool_use").input, input, "the stored entry is as the model sent it");
  assert.equal(requests.length, 2);
  assert.deepEqual(requests[1].messages.slice(0, 2), task.history.slice(0, 2), "the request holds the history as it is");
});

test("a persist that rejects ends the task failed, before the wait starts", async () => {
  const server = await startModelServer({ "/v1/messages": [xml("<write_file><path>b</path></write_file>")] });
  try {
    let asked = false;
    const task = new Task(optionsFor(server.url, {
      ask: () => { asked = true; return { response: "yesButtonClicked" }; },
      persist: async (_, { reason }) => { if (reason === "ask") throw new Error("disk full"); },
    }));
    const outcome = await task.start("go");
    assert.equal(outcome.status, "failed");
    assert.equal(outcome.error.code, "CLEW_PERSIST_FAILED");
    assert.match(outcome.error.message, /disk full/);
    assert.equal(asked, false, "the ask never went out");
  } finally {
    await server.close();
  }
});

test("a persist that fails every time ends the task failed, and one that fails at the end leaves its outcome; neither is called again and again", async () => {
  const completion = xml("<attempt_completion><result>done</result></attempt_completion>");
  for (const failing of ["finished", "every"]) {
    for (const [how, fail] of [["rejects", async () => { throw new Error("disk full"); }], ["throws", () => { throw new Error("disk full"); }]]) {
      const server = await startModelServer({ "/v1/messages": [completion] });
      try {
        const reasons = [];
        const task = new Task(optionsFor(server.url, {
          ask: (m) => (m.partial ? undefined : { response: "yesButtonClicked" }),
          persist: (_, { reason }) => {
            reasons.push(reason);
            if (reasons.length > 50) throw new Error("called again and again");
            return failing === "every" || reason === "finished" ? fail() : undefined;
          },
        }));
        const outcome = await task.start("go");
        assert.equal(reasons.filter((r) => r === "finished").length, 1, `${failing} ${how}: ${reasons}`);
        if (failing === "finished") {
          assert.equal(outcome.status, "completed", "the task had ended: its outcome stands");
          continue;
        }
        assert.equal(outcome.status, "failed", `${failing} ${how}`);
        assert.equal(outcome.error.code, "CLEW_PERSIST_FAILED");
        assert.match(outcome.error.message, /disk full/);
        assert.equal(task.outcome.status, "failed");
      } finally {
        await server.close();
      }
    }
  }
});

test("abort while a persist is pending ends the task at once, and nothing waits on it", async () => {
  const server = await startModelServer({ "/v1/messages": [xml("<write_file><path>b</path></write_file>")] });
  try {
    let asked = false;
    let release;
    const task = new Task(optionsFor(server.url, {
      ask: () => { asked = true; },
      persist: (_, { reason }) => (reason === "ask" ? new Promise((resolve) => { release = resolve; }) : undefined),
    }));
    const started = task.start("go");
    while (!release) await new Promise((resolve) => setTimeout(resolve, 5));
    task.abort("stop");
    const outcome = await started;
    release();
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(outcome.status, "aborted");
    assert.equal(asked, false);
  } finally {
    await server.close();
  }
});

test("a tool that may have written, running at snapshot time, gets an error result instead of running twice", async () => {
  const server = await startModelServer({ "/v1/messages": [xml("<write_file><path>b</path></write_file>"), xml("<attempt_completion><result>ok</result></attempt_completion>")] });
  try {
    let snapshot;
    const first = new Task(optionsFor(server.url, {
      tools: [tool("read_file", { readOnly: true }), tool("write_file", { execute: () => { snapshot = JSON.stringify(first.snapshot()); return new Promise(() => {}); } })],
    }));
    first.start("go");
    while (!snapshot) await new Promise((resolve) => setTimeout(resolve, 5));
    first.abort();
    let ran = 0;
    const task = Task.restore(snapshot, optionsFor(server.url, {
      tools: [tool("read_file", { readOnly: true }), tool("write_file", { execute: () => { ran++; return "again"; } })],
    }));
    assert.equal(task.state, "tool");
    const outcome = await task.resume();
    assert.equal(outcome.status, "completed");
    assert.equal(ran, 0);
    const result = JSON.stringify(server.received.at(-1).body.messages.at(-1));
    assert.match(result, /whether it finished, and what it changed, is unknown/);
    await assert.rejects(task.resume(), { name: "TypeError", code: "CLEW_NOT_RESTORED" });
    await assert.rejects(task.start("again"), { code: "CLEW_TASK_STARTED" });
  } finally {
    await server.close();
  }
});

test("a finished task restored resolves with its outcome at once", async () => {
  const server = await startModelServer({ "/v1/messages": [xml("<attempt_completion><result>ok</result></attempt_completion>")] });
  try {
    const task = new Task(optionsFor(server.url));
    await task.start("go");
    const again = Task.restore(task.snapshot(), optionsFor(server.url));
    assert.deepEqual(await again.resume(), { status: "completed", result: "ok" });
    assert.equal(server.received.length, 1);
  } finally {
    await server.close();
  }
});

test("Task.restore names what is wrong with a TypeError code, whatever it is given", async () => {
  const server = await startModelServer({ "/v1/messages": [xml("<write_file><path>b</path></write_file>")] });
  try {
    let snapshot;
    const first = new Task(optionsFor(server.url, { ask: (m) => { if (!m.partial) snapshot = first.snapshot(); return new Promise(() => {}); } }));
    first.start("go");
    while (!snapshot) await new Promise((resolve) => setTimeout(resolve, 5));
    first.abort();
    const options = optionsFor(server.url);
    const code = (value, opts = options) => {
      try {
        Task.restore(value, opts);
        return "ok";
      } catch (error) {
        assert.ok(error instanceof TypeError, String(error));
        assert.ok(error.message.length > 10);
        return error.code;
      }
    };
    assert.equal(code(snapshot), "ok");
    assert.equal(code(JSON.stringify(snapshot)), "ok");
    assert.equal(code({ ...snapshot, version: 7 }), "CLEW_SNAPSHOT_VERSION");
    assert.equal(code(snapshot, { ...options, tools: [tool("read_file")] }), "CLEW_SNAPSHOT_TOOL_MISSING");
    for (const bad of [undefined, null, 3, "", "{", "[]", {}, { version: snapshot.version }, { ...snapshot, history: 5 }, { ...snapshot, state: [] }, { ...snapshot, state: {} }]) {
      assert.equal(code(bad), "CLEW_INVALID_SNAPSHOT", JSON.stringify(bad));
    }
    assert.equal(code(snapshot, { model: 5 }), "CLEW_INVALID_OPTIONS");
    // Every member replaced by values of other types, and every prefix of the text: an error
    // or a task, never a trap (the instance keeps working after all of them).
    const text = JSON.stringify(snapshot);
    const codes = new Set();
    for (let end = 0; end < text.length; end += 7) codes.add(code(text.slice(0, end)));
    const replacements = [0, -1, 1e300, "x", "", null, true, [], {}, 2 ** 53];
    const paths = [];
    const walk = (value, path) => {
      paths.push(path);
      if (value && typeof value === "object") for (const key of Object.keys(value)) walk(value[key], [...path, key]);
    };
    walk(snapshot, []);
    for (const path of paths.slice(1)) {
      for (const replacement of replacements) {
        const copy = structuredClone(snapshot);
        let at = copy;
        for (const key of path.slice(0, -1)) at = at[key];
        at[path.at(-1)] = replacement;
        codes.add(code(copy));
      }
    }
    assert.deepEqual([...codes].filter((c) => !["ok", "CLEW_INVALID_SNAPSHOT", "CLEW_SNAPSHOT_VERSION", "CLEW_SNAPSHOT_TOOL_MISSING"].includes(c)), []);
    const task = new Task(optionsFor(server.url));
    assert.equal(task.state, "idle", "the instance still works");
  } finally {
    await server.close();
  }
});

test("Task.fromHistory resumes a conversation saved elsewhere: resume_task, then the notice", async () => {
  const server = await startModelServer({ "/v1/messages": [xml("<attempt_completion><result>resumed</result></attempt_completion>")] });
  try {
    const hour = 3_600_000;
    const saved = {
      history: [
        { role: "user", content: [{ type: "text", text: "<task>\nfix it\n</task>" }] },
        { role: "assistant", content: "<read_file><path>a</path></read_file>" },
        { role: "user", content: [{ type: "text", text: "[read_file for 'a'] Result:\nold" }] },
      ],
      messages: [
        { ts: Date.now() - 3 * hour, type: "say", say: "task", text: "fix it" },
        { ts: Date.now() - 3 * hour + 1, type: "say", say: "api_req_started", text: JSON.stringify({ tokensIn: 5, tokensOut: 2, cost: 0.01 }) },
        { ts: Date.now() - 3 * hour + 2, type: "say", say: "checkpoint_created", text: "" },
        { ts: Date.now() - 3 * hour + 3, type: "say", say: "command", text: "a kind clew does not emit" },
      ],
    };
    const asks = [];
    const task = Task.fromHistory(saved, optionsFor(server.url, {
      ask: (m) => {
        if (m.partial) return undefined;
        asks.push(m.ask);
        return m.ask === "resume_task" ? { response: "messageResponse", text: "go on" } : { response: "yesButtonClicked" };
      },
    }));
    assert.equal(task.usage.requests, 1);
    const outcome = await task.resume();
    assert.deepEqual(outcome, { status: "completed", result: "resumed" });
    assert.deepEqual(asks, ["resume_task", "completion_result"]);
    const sent = server.received[0].body.messages;
    assert.equal(sent.length, 3, "the trailing user message is merged, not repeated");
    const texts = sent.at(-1).content.map((b) => b.text);
    assert.equal(texts[0], "[read_file for 'a'] Result:\nold");
    assert.match(texts[1], /^\[Task resumed\].*3 hours ago/s);
    assert.match(texts[1], /<user_message>\ngo on\n<\/user_message>/);
    assert.equal(task.messages[3].say, "command", "kinds clew does not emit are kept");
    assert.throws(() => Task.fromHistory({ history: [] }, optionsFor(server.url)), { code: "CLEW_INVALID_SNAPSHOT" });
  } finally {
    await server.close();
  }
});

test("every entry's Task has the durable-task API (the browser entry wraps the wasm class)", async () => {
  const { entryFor } = await import("./support/package-dir.mjs");
  const { pathToFileURL } = await import("node:url");
  const browser = await import(pathToFileURL(entryFor(["browser"])).href);
  browser.ready.catch(() => {});
  for (const name of ["restore", "fromHistory", "mergeSnapshot", "snapshotParts", "joinSnapshot"]) {
    assert.equal(typeof Task[name], "function", `node entry: Task.${name}`);
    assert.equal(typeof browser.Task[name], "function", `browser entry: Task.${name}`);
  }
  for (const name of ["snapshot", "resume", "start", "abort"]) {
    assert.equal(typeof Task.prototype[name], "function", `node entry: task.${name}`);
    assert.equal(typeof browser.Task.prototype[name], "function", `browser entry: task.${name}`);
  }
});

test("a task stored entry by entry through Task.snapshotParts joins into its snapshot at every persist, and restores", async () => {
  const server = await startModelServer({ "/v1/messages": script().filter((r) => typeof r === "string").slice(0, 2).concat([xml("<attempt_completion><result>ok</result></attempt_completion>")]) });
  try {
    // The application's store: the head whole, one entry per index; it names no member of the head.
    const store = { head: null, history: [], messages: [] };
    let persists = 0;
    let merged;
    const options = optionsFor(server.url, {
      tools: [tool("read_file", { readOnly: true }), tool("write_file")],
      ask: (m) => (m.partial ? undefined : { response: "yesButtonClicked" }),
      persist: (changes) => {
        merged = Task.mergeSnapshot(merged, changes);
        const parts = Task.snapshotParts(changes);
        assert.equal(parts.history.entries, changes.history, "the entries are the task's own objects");
        for (const list of ["history", "messages"]) {
          const { from, entries } = parts[list];
          store[list].splice(from, Infinity, ...entries);
        }
        store.head = JSON.parse(JSON.stringify(parts.head));
        const joined = Task.joinSnapshot({ head: store.head, history: { from: 0, entries: store.history }, messages: { from: 0, entries: store.messages } });
        assert.deepEqual(joined, merged, "the stored parts join into the snapshot the core's merge makes");
        assert.deepEqual(Task.mergeSnapshot(undefined, Task.joinSnapshot(Task.snapshotParts(joined))), joined);
        persists++;
      },
    });
    const task = new Task(options);
    assert.equal((await task.start("go")).status, "completed");
    assert.ok(persists > 3, `${persists} persists`);
    // Every member but the two lists is the head, whatever the core adds to it.
    const snapshot = task.snapshot();
    const { head } = Task.snapshotParts(snapshot);
    assert.deepEqual(Object.keys(head).sort(), Object.keys(snapshot).filter((k) => k !== "history" && k !== "messages").sort());
    const restored = Task.restore(Task.joinSnapshot({ head: store.head, history: { entries: store.history }, messages: { entries: store.messages } }), options);
    assert.equal((await restored.resume()).status, "completed");
  } finally {
    await server.close();
  }
});

test("Task.snapshotParts and Task.joinSnapshot: changes with indexes round-trip, and what is not a snapshot's parts is a TypeError with a code", () => {
  const changes = { version: 3, tools: ["t"], mcp: { servers: [] }, historyFrom: 2, messagesFrom: 0, history: [{ role: "user", content: "c" }], messages: [], state: [1], later: "kept" };
  const parts = Task.snapshotParts(changes);
  assert.deepEqual(parts, {
    head: { version: 3, tools: ["t"], mcp: { servers: [] }, state: [1], later: "kept" },
    history: { from: 2, entries: changes.history },
    messages: { from: 0, entries: [] },
  });
  const { messagesFrom, ...back } = changes;
  assert.deepEqual(Task.joinSnapshot(parts), back, "the changes again (an index of 0 left out)");
  assert.equal(changes.historyFrom, 2, "the argument is not changed");
  assert.deepEqual(Task.snapshotParts({ version: 3 }).history, { from: 0, entries: [] });
  for (const bad of [undefined, null, 3, "text", { version: 3, history: {} }, { historyFrom: -1 }, { messagesFrom: 1.5 }]) {
    assert.throws(() => Task.snapshotParts(bad), { name: "TypeError", code: "CLEW_INVALID_SNAPSHOT" }, JSON.stringify(bad));
  }
  for (const bad of [undefined, {}, { head: 1 }, { head: {}, history: [] }, { head: {}, messages: { from: "1", entries: [] } }]) {
    assert.throws(() => Task.joinSnapshot(bad), { name: "TypeError", code: "CLEW_INVALID_SNAPSHOT" }, JSON.stringify(bad));
  }
});

test("Task.mergeSnapshot is the core's merge: objects or JSON text in, and changes past the stored entries refused", () => {
  const stored = { version: 3, tools: [], history: [{ role: "user", content: "a" }], messages: [{ ts: 1, type: "say", say: "task", text: "a" }], state: [] };
  const changes = { version: 3, tools: ["t"], historyFrom: 1, messagesFrom: 1, history: [{ role: "assistant", content: "b" }], messages: [{ ts: 2, type: "say", say: "text", text: "b" }], state: [1] };
  const merged = Task.mergeSnapshot(stored, changes);
  assert.deepEqual(merged, { version: 3, tools: ["t"], history: [...stored.history, ...changes.history], messages: [...stored.messages, ...changes.messages], state: [1] });
  assert.deepEqual(Task.mergeSnapshot(JSON.stringify(stored), JSON.stringify(changes)), merged, "JSON text works the same");
  assert.equal(stored.history.length, 1, "neither argument is changed");
  assert.throws(() => Task.mergeSnapshot({ ...stored, history: [] }, changes), (error) => {
    assert.equal(error.code, "CLEW_INVALID_SNAPSHOT");
    assert.match(error.message, /the changes' history begins past the end of the stored history/);
    return error instanceof TypeError;
  });
  assert.throws(() => Task.mergeSnapshot(undefined, "not json"), { code: "CLEW_INVALID_SNAPSHOT" });
});
