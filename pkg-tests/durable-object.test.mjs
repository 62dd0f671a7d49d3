// The Durable Object example (examples/durable-object) in workerd through miniflare, bundled
// as wrangler bundles it, with the objects' SQLite storage on disk and a scripted model on
// 127.0.0.1. Each test kills the object by disposing its Miniflare instance (workerd exits)
// and goes on in a new instance over the same storage: at a write's approval (the approval
// wakes it), mid-stream and during a retry delay (only the object's alarm wakes it), for
// an abort, and from a head stored by the example's first version.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { here, entryFor } from "./support/package-dir.mjs";
import { EventClient, bundleExample, exampleDir, exampleInstance, until } from "./support/durable-object-helpers.mjs";
import { assertNoPackageWarnings, esbuildWarnings } from "./support/bundler-warnings.mjs";
import { anthropicReply, startModelServer } from "./support/sse-server.mjs";
import { responsesReply, geminiReply } from "./support/providers-replies.mjs";

let workDir;
let bundleDir;

before(async () => {
  workDir = mkdtempSync(join(here, ".tmp-durable-object-"));
  bundleDir = join(workDir, "bundle");
  const result = await bundleExample(bundleDir);
  assertNoPackageWarnings("esbuild", esbuildWarnings(result));
  const inputs = Object.keys(result.metafile.inputs).map((p) => join(process.cwd(), p));
  assert.ok(inputs.includes(entryFor(["workerd", "worker", "browser"])), `the workerd entry is bundled: ${inputs}`);
});

/** A Miniflare instance (one workerd process) running the example over `persistDir`. */
const instance = (persistDir, modelUrl, vars) => exampleInstance(bundleDir, persistDir, modelUrl, vars);

after(() => {
  rmSync(workDir, { recursive: true, force: true });
});

/** The client saw the whole transcript: each entry, in order, in its final state; ids rose; a replay repeated nothing. */
function assertClientSaw(client, transcript) {
  assert.equal(client.failure, null, String(client.failure?.stack));
  assert.deepEqual(client.view(), transcript);
  const ids = client.events.filter((e) => e.id !== undefined && e.id !== "end").map((e) => Number(e.id));
  assert.ok(ids.every((id, i) => Number.isInteger(id) && (i === 0 || id > ids[i - 1])), `event ids rise: ${ids}`);
  for (let connection = 2; connection <= client.connections; connection++) {
    const replay = client.replay(connection).map((e) => e.data.ts);
    assert.ok(replay.length > 0, `connection ${connection} was sent what it missed`);
    assert.equal(new Set(replay).size, replay.length, `connection ${connection}: each missed entry once`);
  }
}

/** The text blocks of the last user message of a model request. */
const lastUserTexts = (request) => {
  const content = request.body.messages.at(-1).content;
  return typeof content === "string" ? [content] : content.filter((b) => b.type === "text").map((b) => b.text);
};

test("stopped at a write's approval, the object is gone; approved through a new workerd, the task completes", async () => {
  const big = "0123456789abcdef".repeat((3 * 1024 * 1024) / 16);
  const upstream = await startModelServer({
    "/v1/messages": [
      anthropicReply("Reading the data first.\n<read_file>\n<path>data.txt</path>\n</read_file>"),
      anthropicReply("Now the notes.\n<write_file>\n<path>notes.md</path>\n<content>\nhello from the task\n</content>\n</write_file>"),
      anthropicReply("Checking them.\n<read_file>\n<path>notes.md</path>\n</read_file>"),
      anthropicReply("Done.\n<attempt_completion>\n<result>notes.md written</result>\n</attempt_completion>"),
    ],
  });
  const persistDir = mkdtempSync(join(workDir, "storage-"));
  let worker = await instance(persistDir, upstream.url);
  try {
    const created = await worker.call("POST", "/tasks", { text: "Write notes.md", files: { "data.txt": big } });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const { id } = created.body;
    const client = new EventClient();
    client.connect(worker.url, id);

    const waiting = await until("the write's approval", async () => {
      const status = await worker.status(id);
      return status.ask?.ask === "tool" && status;
    });
    assert.equal(waiting.stored, "answer");
    assert.match(waiting.ask.text, /notes\.md/);
    await until("the client to see the ask", () => client.has((m) => m.ts === waiting.ask.ts && !m.partial));
    // The reply ends just after its tool call was shown: the object stores that too.
    await until("the end of the reply to be stored", async () => {
      const { body: messages } = await worker.call("GET", `/tasks/${id}/messages`);
      return messages.filter((m) => m.say === "api_req_started").length === 2 && !messages.some((m) => m.partial);
    });
    await client.disconnect();
    await worker.dispose();

    worker = await instance(persistDir, upstream.url);
    const wrongTs = await worker.call("POST", `/tasks/${id}/answer`, { response: "yesButtonClicked", ts: waiting.ask.ts - 1 });
    assert.equal(wrongTs.status, 409);
    assert.equal(wrongTs.body.ts, waiting.ask.ts);
    const approved = await worker.call("POST", `/tasks/${id}/answer`, { response: "yesButtonClicked", ts: waiting.ask.ts });
    assert.deepEqual(approved, { status: 200, body: { ts: waiting.ask.ts } });

    const offered = await until("the completion", async () => {
      const status = await worker.status(id);
      return status.ask?.ask === "completion_result" && status;
    });
    client.connect(worker.url, id);
    await until("the missed messages", () => client.replay(2).length > 0);
    const accepted = await worker.call("POST", `/tasks/${id}/answer`, { response: "yesButtonClicked", ts: offered.ask.ts });
    assert.equal(accepted.status, 200);
    await until("the end event", () => client.end);
    assert.deepEqual(client.end, { status: "completed", result: "notes.md written" });
    assert.deepEqual((await worker.status(id)).outcome, client.end);

    const transcript = (await worker.call("GET", `/tasks/${id}/messages`)).body;
    assertClientSaw(client, transcript);
    assert.equal(transcript.filter((m) => m.ask === "tool").length, 1, "one approval");
    assert.ok(!transcript.some((m) => m.say === "error_retry"), "the reply that was complete is not retried");

    assert.equal(upstream.received.length, 4);
    assert.equal(upstream.received[0].headers["x-api-key"], "test-key");
    assert.ok(lastUserTexts(upstream.received[1]).some((t) => t.startsWith("[read_file for 'data.txt'] Result:") && t.includes(big)));
    assert.ok(lastUserTexts(upstream.received[2]).some((t) => /^\[write_file for 'notes\.md'\] Result:\nWrote notes\.md/.test(t)));
    const reread = lastUserTexts(upstream.received[3]).find((t) => t.startsWith("[read_file for 'notes.md'] Result:"));
    assert.match(reread, /hello from the task/, "the file written after the restart is in the object's storage");
    // The 3 MiB tool result went to disk in parts and came back whole.
    assert.ok(JSON.stringify(upstream.received[3].body.messages).includes(big));
    assert.deepEqual(upstream.received[3].body.messages.slice(0, 3), upstream.received[1].body.messages);
    assert.doesNotMatch(JSON.stringify(upstream.received[3].body.messages), /interrupted|cut off/);

    // A client that saw the end is told there is nothing more.
    const again = await fetch(new URL(`/tasks/${id}/events`, worker.url), { headers: { "last-event-id": "end" } });
    assert.equal(again.status, 204);
  } finally {
    await worker.dispose();
    await upstream.close();
  }
});

test("the object is gone mid-stream: its watchdog alarm wakes it, and it keeps the partial reply, marks it interrupted and asks the model once more", async () => {
  const blocks = anthropicReply("Let me look at this carefully, one file at a time, before I change anything.").split("\n\n");
  const stall = blocks.slice(0, 10).join("\n\n") + "\n\n";
  const streamed = blocks
    .slice(0, 10)
    .filter((b) => b.startsWith("event: content_block_delta"))
    .map((b) => JSON.parse(b.slice(b.indexOf("data: ") + 6)).delta.text)
    .join("");
  assert.ok(streamed.length > 30);
  const upstream = await startModelServer({
    "/v1/messages": [{ stall }, anthropicReply("Done.\n<attempt_completion>\n<result>looked</result>\n</attempt_completion>")],
  });
  const persistDir = mkdtempSync(join(workDir, "storage-"));
  const vars = { WATCHDOG_MS: "1500" };
  let worker = await instance(persistDir, upstream.url, vars);
  try {
    const { body: { id } } = await worker.call("POST", "/tasks", { text: "Look at the files" });
    const client = new EventClient();
    client.connect(worker.url, id);
    const partial = await until("the streamed part to be stored", async () => {
      const { body: messages } = await worker.call("GET", `/tasks/${id}/messages`);
      return messages.find((m) => m.say === "text" && m.partial && m.text === streamed.trim());
    });
    await until("the client to see it", () => client.has((m) => m.ts === partial.ts && m.text === partial.text));
    assert.equal((await worker.status(id)).stored, "stream");
    await client.disconnect();
    await worker.dispose();
    assert.equal(upstream.received.length, 1);

    worker = await instance(persistDir, upstream.url, vars);
    await until("the watchdog alarm to resume the task", () => upstream.received.length === 2, 10_000);
    client.connect(worker.url, id);
    const offered = await until("the completion", async () => {
      const status = await worker.status(id);
      return status.ask?.ask === "completion_result" && status;
    });
    await worker.call("POST", `/tasks/${id}/answer`, { response: "yesButtonClicked", ts: offered.ask.ts });
    await until("the end event", () => client.end);
    assert.deepEqual(client.end, { status: "completed", result: "looked" });

    assert.equal(upstream.received.length, 2, "exactly one more request");
    const kept = upstream.received[1].body.messages[1];
    assert.equal(kept.role, "assistant");
    const keptText = JSON.stringify(kept.content);
    assert.ok(keptText.includes(JSON.stringify(streamed.trim()).slice(1, -1)), keptText);
    assert.match(keptText, /\[Response interrupted by API Error\]/);

    const transcript = (await worker.call("GET", `/tasks/${id}/messages`)).body;
    const text = transcript.find((m) => m.ts === partial.ts);
    assert.equal(text.text, streamed.trim());
    assert.notEqual(text.partial, true, "the cut reply's message was closed");
    assertClientSaw(client, transcript);
  } finally {
    await worker.dispose();
    await upstream.close();
  }
});

for (const [format, path, reply] of [
  ["openai-responses", "/responses", responsesReply],
  ["gemini", "/models/claude-test:streamGenerateContent?alt=sse", geminiReply],
]) {
  test(`MODEL_FORMAT=${format}: the object is gone at a write's approval; the request after it carries the reply's reasoning from storage`, async () => {
    const write = "Now the notes.\n<write_file>\n<path>notes.md</path>\n<content>\nhi\n</content>\n</write_file>";
    const done = "Done.\n<attempt_completion>\n<result>notes.md written</result>\n</attempt_completion>";
    const upstream = await startModelServer({ [path]: [reply({ round: 1, text: write }), reply({ round: 2, text: done })] });
    const persistDir = mkdtempSync(join(workDir, "storage-"));
    const vars = { MODEL_FORMAT: format };
    let worker = await instance(persistDir, upstream.url, vars);
    try {
      const { body: { id } } = await worker.call("POST", "/tasks", { text: "Write notes.md" });
      const waiting = await until("the write's approval", async () => {
        const status = await worker.status(id);
        return status.ask?.ask === "tool" && status.stored === "answer" && status;
      });
      await worker.dispose();

      worker = await instance(persistDir, upstream.url, vars);
      const approved = await worker.call("POST", `/tasks/${id}/answer`, { response: "yesButtonClicked", ts: waiting.ask.ts });
      assert.equal(approved.status, 200);
      await until("the second request", () => upstream.received.length === 2);
      const second = upstream.received[1].body;
      if (format === "gemini") {
        assert.deepEqual(second.contents[1].parts[0], { text: "Plan 1.", thought: true, thoughtSignature: "dGhvdWdodA-1" });
        assert.deepEqual(second.contents[1].parts.at(-1), { text: "", thoughtSignature: "ZW5k-1" });
        assert.equal(upstream.received[1].headers["x-goog-api-key"], "test-key");
      } else {
        assert.deepEqual(second.input[1], { type: "reasoning", summary: [{ type: "summary_text", text: "Plan 1." }], encrypted_content: "ZW5j-1" });
        assert.equal(second.input[2].phase, "commentary");
        assert.equal(second.store, false);
      }
      assert.match(JSON.stringify(second), /Wrote notes\.md|notes\.md/);
    } finally {
      await worker.dispose();
      await upstream.close();
    }
  });
}

test("the object is gone during a retry delay: its alarm wakes it, with no request, and the task goes on", async () => {
  const upstream = await startModelServer({
    "/v1/messages": [
      { status: 500, body: JSON.stringify({ type: "error", error: { type: "api_error", message: "overloaded for a moment" } }) },
      anthropicReply("Done.\n<attempt_completion>\n<result>after the retry</result>\n</attempt_completion>"),
    ],
  });
  const persistDir = mkdtempSync(join(workDir, "storage-"));
  const vars = { RETRY_BASE_DELAY_MS: "2000" };
  let worker = await instance(persistDir, upstream.url, vars);
  try {
    const startedAt = Date.now();
    const { body: { id } } = await worker.call("POST", "/tasks", { text: "Do it" });
    await until("the retry delay to be stored", async () => (await worker.status(id)).stored === "retryDelay");
    await worker.dispose();
    assert.equal(upstream.received.length, 1);

    worker = await instance(persistDir, upstream.url, vars);
    // Nothing is sent to the new instance until the model has been asked again.
    const retriedAt = await until("the alarm to resume the task", () => upstream.received.length === 2 && Date.now(), 10_000);
    assert.ok(retriedAt - startedAt >= 1900, `the delay was waited out (${retriedAt - startedAt} ms)`);

    const offered = await until("the completion", async () => {
      const status = await worker.status(id);
      return status.ask?.ask === "completion_result" && status;
    });
    const client = new EventClient();
    client.connect(worker.url, id);
    await worker.call("POST", `/tasks/${id}/answer`, { response: "yesButtonClicked", ts: offered.ask.ts });
    await until("the end event", () => client.end);
    assert.deepEqual(client.end, { status: "completed", result: "after the retry" });
    const transcript = (await worker.call("GET", `/tasks/${id}/messages`)).body;
    assert.ok(transcript.some((m) => m.say === "error_retry"));
    assertClientSaw(client, transcript);
    assert.equal(upstream.received.length, 2);
  } finally {
    await worker.dispose();
    await upstream.close();
  }
});

test("abort reaches a task whose object was gone; unknown ids and bad requests are refused", async () => {
  const upstream = await startModelServer({
    "/v1/messages": [anthropicReply("<write_file>\n<path>a.txt</path>\n<content>x</content>\n</write_file>")],
  });
  const persistDir = mkdtempSync(join(workDir, "storage-"));
  let worker = await instance(persistDir, upstream.url);
  try {
    assert.equal((await worker.call("POST", "/tasks", { text: "" })).status, 400);
    assert.equal((await worker.call("GET", "/tasks/not-an-id")).status, 404);
    const { body: { id } } = await worker.call("POST", "/tasks", { text: "Write a.txt" });
    await until("the approval", async () => (await worker.status(id)).ask?.ask === "tool");
    assert.equal((await worker.call("POST", `/tasks/${id}/answer`, { response: "maybe" })).status, 400);
    await worker.dispose();

    worker = await instance(persistDir, upstream.url);
    const aborted = await worker.call("POST", `/tasks/${id}/abort`, { reason: "changed my mind" });
    assert.equal(aborted.status, 200);
    assert.equal(aborted.body.outcome.status, "aborted");
    await worker.dispose();

    worker = await instance(persistDir, upstream.url);
    const status = await worker.status(id);
    assert.deepEqual(status.outcome, aborted.body.outcome);
    assert.equal((await worker.call("POST", `/tasks/${id}/answer`, { response: "yesButtonClicked" })).status, 409);
    const client = new EventClient();
    client.connect(worker.url, id);
    await until("the end event", () => client.end);
    assert.deepEqual(client.end, aborted.body.outcome);
    assertClientSaw(client, (await worker.call("GET", `/tasks/${id}/messages`)).body);
    assert.equal(upstream.received.length, 1);
  } finally {
    await worker.dispose();
    await upstream.close();
  }
});

/**
 * The example with one more RPC method on its object: `storeFirstVersionHead()` rewrites the
 * stored head as the example's first version stored it (the snapshot's head members at the
 * top level, beside the example's own).
 */
const FIRST_VERSION_HEAD = `
import worker, { TaskObject as Example } from ${JSON.stringify(join(exampleDir, "src", "worker.js"))};
import { Batch, readText } from ${JSON.stringify(join(exampleDir, "src", "store.js"))};

export class TaskObject extends Example {
  async storeFirstVersionHead() {
    const stored = await readText(this.ctx.storage, "head");
    const { snapshot, ...own } = JSON.parse(stored.text);
    const batch = new Batch();
    batch.text("head", JSON.stringify({ ...snapshot, ...own }), stored.parts);
    await batch.commit(this.ctx.storage);
    return Object.keys(snapshot);
  }
}

export default {
  fetch(request, env) {
    const [, test, id] = new URL(request.url).pathname.split("/");
    if (test !== "first-version-head") return worker.fetch(request, env);
    return env.TASKS.get(env.TASKS.idFromString(id)).storeFirstVersionHead().then((keys) => Response.json(keys));
  },
};
`;

test("a head stored by the example's first version (snapshot members at its top level) still restores", async () => {
  const rewriterDir = join(workDir, "first-version-head");
  const entry = join(workDir, "worker.mjs");
  writeFileSync(entry, FIRST_VERSION_HEAD);
  await bundleExample(rewriterDir, entry);
  const upstream = await startModelServer({
    "/v1/messages": [
      anthropicReply("<write_file>\n<path>a.txt</path>\n<content>x</content>\n</write_file>"),
      anthropicReply("Done.\n<attempt_completion>\n<result>a.txt written</result>\n</attempt_completion>"),
    ],
  });
  const persistDir = mkdtempSync(join(workDir, "storage-"));
  let worker = await exampleInstance(rewriterDir, persistDir, upstream.url);
  try {
    const { body: { id } } = await worker.call("POST", "/tasks", { text: "Write a.txt" });
    const waiting = await until("the approval", async () => {
      const status = await worker.status(id);
      return status.ask?.ask === "tool" && status.stored === "answer" && status;
    });
    const moved = await worker.call("GET", `/first-version-head/${id}`);
    assert.deepEqual(moved.body.filter((key) => ["version", "tools", "state"].includes(key)).sort(), ["state", "tools", "version"]);
    await worker.dispose();

    worker = await instance(persistDir, upstream.url);
    const status = await worker.status(id);
    assert.equal(status.error, null);
    assert.equal(status.ask.ts, waiting.ask.ts);
    assert.equal((await worker.call("POST", `/tasks/${id}/answer`, { response: "yesButtonClicked", ts: waiting.ask.ts })).status, 200);
    const offered = await until("the completion", async () => {
      const s = await worker.status(id);
      return s.ask?.ask === "completion_result" && s;
    });
    await worker.call("POST", `/tasks/${id}/answer`, { response: "yesButtonClicked", ts: offered.ask.ts });
    const ended = await until("the outcome", async () => (await worker.status(id)).outcome);
    assert.deepEqual(ended, { status: "completed", result: "a.txt written" });
    assert.equal(upstream.received.length, 2);
    assert.match(JSON.stringify(upstream.received[1].body.messages), /\[write_file for 'a\.txt'\] Result/);
  } finally {
    await worker.dispose();
    await upstream.close();
  }
});
