// clew/cassette's recording: a task's inputs as they arrive (each model response read by
// read, each tool result, answer and MCP result, its timer), stamped with their order and
// their time on the task's clock, and the tape they make, redacted.

import { buildRequest } from "clew";
import { TapeClock } from "./tape-clock.js";
import { RecordingSequencer } from "./recording-sequencer.js";
import { FORMAT, VERSION, errorOf, plain, modelFormat, MCP_METHODS } from "./format.js";
import { encoder, readOf, concat } from "./bytes.js";
import { redactTape } from "./redact.js";

/** The version of clew that writes the tapes (set by the build). */
const CLEW_VERSION = "__CLEW_VERSION__";

/** The response headers a tape keeps (the rest say nothing the replay needs). */
const KEPT_HEADERS = ["content-type", "retry-after"];

/** The headers the tape keeps of a response. */
function keptHeaders(response) {
  const headers = {};
  for (const name of KEPT_HEADERS) {
    const value = response.headers?.get?.(name);
    if (typeof value === "string") headers[name] = value;
  }
  return headers;
}

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

/** A task's recording: the options that record it (`options`) and its tape (`document()`). */
export class Recording {
  constructor(options, model, cassette) {
    this.settings = cassette;
    this.apiKey = model.apiKey;
    this.start = Date.now();
    this.clock = new TapeClock(this.start);
    this.sequencer = new RecordingSequencer(this.clock, this.start);
    this.tape = {
      format: FORMAT, version: VERSION, clew: CLEW_VERSION, model: { format: modelFormat(model), id: model.id ?? "" },
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
        ? { ...model, request: (req, init) => this.request(buildRequest(modelFormat(model), req).body, () => model.request(req, init)) }
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
