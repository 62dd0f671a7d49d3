// clew/cassette: a whole task on tape. `new Task({ ...options, cassette: { mode: "record" } })`
// records every input the task gets (model responses read by read, tool results, answers,
// MCP results, its timer) with their times on the task's clock; `task.cassette()` gives the
// tape, redacted. `cassette: { mode: "replay", data }` answers the task from the tape on a
// virtual clock: the same transcript and history, byte for byte, in a few milliseconds, and
// a typed error that ends the task where it drifts. The main entry never imports this module.
import { Task as BaseTask, ClewTaskError, buildRequest } from "clew";
import { TapeClock, RecordingSequencer, ReplayingSequencer } from "./cassette-clock.js";
import { FORMAT, VERSION, tapeError, rethrow, unreadResponse, readTape } from "./cassette-format.js";
import { readOf, concat, BodyReads, bodyPool } from "./cassette-bytes.js";
import { PLACEHOLDER, redactTape } from "./cassette-redact.js";
import { firstDifference, RequestMatcher } from "./cassette-match.js";
import { tapeFromSse } from "./cassette-import.js";

export { tapeFromSse as fromSse };
export { tapeModel } from "./cassette-model.js";

/** The version of clew that writes the tapes (set by the build). */
const CLEW_VERSION = "__CLEW_VERSION__";

const MODES = ["record", "replay", "auto"];

/**
 * The agent task, with `options.cassette`: everything `clew`'s `Task` does, plus recording
 * and replaying (`cassette()` gives the tape).
 */
export class Task extends BaseTask {
  #tape;

  constructor(options) {
    const cassette = options && typeof options === "object" ? options.cassette : undefined;
    if (cassette === undefined) {
      super(options);
      return;
    }
    const tape = makeTape(options, cassette);
    super(tape.options);
    this.#tape = tape;
    tape.task = this;
  }

  async start(text, images) {
    const outcome = await super.start(text, images);
    return this.#tape ? this.#tape.finished(outcome) : outcome;
  }

  get outcome() {
    const outcome = super.outcome;
    return this.#tape && outcome ? this.#tape.finished(outcome) : outcome;
  }

  /**
   * The tape: when recording, what happened so far, redacted (a promise: redaction computes
   * the requests' digests); when replaying, the tape being replayed.
   */
  cassette() {
    if (!this.#tape) throw tapeError("CLEW_INVALID_ARGUMENT", "this task has no cassette option");
    return this.#tape.document();
  }
}

function makeTape(options, cassette) {
  if (!cassette || typeof cassette !== "object") throw tapeError("CLEW_INVALID_OPTIONS", "options.cassette must be an object");
  const mode = cassette.mode ?? "auto";
  if (!MODES.includes(mode)) throw tapeError("CLEW_INVALID_OPTIONS", `options.cassette.mode must be one of ${MODES.join(", ")}`);
  if (mode === "replay" && cassette.data == null) throw tapeError("CLEW_INVALID_OPTIONS", "options.cassette.data is required to replay");
  for (const key of ["tools", "asks"]) {
    if (cassette[key] !== undefined && cassette[key] !== "tape" && cassette[key] !== "live") {
      throw tapeError("CLEW_INVALID_OPTIONS", `options.cassette.${key} must be "tape" or "live"`);
    }
  }
  for (const key of ["redact", "ignore"]) {
    if (cassette[key] !== undefined && !(Array.isArray(cassette[key]) && cassette[key].every((p) => typeof p === "string"))) {
      throw tapeError("CLEW_INVALID_OPTIONS", `options.cassette.${key} must be a list of JSON paths (strings)`);
    }
  }
  if (cassette.onDivergence !== undefined && !["fail", "warn"].includes(cassette.onDivergence)) {
    throw tapeError("CLEW_INVALID_OPTIONS", 'options.cassette.onDivergence must be "fail" or "warn"');
  }
  const model = options.model ?? {};
  const { cassette: _, ...rest } = options;
  return mode === "record" || (mode === "auto" && cassette.data == null)
    ? new Recording(rest, model, cassette)
    : new Replaying(rest, model, cassette);
}

/** An error's message and name, as the tape keeps them. */
const errorOf = (e) => ({ message: String(e?.message ?? e), name: typeof e?.name === "string" ? e.name : "Error" });
/**
 * A value as plain JSON (what a tool returned, an answer, an MCP result): null for one JSON
 * cannot hold (a BigInt, a cycle, a function), which the task reads as nothing either.
 */
function plain(v) {
  try {
    const text = JSON.stringify(v);
    return text === undefined ? null : JSON.parse(text);
  } catch {
    return null;
  }
}
const SKIP_HEADERS = ["content-type", "retry-after"];

/** The headers the tape keeps of a response. */
function keptHeaders(response) {
  const headers = {};
  for (const name of SKIP_HEADERS) {
    const value = response.headers?.get?.(name);
    if (typeof value === "string") headers[name] = value;
  }
  return headers;
}

/** The message of a call that differs from its recording (`d`, from `firstDifference`). */
const mismatch = (entry, d, what) => `${what} differs from call ${entry.call} on the cassette at ${d.path}: recorded ${d.recorded}, now ${d.actual}`;

/** What a replayed event is, for messages. */
const whatOf = (event) => event.what ?? `a read of request ${event.key.slice(5)}'s body (order ${event.run.reads.n[event.run.i]})`;

/**
 * The bodies' reads as runs: each run is reads of one body with no other event between them
 * on the tape (by `n`), handed over one by one (one object per run, not per read).
 */
function readRuns(bodies, others) {
  const ns = others.map((e) => e.n).sort((a, b) => a - b);
  const runs = [];
  for (const { key, reads } of bodies) {
    const n = reads.n;
    // NOTE: `before` counts the other events ordered before the read looked at; a body's
    // reads come in order, so it only moves forward.
    let before = 0;
    const count = (at) => { while (before < ns.length && ns[before] < at) before++; return before; };
    let from = 0, last = count(n[0]);
    for (let j = 1; j <= n.length; j++) {
      const now = j < n.length ? count(n[j]) : -1;
      if (now === last) continue;
      runs.push({ key, n: n[from], run: { reads, i: from, to: j } });
      from = j;
      last = now;
    }
  }
  return runs;
}

const encoder = new TextEncoder();

/**
 * A model stream read's bytes: a `Uint8Array`, an `ArrayBuffer` or text (as UTF-8), what the
 * task reads; null for anything else (the task fails the request on it, and the tape cannot
 * hold it).
 */
function bytesOfRead(value) {
  if (value instanceof Uint8Array) return value;
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  if (typeof value === "string") return encoder.encode(value);
  return null;
}

/** The MCP client methods a tape records. */
const MCP_METHODS = ["listTools", "listResources", "listResourceTemplates", "callTool", "readResource"];

// ---- recording ----

class Recording {
  constructor(options, model, cassette) {
    this.settings = cassette;
    this.apiKey = model.apiKey;
    this.start = Date.now();
    this.clock = new TapeClock(this.start);
    this.sequencer = new RecordingSequencer(this.clock, this.start);
    this.tape = {
      format: FORMAT, version: VERSION, clew: CLEW_VERSION, model: { format: model.format ?? "anthropic", id: model.id ?? "" },
      startedAt: this.start, redaction: { redact: cassette.redact ?? [], ignore: cassette.ignore ?? [] },
      asks: typeof options.ask === "function", interactions: [], wakes: this.sequencer.wakes,
    };
    if (cassette.meta !== undefined) this.tape.meta = plain(cassette.meta);
    this.calls = { request: 0, tool: 0, ask: 0, mcp: 0 };
    /** Each recorded response's body, read by read. */
    this.bodies = new Map();
    this.options = {
      ...options,
      clock: this.clock.options(),
      // NOTE: the body is the one clew builds either way: given to `fetch`, or built from the
      // request handed to the application's `model.request`.
      model: model.request
        ? { ...model, request: (req, init) => this.request(buildRequest(model.format ?? "anthropic", req).body, () => model.request(req, init)) }
        : { ...model, fetch: (url, init) => this.request(init.body, () => (model.fetch ?? globalThis.fetch)(url, init)) },
      tools: options.tools?.map((tool) => ({ ...tool, execute: (params, context) => this.tool(tool, params, context) })),
      ask: options.ask && ((message) => this.ask(options.ask, message)),
      mcpServers: options.mcpServers?.map((server) => ({ ...server, client: this.mcpClient(server) })),
    };
  }

  finished(outcome) {
    return outcome;
  }

  async document() {
    // NOTE: each body is kept whole, its reads as columns of their orders, times and lengths.
    const interactions = this.tape.interactions.map((entry) => {
      if (!entry.response) return entry;
      const { reads, end, ...response } = entry.response;
      return { ...entry, response: { ...response, ...readOf(concat(this.bodies.get(entry.response))), reads, ...(end && { end }) } };
    });
    return redactTape(structuredClone({ ...this.tape, interactions }), { apiKey: this.apiKey, ...this.tape.redaction });
  }

  #entry(type, fields) {
    const entry = { type, call: this.calls[type]++, at: this.clock.time - this.start, ...fields };
    this.tape.interactions.push(entry);
    return entry;
  }

  /** Settles a call's outcome in its turn, stamped; resolves once the task may see it. */
  #settle(entry, outcome) {
    return this.sequencer.input((stamp) => { entry.outcome = { ...stamp, ...outcome }; });
  }

  /** A model request whose provider body is `text`, made by `send`. */
  async request(text, send) {
    let body;
    try { body = JSON.parse(text); } catch { body = text; }
    const entry = this.#entry("request", { body });
    let response;
    try {
      response = await send();
    } catch (error) {
      await this.sequencer.input((stamp) => { entry.error = { ...stamp, ...errorOf(error) }; });
      throw error;
    }
    const isStream = typeof response?.getReader === "function";
    const source = isStream ? response : response?.body;
    const recorded = { status: isStream ? 200 : response?.status ?? 0, headers: isStream ? {} : keptHeaders(response), stream: isStream, reads: { n: [], at: [], bytes: [] } };
    const chunks = [];
    this.bodies.set(recorded, chunks);
    await this.sequencer.input((stamp) => { entry.response = Object.assign(recorded, stamp); });
    if (!source || typeof source.getReader !== "function") return response;
    const reader = source.getReader();
    const sequencer = this.sequencer;
    const stream = new ReadableStream({
      async pull(controller) {
        let result;
        try {
          result = await reader.read();
        } catch (error) {
          await sequencer.input((stamp) => { recorded.end = { ...stamp, type: "error", ...errorOf(error) }; });
          controller.error(error);
          return;
        }
        await sequencer.input((stamp) => {
          if (result.done) {
            recorded.end = { ...stamp, type: "end" };
            controller.close();
          } else {
            // NOTE: the task gets the read as it came; the tape keeps its bytes (a text read
            // as its UTF-8, which is how the task reads text).
            const bytes = bytesOfRead(result.value);
            if (bytes) {
              recorded.reads.n.push(stamp.n);
              recorded.reads.at.push(stamp.at);
              recorded.reads.bytes.push(bytes.length);
              chunks.push(bytes.slice());
            }
            controller.enqueue(result.value);
          }
        });
      },
      cancel(reason) {
        recorded.end ??= { type: "abort" };
        return reader.cancel(reason);
      },
    }, { highWaterMark: 0 });
    return isStream ? stream : new Response(stream, { status: response.status, statusText: response.statusText, headers: response.headers });
  }

  async tool(tool, params, context) {
    const entry = this.#entry("tool", { name: tool.name, params: plain(params) });
    let result;
    try {
      result = await tool.execute(params, context);
    } catch (error) {
      if (context?.signal?.aborted) { entry.cancelled = true; throw error; }
      await this.#settle(entry, { error: errorOf(error) });
      throw error;
    }
    if (context?.signal?.aborted) { entry.cancelled = true; return result; }
    await this.#settle(entry, { result: plain(result) });
    return result;
  }

  async ask(ask, message) {
    if (message.partial) return ask(message);
    const entry = this.#entry("ask", { ask: message.ask, text: message.text });
    let answer;
    try {
      answer = await ask(message);
    } catch (error) {
      await this.#settle(entry, { error: errorOf(error) });
      throw error;
    }
    await this.#settle(entry, { answer: plain(answer) });
    return answer;
  }

  mcpClient(server) {
    const client = server.client;
    if (!client || typeof client !== "object") return client;
    this.tape.mcp ??= {};
    let capabilities;
    try { capabilities = client.getServerCapabilities?.(); } catch {}
    const methods = MCP_METHODS.filter((method) => typeof client[method] === "function");
    this.tape.mcp[server.name] = { capabilities: plain(capabilities), methods };
    const recording = this;
    return new Proxy(client, {
      get(target, key) {
        if (!MCP_METHODS.includes(key) || typeof target[key] !== "function") {
          const value = Reflect.get(target, key, target);
          return typeof value === "function" ? value.bind(target) : value;
        }
        return async (params, ...more) => {
          const entry = recording.#entry("mcp", { server: server.name, method: key, params: plain(params) });
          let result;
          try {
            result = await target[key](params, ...more);
          } catch (error) {
            await recording.#settle(entry, { error: errorOf(error) });
            throw error;
          }
          await recording.#settle(entry, { result: plain(result) });
          return result;
        };
      },
      set(target, key, value) {
        return Reflect.set(target, key, value, target);
      },
    });
  }
}

// ---- replaying ----

/**
 * A replayed response body's source: each read handed over in its turn. (A class, not
 * closures: nothing is made per read but the chunk.)
 */
class ReplayedBody {
  constructor(sequencer, key, past) {
    this.sequencer = sequencer;
    this.key = key;
    this.past = past;
    this.controller = null;
    this.hand = this.hand.bind(this);
  }

  pull(controller) {
    this.controller = controller;
    const now = this.sequencer.takeNow(this.key);
    if (now !== null) return this.hand(now);
    if (!this.sequencer.ahead(this.key)) return this.past();
    return this.sequencer.take(this.key).then(this.hand);
  }

  /** Hands over a read (its bytes) or the body's end. */
  hand(event) {
    const controller = this.controller;
    if (event instanceof Uint8Array) controller.enqueue(event);
    else if (event.type === "end") controller.close();
    else controller.error(rethrow(event));
  }

  cancel() {
    this.sequencer.drop(this.key);
  }
}

class Replaying {
  constructor(options, model, cassette) {
    const tape = readTape(cassette.data);
    const format = model.format ?? "anthropic";
    if (tape.model.format !== format) {
      throw tapeError("CLEW_INVALID_CASSETTE", `the cassette was recorded with model.format "${tape.model.format}", the options say "${format}"`);
    }
    this.settings = cassette;
    this.tape = tape;
    this.entries = { request: [], tool: [], ask: [], mcp: [] };
    const events = [];
    const bodies = [];
    // NOTE: the responses `readTape` checked: a request's, when it has no error.
    const slot = bodyPool(tape.interactions.filter((e) => e.type === "request" && !e.error).map((e) => e.response));
    for (const [index, entry] of tape.interactions.entries()) {
      this.entries[entry.type][entry.call] = entry;
      const key = `${entry.type}#${entry.call}`;
      if (entry.type === "request") {
        if (entry.error) events.push({ ...entry.error, key, what: `the error of request ${entry.call}` });
        else {
          events.push({ ...entry.response, key, what: `the response to request ${entry.call}` });
          const reads = new BodyReads(entry.response, `interactions[${index}].response`, slot(entry.response));
          if (reads.length) bodies.push({ key: `body#${entry.call}`, reads });
          if (entry.response.end && entry.response.end.type !== "abort") {
            events.push({ ...entry.response.end, key: `body#${entry.call}`, what: `the end of request ${entry.call}'s body` });
          }
        }
      } else if (entry.outcome) {
        events.push({ ...entry.outcome, key, what: `the ${entry.type === "mcp" ? "MCP " + entry.method : entry.type} result of call ${entry.call}` });
      }
    }
    for (const wake of tape.wakes ?? []) events.push({ ...wake, key: "wake", what: `the timer at ${wake.at} ms` });
    events.push(...readRuns(bodies, events));
    this.matcher = new RequestMatcher(this.entries.request, [...(tape.redaction?.ignore ?? []), ...(cassette.ignore ?? [])]);
    this.bindings = this.matcher.bindings;
    events.sort((a, b) => a.n - b.n);
    this.clock = new TapeClock(tape.startedAt);
    const stallMs = cassette.stallMs ?? 5000;
    this.sequencer = new ReplayingSequencer(this.clock, tape.startedAt, events, stallMs, (event) => this.fail(
      "CLEW_CASSETTE_STALLED", `the task stopped asking for what the cassette has next (${whatOf(event)}) for ${stallMs} ms: it waits for something else`));
    this.calls = { request: 0, tool: 0, ask: 0, mcp: 0 };
    this.failure = null;
    const live = (key) => cassette[key] === "live";
    this.options = {
      ...options,
      clock: this.clock.options(),
      // NOTE: the task builds each request's body itself and hands it to this `fetch`.
      model: { ...model, request: undefined, fetch: (_url, init) => this.request(init.body, init) },
      tools: options.tools?.map((tool) => ({ ...tool, execute: (params, context) => this.tool(tool, params, context, live("tools")) })),
      // NOTE: a task without `ask` declines every ask itself; replayed, it must again.
      ask: tape.asks === false ? undefined : (message) => this.ask(options.ask, message, live("asks")),
      mcpServers: options.mcpServers?.map((server) => ({ ...server, client: this.mcpClient(server) })),
    };
  }

  async document() {
    return this.tape;
  }

  /** Ends the task with `error` (once), and stops handing anything over. */
  fail(code, message) {
    if (!this.failure) {
      this.failure = { code, message };
      this.sequencer.stop();
      this.task?.fail(code, message);
    }
    return new Promise(() => {});
  }

  /** The task's outcome, failed when recorded interactions were never used (the same object each time). */
  finished(outcome) {
    if (this.final?.from === outcome) return this.final.outcome;
    let final = outcome;
    const unused = this.sequencer.unused();
    if (!this.failure && outcome.status !== "failed" && !this.settings.allowUnused && unused.length) {
      const message = `${unused.length} recorded interaction${unused.length === 1 ? " was" : "s were"} never used, from ${whatOf(unused[0])}`;
      final = { status: "failed", error: new ClewTaskError(message, "CLEW_CASSETTE_UNUSED") };
    }
    this.final = { from: outcome, outcome: final };
    return final;
  }

  /** The next recorded call of `type`, or the task fails (the tape has ended). */
  #next(type, what) {
    const call = this.calls[type]++;
    const entry = this.entries[type][call];
    if (!entry) this.fail("CLEW_CASSETTE_EXHAUSTED", `${what}, but the cassette has no ${type} call ${call} (it recorded ${this.entries[type].length})`);
    return entry;
  }

  #differs(entry, recorded, actual, what) {
    const d = firstDifference(recorded, actual, this.matcher.ignored, this.bindings);
    if (d) this.fail("CLEW_CASSETTE_MISMATCH", mismatch(entry, d, what));
    return d;
  }

  async request(text, init) {
    if (this.failure) return new Promise(() => {});
    const entry = this.#next("request", "the task made a model request");
    if (!entry) return new Promise(() => {});
    let d = this.matcher.check(entry.call, text);
    if (d?.then) d = await d;
    if (d?.path === "digest") return this.fail("CLEW_CASSETTE_MISMATCH", `the model request's digest ${d.actual} is not call ${entry.call}'s ${d.recorded}`);
    if (d) return this.fail("CLEW_CASSETTE_MISMATCH", mismatch(entry, d, "the model request"));
    const key = `${entry.type}#${entry.call}`;
    const outcome = await this.sequencer.take(key);
    if (entry.error) throw rethrow(outcome);
    const response = entry.response;
    const unread = unreadResponse(response);
    if (unread) return unread;
    const bodyKey = `body#${entry.call}`;
    const sequencer = this.sequencer;
    const past = () => this.fail("CLEW_CASSETTE_EXHAUSTED", `the task read request ${entry.call}'s body past its recorded end`);
    const stream = new ReadableStream(new ReplayedBody(sequencer, bodyKey, past), { highWaterMark: 0 });
    init?.signal?.addEventListener?.("abort", () => sequencer.drop(bodyKey), { once: true });
    return response.stream ? stream : new Response(stream, { status: response.status, headers: response.headers ?? {} });
  }

  async tool(tool, params, context, live) {
    if (this.failure) return new Promise(() => {});
    // NOTE: live, with no call on the tape (an imported body), the tool simply runs.
    if (live && !this.entries.tool.length) return tool.execute(params, context);
    const entry = this.#next("tool", `the task called the tool ${tool.name}`);
    if (!entry) return new Promise(() => {});
    if (this.#differs(entry, { name: entry.name, params: entry.params }, { name: tool.name, params: plain(params) }, `the call of ${tool.name}`)) {
      return new Promise(() => {});
    }
    const key = `tool#${entry.call}`;
    context?.signal?.addEventListener?.("abort", () => this.sequencer.drop(key), { once: true });
    let liveResult;
    if (live) {
      try { liveResult = { result: plain(await tool.execute(params, context)) }; } catch (error) { liveResult = { error: errorOf(error) }; }
    }
    if (entry.cancelled || !entry.outcome) return new Promise(() => {});
    const outcome = await this.sequencer.take(key);
    if (live) {
      const recorded = entry.outcome.error ? { error: entry.outcome.error } : { result: entry.outcome.result };
      const d = firstDifference(recorded, liveResult, () => false, new Map(this.bindings));
      if (d) {
        const message = `the tool ${tool.name} (call ${entry.call}) returned something else than on the cassette at ${d.path}: recorded ${d.recorded}, now ${d.actual}`;
        if (this.settings.onDivergence === "warn") (this.settings.onWarning ?? console.warn)(message);
        else return this.fail("CLEW_CASSETTE_TOOL_DIVERGED", message);
      }
    }
    if (outcome.error) throw rethrow(outcome.error);
    return outcome.result;
  }

  async ask(ask, message, live) {
    // NOTE: from the tape, `ask` is still called to show each ask (for a complete one with the
    // tape's answer as its second argument); what it returns is not used.
    const show = (answer) => Promise.resolve().then(() => ask(message, ...answer)).catch(() => {});
    if (message.partial) {
      if (live && ask) return ask(message);
      if (ask) show([]);
      return undefined;
    }
    if (this.failure) return new Promise(() => {});
    if (live && ask && !this.entries.ask.length) return ask(message);
    const entry = this.#next("ask", `the task asked ${message.ask}`);
    if (!entry) return new Promise(() => {});
    if (this.#differs(entry, { ask: entry.ask, text: entry.text }, { ask: message.ask, text: message.text }, `the ask ${message.ask}`)) {
      return new Promise(() => {});
    }
    const answer = live && ask ? await ask(message) : undefined;
    const outcome = await this.sequencer.take(`ask#${entry.call}`);
    if (outcome.error) throw rethrow(outcome.error);
    if (live && ask) return answer;
    if (ask) show([{ answer: outcome.answer }]);
    return outcome.answer;
  }

  mcpClient(server) {
    const replaying = this;
    const call = (method) => async (params) => {
      if (replaying.failure) return new Promise(() => {});
      const entry = replaying.#next("mcp", `the task called ${method} of the MCP server ${server.name}`);
      if (!entry) return new Promise(() => {});
      const recorded = { server: entry.server, method: entry.method, params: entry.params };
      if (replaying.#differs(entry, recorded, { server: server.name, method, params: plain(params) }, `the MCP call ${method}`)) {
        return new Promise(() => {});
      }
      const outcome = await replaying.sequencer.take(`mcp#${entry.call}`);
      if (outcome.error) throw rethrow(outcome.error);
      return outcome.result;
    };
    const recorded = this.tape.mcp?.[server.name];
    const capabilities = recorded?.capabilities ?? undefined;
    const client = { getServerCapabilities: () => capabilities, setNotificationHandler() {} };
    // NOTE: the methods the recorded client had, so the task lists what it listed then.
    for (const method of recorded?.methods ?? MCP_METHODS) if (MCP_METHODS.includes(method)) client[method] = call(method);
    return client;
  }
}

export { PLACEHOLDER };
