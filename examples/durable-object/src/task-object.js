// One agent task in one Durable Object.
//
// The task's whole state is in the object's storage (see store.js); memory only caches it.
// The object can be evicted at any moment (idle, a deploy, a crash) and anything that
// reaches it again (a request, its alarm) rebuilds the task from storage in the constructor,
// with its MCP servers connected again (mcp.js), and resumes it: a pending ask is asked
// again, a stream that was cut is retried, a retry delay waits what is left.
//
// What is stored, and when:
// - at every waiting point the task calls `persist` with what changed (the new history and
//   transcript entries, the snapshot's head): those keys are written, nothing else;
// - between waiting points the transcript changes too (a reply streams, and ends): the
//   object then stores the entries of `task.snapshot()` that changed, with its state, at
//   once, or at most once a second (CHECKPOINT_MS) while a reply streams, so an eviction
//   mid-stream keeps what had streamed;
// - an answer to an ask is stored before the client hears it was taken.
//
// Transcript events for clients (Server-Sent Events): each stored change of a transcript
// entry gets the next number of a sequence kept in the head (its revision), sent as the
// event's `id`. A client that reconnects with `Last-Event-ID: n` gets every entry whose
// revision is above n, each once, in transcript order, in its stored state. Between
// checkpoints, updates of entries already stored are also sent at once, without an `id`:
// previews, which a later event with an id always confirms or corrects. The runtime sends
// nothing before the writes it follows are on disk, so an id a client saw is always stored.

import { DurableObject } from "cloudflare:workers";
import { Task } from "clew";
import { Batch, fileKey, historyKey, messageKey, partsOf, readText, readTexts } from "./store.js";
import { closeMcpServers, connectMcpServers, mcpServerSettings } from "./mcp.js";

/** At most one checkpoint of a streaming reply per this many milliseconds. */
const CHECKPOINT_MS = 1000;
/** While the task works (a stream, a tool), the alarm is never further away than this (or `WATCHDOG_MS` in the environment). */
const WATCHDOG_MS = 30_000;
/** How long an answer waits for a just-restored task to ask again. */
const ASK_WAIT_MS = 10_000;
/** A comment line to every event client this often, so proxies keep the connection. */
const KEEPALIVE_MS = 20_000;

const ANSWERS = ["yesButtonClicked", "noButtonClicked", "messageResponse"];
const encoder = new TextEncoder();

const reply = (status, body) => ({ status, body });

/** An outcome as plain JSON. */
function plainOutcome(outcome) {
  if (!outcome) return null;
  if (outcome.status === "completed") return { status: "completed", result: outcome.result };
  const error = outcome.error ?? {};
  return { status: outcome.status, error: { code: error.code ?? "UNKNOWN", message: String(error.message ?? error) } };
}

/** Whether two answers say the same. */
function sameAnswer(a, b) {
  return a.response === b.response && (a.text ?? "") === (b.text ?? "") && JSON.stringify(a.images ?? []) === JSON.stringify(b.images ?? []);
}

/** One Server-Sent Event; `id` null for none. `data` is JSON text (it has no line breaks). */
function sseEvent(id, data, name) {
  return `${name ? `event: ${name}\n` : ""}${id === null ? "" : `id: ${id}\n`}data: ${data}\n\n`;
}

/**
 * A head as it is stored. NOTE: the example's first version stored the snapshot's head
 * members next to its own, at the top level; such a record (of an object deployed before)
 * is read as if its `snapshot` held everything but the example's own members, and the next
 * store writes it in the present form.
 */
function upgradeHead(record) {
  if ("snapshot" in record) return record;
  const { taskState, historyLength, messagesLength, seq, outcome, ...snapshot } = record;
  return { snapshot, taskState, historyLength, messagesLength, seq, outcome };
}

export class TaskObject extends DurableObject {
  constructor(ctx, env) {
    super(ctx, env);
    /** The Task, once started or restored. */
    this.task = null;
    /** Why the stored task cannot run (storage damaged, a tool gone), as `{ code, message }`. */
    this.broken = null;
    /** The stored head, parsed (`{ snapshot, taskState, historyLength, messagesLength, seq, outcome }`,
     *  `snapshot` the opaque head of `Task.snapshotParts`), and its part count. */
    this.head = null;
    this.headParts = 0;
    /** Whether a `start` record exists (the task was started). */
    this.started = false;
    /** Stored history entries: `{ json, parts }`; transcript entries: `{ json, rev, parts, ts }`. */
    this.history = [];
    this.messages = [];
    /** Transcript index of each stored ts. */
    this.indexOf = new Map();
    /** The last revision given out (the last event id). */
    this.seq = 0;
    /** The ask waiting for `POST /answer`: `{ ts, ask, text, resolve }`. */
    this.pendingAsk = null;
    this.askWaiters = [];
    /** An answer stored but maybe not yet part of the stored task: `{ ts, answer }`, its parts, whether the task took it. */
    this.storedAnswer = null;
    this.answerParts = 0;
    this.answerTaken = false;
    /** Event clients: `{ writer }`. */
    this.clients = new Set();
    this.keepalive = null;
    /** The transcript changed since the last store. */
    this.dirty = false;
    this.checkpointTimer = null;
    this.lastSave = 0;
    /** The alarm as set (ms), null for none, undefined for unknown. */
    this.alarmAt = undefined;
    /** Settles when the task has ended and its outcome is stored. */
    this.done = null;
    /** The connected MCP servers (a promise), once asked for. */
    this.mcp = null;
    ctx.blockConcurrencyWhile(() => this.load());
  }

  // ---- waking up -------------------------------------------------------------------------

  /** Reads the stored task, and resumes it if it had not ended. */
  async load() {
    const storage = this.ctx.storage;
    try {
      const [start, head, answer, alarm] = await Promise.all([
        storage.get("start"), readText(storage, "head"), readText(storage, "answer"), storage.getAlarm(),
      ]);
      this.alarmAt = alarm;
      this.started = start !== undefined;
      if (answer) {
        this.storedAnswer = JSON.parse(answer.text);
        this.answerParts = answer.parts;
      }
      if (head) {
        this.head = upgradeHead(JSON.parse(head.text));
        this.headParts = head.parts;
        this.seq = this.head.seq;
        const [history, messages] = await Promise.all([readTexts(storage, "h:"), readTexts(storage, "m:")]);
        for (let i = 0; i < this.head.historyLength; i++) {
          const entry = history.get(historyKey(i));
          if (!entry) throw new Error(`storage is damaged: ${historyKey(i)} is missing`);
          this.history.push({ json: entry.text, parts: entry.parts });
        }
        for (let i = 0; i < this.head.messagesLength; i++) {
          const entry = messages.get(messageKey(i));
          if (!entry) throw new Error(`storage is damaged: ${messageKey(i)} is missing`);
          const { rev, message } = JSON.parse(entry.text);
          this.messages.push({ json: JSON.stringify(message), rev, parts: entry.parts, ts: message.ts });
          this.indexOf.set(message.ts, i);
        }
      }
    } catch (error) {
      this.broken = { code: "STORAGE", message: String(error?.message ?? error) };
      console.error(`task ${this.ctx.id}: ${this.broken.message}`);
      return;
    }
    if (this.head?.outcome) return;
    if (this.head) {
      await this.resumeTask();
    } else if (this.started) {
      // NOTE: stopped before its first persist: nothing was sent or run yet, so start again.
      const start = await readText(storage, "start");
      await this.startTask(JSON.parse(start.text));
    }
  }

  /** The MCP servers of `MCP_SERVERS`, connected once (see mcp.js). */
  mcpServers() {
    this.mcp ??= (async () => connectMcpServers(mcpServerSettings(this.env.MCP_SERVERS)))();
    return this.mcp;
  }

  /** The task's options: the model from the environment, the workspace tools and MCP servers, the callbacks. */
  options(mcpServers) {
    const env = this.env;
    const retry = {};
    if (env.RETRY_MAX) retry.maxRetries = Number(env.RETRY_MAX);
    if (env.RETRY_BASE_DELAY_MS) retry.baseDelayMs = Number(env.RETRY_BASE_DELAY_MS);
    if (env.RETRY_MAX_DELAY_MS) retry.maxDelayMs = Number(env.RETRY_MAX_DELAY_MS);
    return {
      model: {
        format: env.MODEL_FORMAT || "anthropic",
        id: env.MODEL_ID || "claude-sonnet-4-5",
        apiKey: env.MODEL_API_KEY,
        ...(env.MODEL_URL ? { baseUrl: env.MODEL_URL } : {}),
      },
      tools: this.tools(),
      ...(mcpServers.length > 0 ? { mcpServers } : {}),
      // Runs read_file, and MCP tools that declare `readOnlyHint`, without asking.
      autoApprove: { readOnly: true },
      ...(Object.keys(retry).length > 0 ? { retry } : {}),
      say: (message) => this.onMessage(message),
      ask: (message) => this.onAsk(message),
      persist: (changes, { reason, wakeAt }) => {
        // When the task next needs its timer (a retry delay's end): the alarm's time.
        this.wakeAt = wakeAt;
        return this.onPersist(changes, reason);
      },
    };
  }

  /** A small workspace of files kept in the object's storage. */
  tools() {
    const storage = this.ctx.storage;
    return [
      {
        name: "read_file",
        description: "Read a file of the workspace.",
        readOnly: true,
        parameters: [{ name: "path", description: "The file's path.", required: true }],
        execute: async ({ path }) => (await readText(storage, fileKey(path)))?.text ?? `There is no file at ${path}.`,
      },
      {
        name: "write_file",
        description: "Create a file of the workspace, or replace its whole content.",
        // NOTE: writing the same content twice leaves what writing it once leaves, so a write
        // that was running when the object went away is simply done again on resume.
        idempotent: true,
        parameters: [
          { name: "path", description: "The file's path.", required: true },
          { name: "content", description: "The file's whole new content.", required: true },
        ],
        execute: async ({ path, content = "" }) => {
          const batch = new Batch();
          batch.text(fileKey(path), content, await partsOf(storage, fileKey(path)));
          await batch.commit(storage);
          return `Wrote ${path} (${content.length} characters).`;
        },
      },
    ];
  }

  async startTask({ text, images }) {
    try {
      this.task = new Task(this.options(await this.mcpServers()));
    } catch (error) {
      this.fail(error);
      return;
    }
    this.run(this.task.start(text, images ?? null));
  }

  async resumeTask() {
    try {
      const snapshot = Task.joinSnapshot({
        head: this.head.snapshot,
        history: { entries: this.history.map((entry) => JSON.parse(entry.json)) },
        messages: { entries: this.messages.map((entry) => JSON.parse(entry.json)) },
      });
      this.task = Task.restore(snapshot, this.options(await this.mcpServers()));
    } catch (error) {
      // NOTE: e.g. CLEW_SNAPSHOT_TOOL_MISSING after a deploy removed a tool: kept as it is.
      this.broken = { code: error.code ?? "RESTORE", message: error.message };
      console.error(`task ${this.ctx.id}: ${error.message}`);
      return;
    }
    this.run(this.task.resume());
  }

  run(outcome) {
    this.done = outcome.then(
      (result) => this.finished(result),
      (error) => this.finished({ status: "failed", error }),
    );
  }

  /** A task that could not even be created (its options): stored as failed. */
  fail(error) {
    const outcome = plainOutcome({ status: "failed", error });
    this.head = { taskState: "finished", outcome, historyLength: 0, messagesLength: 0, seq: this.seq };
    const batch = new Batch();
    this.headParts = batch.text("head", JSON.stringify(this.head), this.headParts);
    this.done = batch.commit(this.ctx.storage).then(() => this.endClients(outcome));
  }

  // ---- the task's callbacks ---------------------------------------------------------------

  /** Every say, and every ask (partial ones included): a new or updated transcript entry. */
  onMessage(message) {
    const json = JSON.stringify(message);
    const stored = this.messages[this.indexOf.get(message.ts)];
    if (stored?.json === json) return;
    this.dirty = true;
    // A preview: only of an entry already stored, so that no client ever sees an entry
    // that an eviction could make disappear.
    if (stored) this.broadcast(sseEvent(null, json));
    this.scheduleCheckpoint();
  }

  onAsk(message) {
    this.onMessage(message);
    if (message.partial) return undefined;
    if (this.storedAnswer?.ts === message.ts) {
      // Answered before the object went away, after the ask had been stored.
      this.answerTaken = true;
      return this.storedAnswer.answer;
    }
    return new Promise((resolve) => {
      this.pendingAsk = { ts: message.ts, ask: message.ask, text: message.text, resolve };
      this.wakeAskWaiters();
    });
  }

  onPersist(changes, reason) {
    const outcome = reason === "finished" ? plainOutcome(this.task.outcome) : undefined;
    return this.save(changes, this.task.state, outcome);
  }

  async finished(outcome) {
    const plain = plainOutcome(outcome);
    this.pendingAsk = null;
    this.wakeAskWaiters();
    clearTimeout(this.checkpointTimer);
    this.checkpointTimer = null;
    // The last persist may not have seen the outcome (an abort does not wait for it).
    const snapshot = this.task.snapshot();
    if (snapshot) await this.save(snapshot, "finished", plain);
    this.endClients(plain);
    this.mcp?.then(closeMcpServers, () => {});
    return plain;
  }

  // ---- storing ----------------------------------------------------------------------------

  /**
   * Stores a snapshot, or a persist's changes: only entries whose text differs from the
   * stored one are written, and the snapshot's head whole. Sends the transcript events of
   * what changed. Returns when the runtime took the writes.
   */
  save(snapshot, taskState, outcome) {
    const batch = new Batch();
    const parts = Task.snapshotParts(snapshot);
    const { from: historyFrom, entries: history } = parts.history;
    const { from: messagesFrom, entries: messages } = parts.messages;

    history.forEach((entry, k) => {
      const i = historyFrom + k;
      const json = JSON.stringify(entry);
      const old = this.history[i];
      if (old?.json === json) return;
      this.history[i] = { json, parts: batch.text(historyKey(i), json, old?.parts) };
    });
    const historyLength = historyFrom + history.length;
    for (let i = historyLength; i < this.history.length; i++) batch.drop(historyKey(i), this.history[i].parts);
    this.history.length = historyLength;

    const events = [];
    messages.forEach((message, k) => {
      const i = messagesFrom + k;
      const json = JSON.stringify(message);
      const old = this.messages[i];
      if (old?.json === json) return;
      const rev = ++this.seq;
      const parts = batch.text(messageKey(i), `{"rev":${rev},"message":${json}}`, old?.parts);
      if (old) this.indexOf.delete(old.ts);
      this.messages[i] = { json, rev, parts, ts: message.ts };
      this.indexOf.set(message.ts, i);
      events.push(sseEvent(rev, json));
    });
    const messagesLength = messagesFrom + messages.length;
    for (let i = messagesLength; i < this.messages.length; i++) {
      batch.drop(messageKey(i), this.messages[i].parts);
      this.indexOf.delete(this.messages[i].ts);
    }
    this.messages.length = messagesLength;

    this.head = {
      snapshot: parts.head,
      taskState,
      historyLength,
      messagesLength,
      seq: this.seq,
      outcome: outcome ?? this.head?.outcome ?? null,
    };
    this.headParts = batch.text("head", JSON.stringify(this.head), this.headParts);
    if (this.answerTaken) {
      batch.drop("answer", this.answerParts);
      this.storedAnswer = null;
      this.answerParts = 0;
      this.answerTaken = false;
    }
    const written = batch.commit(this.ctx.storage);
    this.dirty = false;
    this.lastSave = Date.now();
    // NOTE: the runtime holds these back until the writes above are on disk.
    for (const event of events) this.broadcast(event);
    this.syncAlarm(taskState);
    return written;
  }

  scheduleCheckpoint() {
    if (this.checkpointTimer || !this.task) return;
    // NOTE: only a reply that streams (or is presented) changes the transcript often, so
    // only then are checkpoints spaced out. Anything else is stored at once.
    const busy = this.task.state === "stream" || this.task.state === "presenting";
    const wait = busy ? Math.max(0, this.lastSave + CHECKPOINT_MS - Date.now()) : 0;
    this.checkpointTimer = setTimeout(() => {
      this.checkpointTimer = null;
      this.checkpoint();
    }, wait);
  }

  /** Stores what changed since the last store, when the task is between waiting points. */
  checkpoint() {
    if (!this.dirty || !this.task || this.head?.outcome || this.task.state === "finished") return;
    const snapshot = this.task.snapshot();
    if (!snapshot) {
      this.scheduleCheckpoint();
      return;
    }
    this.save(snapshot, this.task.state).catch((error) => console.error(`checkpoint: ${error}`));
  }

  // ---- the alarm --------------------------------------------------------------------------

  /**
   * Keeps an alarm wherever the task could go on without a client: at the end of a retry
   * delay, and a watchdog while it works (so that an eviction mid-stream is noticed). None
   * while it waits for an answer, or once it has ended.
   */
  syncAlarm(taskState) {
    const now = Date.now();
    // An alarm that is due is firing or about to: alarm() sets the next one.
    if (this.alarmAt != null && this.alarmAt <= now) return;
    const watchdog = Number(this.env.WATCHDOG_MS) || WATCHDOG_MS;
    let want = null;
    if (taskState === "retryDelay") {
      want = Math.max(this.wakeAt ?? now + 1000, now + 250);
    } else if (taskState !== "answer" && taskState !== "finished" && this.task && !this.broken) {
      want = this.alarmAt && this.alarmAt > now + watchdog / 2 ? this.alarmAt : now + watchdog;
    }
    if (want === this.alarmAt) return;
    this.alarmAt = want;
    const done = want === null ? this.ctx.storage.deleteAlarm() : this.ctx.storage.setAlarm(want);
    done.catch((error) => console.error(`alarm: ${error}`));
  }

  async alarm() {
    // Waking for the alarm already restored and resumed the task (the constructor): what is
    // left is to set the next alarm.
    this.alarmAt = undefined;
    if (this.task && !this.head?.outcome) this.syncAlarm(this.task.state);
  }

  // ---- requests (RPC from the Worker) ------------------------------------------------------

  exists() {
    return this.started || this.head !== null;
  }

  /** Starts the task: `{ text, images?, files? }` (files seed the workspace). */
  async start({ text, images, files }) {
    if (this.exists()) return reply(409, { error: "this task has already started" });
    const batch = new Batch();
    batch.text("start", JSON.stringify({ text, images }));
    for (const [path, content] of Object.entries(files ?? {})) batch.text(fileKey(path), content);
    await batch.commit(this.ctx.storage);
    this.started = true;
    await this.startTask({ text, images });
    return reply(201, { id: this.ctx.id.toString() });
  }

  status() {
    if (!this.exists()) return reply(404, { error: "no such task" });
    const stored = this.storedAsk();
    const pending = this.pendingAsk ?? (stored && this.storedAnswer?.ts !== stored.ts ? stored : null);
    return reply(200, {
      id: this.ctx.id.toString(),
      state: this.task?.state ?? this.head?.taskState ?? "starting",
      stored: this.head?.taskState ?? "starting",
      outcome: this.head?.outcome ?? null,
      ask: pending ? { ts: pending.ts, ask: pending.ask, text: pending.text } : null,
      lastEventId: this.seq,
      messages: this.messages.length,
      usage: this.task?.usage ?? null,
      error: this.broken,
    });
  }

  /** The stored transcript. */
  transcript() {
    if (!this.exists()) return reply(404, { error: "no such task" });
    return reply(200, this.messages.map((entry) => JSON.parse(entry.json)));
  }

  /** The ask the stored task waits on, if it waits on one. */
  storedAsk() {
    if (this.head?.taskState !== "answer") return null;
    for (let i = this.messages.length - 1; i >= 0; i--) {
      const message = JSON.parse(this.messages[i].json);
      if (message.type === "ask" && !message.partial) return message;
    }
    return null;
  }

  /** Answers the pending ask: `{ response, text?, images?, ts? }`. */
  async answer({ response, text, images, ts } = {}) {
    if (!this.exists()) return reply(404, { error: "no such task" });
    if (!ANSWERS.includes(response)) return reply(400, { error: `response must be one of ${ANSWERS.join(", ")}` });
    if (text !== undefined && typeof text !== "string") return reply(400, { error: "text must be a string" });
    if (images !== undefined && !(Array.isArray(images) && images.every((i) => typeof i === "string"))) {
      return reply(400, { error: "images must be an array of strings" });
    }
    if (this.broken) return reply(409, { error: this.broken.message, code: this.broken.code });
    if (this.head?.outcome) return reply(409, { error: "the task has ended", outcome: this.head.outcome });
    const stored = this.pendingAsk ? null : this.storedAsk();
    if (stored && this.storedAnswer?.ts === stored.ts) {
      // Answered already, and the task is taking it up: the same answer again is fine.
      const same = (ts === undefined || ts === stored.ts) && sameAnswer(this.storedAnswer.answer, { response, text, images });
      return same ? reply(200, { ts: stored.ts }) : reply(409, { error: "this ask was answered already", ts: stored.ts });
    }
    if (stored && this.task && (ts === undefined || ts === stored.ts)) {
      // Just restored: the task asks it again in a moment.
      await new Promise((resolve) => {
        this.askWaiters.push(resolve);
        setTimeout(resolve, ASK_WAIT_MS);
      });
    }
    const ask = this.pendingAsk;
    if (!ask) return reply(409, { error: "the task is not waiting for an answer", ts: stored?.ts });
    if (ts !== undefined && ts !== ask.ts) {
      return reply(409, { error: `the pending ask is ${ask.ts}, not ${ts}`, ts: ask.ts });
    }
    const answer = { response };
    if (text !== undefined) answer.text = text;
    if (images !== undefined) answer.images = images;
    this.pendingAsk = null;
    this.storedAnswer = { ts: ask.ts, answer };
    const batch = new Batch();
    this.answerParts = batch.text("answer", JSON.stringify(this.storedAnswer), this.answerParts);
    // NOTE: the reply below leaves only once this write is on disk; the task stores its next
    // state (and drops the stored answer) at its next waiting point.
    const written = batch.commit(this.ctx.storage);
    ask.resolve(answer);
    this.answerTaken = true;
    await written;
    return reply(200, { ts: ask.ts });
  }

  async abort(reason) {
    if (!this.exists()) return reply(404, { error: "no such task" });
    if (this.head?.outcome) return reply(200, { outcome: this.head.outcome });
    if (!this.task || !this.done) return reply(409, { error: this.broken?.message ?? "the task is not running" });
    this.task.abort(typeof reason === "string" ? reason : "aborted by the client");
    return reply(200, { outcome: await this.done });
  }

  wakeAskWaiters() {
    for (const wake of this.askWaiters.splice(0)) wake();
  }

  // ---- Server-Sent Events -----------------------------------------------------------------

  /** `GET /events`: the transcript as Server-Sent Events, from `Last-Event-ID` on. */
  async fetch(request) {
    if (!this.exists()) return Response.json({ error: "no such task" }, { status: 404 });
    const url = new URL(request.url);
    const last = request.headers.get("Last-Event-ID") ?? url.searchParams.get("lastEventId") ?? "";
    const ended = this.head?.outcome;
    // NOTE: a client that saw the end needs nothing more; 204 stops EventSource reconnecting.
    if (last === "end" && ended) return new Response(null, { status: 204 });
    let after = /^\d+$/.test(last) ? Number(last) : 0;
    if (after > this.seq) after = 0;

    const { readable, writable } = new TransformStream();
    const client = { writer: writable.getWriter() };
    this.write(client, "retry: 1000\n\n");
    const missed = this.messages.filter((entry) => entry.rev > after);
    missed.forEach((entry, k) => this.write(client, sseEvent(k === missed.length - 1 ? this.seq : null, entry.json)));
    if (ended) {
      this.write(client, sseEvent("end", JSON.stringify(ended), "end"));
      client.writer.close().catch(() => {});
    } else {
      this.clients.add(client);
      this.keepalive ??= setInterval(() => {
        this.broadcast(": keepalive\n\n");
        if (this.clients.size === 0) {
          clearInterval(this.keepalive);
          this.keepalive = null;
        }
      }, KEEPALIVE_MS);
    }
    return new Response(readable, {
      headers: { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-store" },
    });
  }

  write(client, text) {
    client.writer.write(encoder.encode(text)).catch(() => this.clients.delete(client));
  }

  broadcast(text) {
    for (const client of this.clients) this.write(client, text);
  }

  endClients(outcome) {
    const end = sseEvent("end", JSON.stringify(outcome), "end");
    for (const client of this.clients) {
      this.write(client, end);
      client.writer.close().catch(() => {});
    }
    this.clients.clear();
  }
}
