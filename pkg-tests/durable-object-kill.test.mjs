// The Durable Object example (examples/durable-object) killed the moment an approval reaches
// its client (issue 28): workerd, run by miniflare over the objects' SQLite storage on disk as
// in durable-object.test.mjs, gets SIGKILL from the client's event handler as the approval's
// event arrives over Server-Sent Events, and a new workerd goes on over the same storage.
//
// The model streams its reply slowly after the tool block (more text, then the reply's end,
// 300 ms apart), so an approval asked as soon as its block closed would reach the client
// seconds before the reply's end, and a kill there would leave a stored task whose reply was
// still streaming: restored, it was treated as cut off ("[Response interrupted by API
// Error]", a retry, the round's output tokens lost). A person's wait is asked only once the
// reply has ended and its round is stored, so after the kill the reply is whole.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { here } from "./support/package-dir.mjs";
import { EventClient, bundleExample, exampleInstance, until } from "./support/durable-object-helpers.mjs";
import { anthropicReply, startModelServer } from "./support/sse-server.mjs";

const linux = process.platform === "linux";
let workDir;
let bundleDir;

before(async () => {
  workDir = mkdtempSync(join(here, ".tmp-durable-object-kill-"));
  bundleDir = join(workDir, "bundle");
  await bundleExample(bundleDir);
});

after(() => {
  rmSync(workDir, { recursive: true, force: true });
});

/** The workerd processes this process started (Linux: from /proc). */
function workerdChildren() {
  const pids = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const match = /^\d+ \((.*)\) \S+ (\d+)/.exec(readFileSync(`/proc/${entry}/stat`, "utf8"));
      if (match && match[1] === "workerd" && Number(match[2]) === process.pid) pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

/** A Miniflare instance (one workerd process, `pid`) running the example over `persistDir`. */
async function instance(persistDir, modelUrl) {
  const others = new Set(workerdChildren());
  const worker = await exampleInstance(bundleDir, persistDir, modelUrl);
  const pids = workerdChildren().filter((pid) => !others.has(pid));
  assert.equal(pids.length, 1, `one new workerd process: ${pids}`);
  return { ...worker, pid: pids[0] };
}

/**
 * What the object's storage holds (its SQLite file, read while no workerd runs): the head and
 * the history entries (store.js's layout; values are V8-serialized). Read by a Node with
 * `node:sqlite` (this one, or pkg-tests' Node 24).
 */
function storedTask(persistDir) {
  const files = readdirSync(persistDir, { recursive: true }).filter((f) => f.endsWith(".sqlite") && !f.endsWith("metadata.sqlite"));
  assert.equal(files.length, 1, `one object's database: ${files}`);
  const script = `
    const { DatabaseSync } = require("node:sqlite");
    const { deserialize } = require("node:v8");
    const db = new DatabaseSync(process.argv[1], { readOnly: true });
    const values = new Map(db.prepare("SELECT key, value FROM _cf_KV").all().map((row) => [row.key, deserialize(Buffer.from(row.value))]));
    const text = (key) => {
      const value = values.get(key);
      if (typeof value === "string") return value;
      return Array.from({ length: value.parts }, (_, i) => values.get(key + "#" + String(i).padStart(4, "0"))).join("");
    };
    const head = JSON.parse(text("head"));
    const history = Array.from({ length: head.historyLength }, (_, i) => JSON.parse(text("h:" + String(i).padStart(8, "0"))));
    process.stdout.write(JSON.stringify({ head, history }));`;
  const node = spawnSync(process.execPath, ["-e", "require('node:sqlite')"]).status === 0 ? process.execPath : join(here, "node_modules", "node24", "bin", "node");
  return JSON.parse(execFileSync(node, ["-e", script, join(persistDir, files[0])], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }));
}

/** An Anthropic reply of `text` as pieces: everything up to the end of `upTo` at once, then each later event on its own. */
function slowAfter(text, upTo) {
  const events = anthropicReply(text).split(/(?<=\n\n)/);
  let streamed = "";
  const first = events.findIndex((event) => {
    const data = event.startsWith("event: content_block_delta") && JSON.parse(event.slice(event.indexOf("data: ") + 6));
    if (data) streamed += data.delta.text;
    return streamed.includes(upTo);
  });
  assert.ok(first > 0 && first < events.length - 4, "the reply goes on after the block");
  return [events.slice(0, first + 1).join(""), ...events.slice(first + 1)];
}

const INTERRUPTED = "[Response interrupted by API Error]";

test("killed the moment a write's approval reaches the client, the example comes back with the reply whole and the same approval", { skip: !linux && "finds workerd's pid in /proc" }, async () => {
  const reply = "Now the notes.\n<write_file>\n<path>notes.md</path>\n<content>\nhello from the task\n</content>\n</write_file>\nI will read them back.";
  const pieces = slowAfter(reply, "</write_file>");
  const delayMs = 300;
  const upstream = await startModelServer({
    "/v1/messages": [
      { pieces, delayMs },
      anthropicReply("Checking them.\n<read_file>\n<path>notes.md</path>\n</read_file>"),
      anthropicReply("Done.\n<attempt_completion>\n<result>notes.md written</result>\n</attempt_completion>"),
    ],
  });
  const persistDir = mkdtempSync(join(workDir, "storage-"));
  let worker = await instance(persistDir, upstream.url);
  const times = {};
  try {
    const created = await worker.call("POST", "/tasks", { text: "Write notes.md" });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const { id } = created.body;
    let approval;
    const killed = worker.pid;
    const client = new EventClient((message) => {
      if (approval || message.type !== "ask" || message.ask !== "tool" || message.partial) return;
      // The approval is here: the process that runs the object dies at once, whatever it was doing.
      process.kill(killed, "SIGKILL");
      times.killed = Date.now();
      approval = message;
      // (this connection ends with the process)
      client.controller.abort();
    });
    client.connect(worker.url, id);
    await until("the approval to reach the client", () => approval);
    await client.disconnect();
    await until("workerd to be gone", () => !workerdChildren().includes(killed), 5_000);
    await worker.dispose().catch(() => {});
    assert.equal(upstream.received.length, 1);
    assert.match(approval.text, /notes\.md/);

    // What the storage holds after the kill: the reply whole in the history, the task waiting for the approval.
    const onDisk = storedTask(persistDir);
    assert.equal(onDisk.head.taskState, "answer");
    assert.equal(onDisk.history.length, 2, "the reply's round was stored before its approval was asked");
    assert.deepEqual(onDisk.history[1], { role: "assistant", content: [{ type: "text", text: reply }] }, "the stored reply is whole");

    times.restarting = Date.now();
    worker = await instance(persistDir, upstream.url);
    times.restarted = Date.now();
    const status = await worker.status(id);
    assert.deepEqual(status.ask, { ts: approval.ts, ask: "tool", text: approval.text }, "the approval comes back, with its ts");
    assert.equal(status.stored, "answer");

    // The transcript: the reply's round whole, its usage complete (no `usageComplete: false`), no retry.
    const stored = (await worker.call("GET", `/tasks/${id}/messages`)).body;
    assert.doesNotMatch(JSON.stringify(stored), /Response interrupted|cut off/);
    assert.ok(!stored.some((m) => m.say === "error_retry"), "no retry");
    assert.deepEqual(stored.filter((m) => m.type === "ask").map((m) => [m.ts, m.partial ?? false]), [[approval.ts, false]]);
    const round = JSON.parse(stored.filter((m) => m.say === "api_req_started").at(-1).text);
    assert.equal(round.tokensOut, 30, `the reply's output tokens (from its last event) were counted: ${JSON.stringify(round)}`);
    assert.equal(round.usageComplete, undefined);
    assert.ok(stored.some((m) => m.say === "text" && m.text === "Now the notes."));

    // The restored task asks again with the same ts: an answer naming it is taken.
    client.connect(worker.url, id);
    const approved = await worker.call("POST", `/tasks/${id}/answer`, { response: "yesButtonClicked", ts: approval.ts });
    assert.deepEqual(approved, { status: 200, body: { ts: approval.ts } });
    times.approved = Date.now();
    const offered = await until("the completion", async () => {
      const s = await worker.status(id);
      return s.ask?.ask === "completion_result" && s;
    });
    assert.equal((await worker.call("POST", `/tasks/${id}/answer`, { response: "yesButtonClicked", ts: offered.ask.ts })).status, 200);
    await until("the end event", () => client.end);
    assert.deepEqual(client.end, { status: "completed", result: "notes.md written" });
    assert.equal(client.failure, null, String(client.failure?.stack));

    // The history the restored task sent on is the stored one: the whole reply, as the model wrote it.
    assert.equal(upstream.received.length, 3, "no request again, no retry");
    const sent = upstream.received[1].body.messages;
    assert.equal(sent.length, 3);
    const assistant = sent[1];
    assert.equal(assistant.role, "assistant");
    const texts = typeof assistant.content === "string" ? [assistant.content] : assistant.content.filter((b) => b.type === "text").map((b) => b.text);
    assert.deepEqual(texts, [reply], "the stored reply is whole");
    for (const request of upstream.received) assert.ok(!JSON.stringify(request.body.messages).includes(INTERRUPTED));
    assert.doesNotMatch(JSON.stringify(upstream.received.map((r) => r.body.messages)), /cut off/);
    const reread = upstream.received[2].body.messages.at(-1).content.find((b) => b.type === "text" && b.text.startsWith("[read_file for 'notes.md'] Result:"));
    assert.match(reread.text, /hello from the task/, "the write ran once approved, after the restart");

    const transcript = (await worker.call("GET", `/tasks/${id}/messages`)).body;
    assert.equal(transcript.filter((m) => m.ask === "tool").length, 1, "one approval");
    assert.deepEqual(client.view(), transcript, "the client ends with the stored transcript");

    // The approval reached the client only after the model had sent the reply's end.
    const replyEnded = upstream.received[0].endedAt;
    assert.ok(replyEnded !== undefined && approval && times.killed >= replyEnded, `the approval came ${replyEnded - times.killed} ms before the reply's end`);
    const figures = {
      replyStreamedMs: replyEnded - upstream.received[0].at,
      approvalAfterReplyEndMs: times.killed - replyEnded,
      killToRestartMs: times.restarting - times.killed,
      restartMs: times.restarted - times.restarting,
      approvedAfterRestartMs: times.approved - times.restarted,
    };
    console.log(`killed at the approval: ${JSON.stringify(figures)}`);
  } finally {
    await worker.dispose().catch(() => {});
    await upstream.close();
  }
});
