// clew/cassette's replay: a task answered from its tape on a virtual clock, each input handed
// over in its recorded order at its recorded time, and a typed error that ends the task
// where it does something the tape did not record.

import { ClewTaskError } from "clew";
import { TapeClock } from "./tape-clock.js";
import { ReplayingSequencer } from "./replaying-sequencer.js";
import { replayEvents, whatOf } from "./replay-events.js";
import { callKey, bodyKey } from "./replay-keys.js";
import { ReplayedBody } from "./replayed-body.js";
import { tapeError, rethrow, unreadResponse, errorOf, plain, modelFormat, MCP_METHODS } from "./format.js";
import { readTape } from "./read-tape.js";
import { firstDifference, RequestMatcher } from "./match.js";

/** The message of a call that differs from its recording (`d`, from `firstDifference`). */
const mismatch = (entry, d, what) => `${what} differs from call ${entry.call} on the cassette at ${d.path}: recorded ${d.recorded}, now ${d.actual}`;

/** A task's replay: the options that answer it from the tape (`options`), and its end checks (`finished`). */
export class Replaying {
  constructor(options, model, cassette) {
    const tape = readTape(cassette.data);
    const format = modelFormat(model);
    if (tape.model.format !== format) {
      throw tapeError("CLEW_INVALID_CASSETTE", `the cassette was recorded with model.format "${tape.model.format}", the options say "${format}"`);
    }
    this.settings = cassette;
    this.tape = tape;
    this.entries = { request: [], tool: [], ask: [], mcp: [] };
    for (const entry of tape.interactions) this.entries[entry.type][entry.call] = entry;
    const events = replayEvents(tape);
    this.matcher = new RequestMatcher(this.entries.request, [...(tape.redaction?.ignore ?? []), ...(cassette.ignore ?? [])]);
    this.bindings = this.matcher.bindings;
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
    const outcome = await this.sequencer.take(callKey("request", entry.call));
    if (entry.error) throw rethrow(outcome);
    const response = entry.response;
    const unread = unreadResponse(response);
    if (unread) return unread;
    const key = bodyKey(entry.call);
    const sequencer = this.sequencer;
    const past = () => this.fail("CLEW_CASSETTE_EXHAUSTED", `the task read request ${entry.call}'s body past its recorded end`);
    const body = new ReplayedBody(sequencer, key, past);
    init?.signal?.addEventListener?.("abort", () => sequencer.drop(key), { once: true });
    // NOTE: of a `Response`, what the task reads (js/boundary/response.js).
    const status = response.status;
    return response.stream ? body : { status, ok: status >= 200 && status < 300, headers: new Headers(response.headers ?? {}), body, bodyUsed: false };
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
    const key = callKey("tool", entry.call);
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
    const outcome = await this.sequencer.take(callKey("ask", entry.call));
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
      const outcome = await replaying.sequencer.take(callKey("mcp", entry.call));
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
