// Browser and bundler entry: fetches the wasm file beside this module (bundlers turn the
// `new URL(…, import.meta.url)` into an emitted asset) without top-level await, so iife
// bundles (a Vite module worker) work too. `ready` resolves once the module is compiled;
// async APIs wait for it themselves, and a Task made before it is created when it starts.
import init, * as wasm from "./clew.js";
import { clew_mcp_import } from "__BOUNDARY_MODULE__";

export { ClewError, ClewStreamError, ClewTaskError } from "__ERRORS_MODULE__";

let loaded = false;
/** Resolves once the wasm module is compiled and instantiated. */
export const ready = init({ module_or_path: new URL("./clew_bg.wasm", import.meta.url) }).then(() => {
  loaded = true;
});
// NOTE: a failed load surfaces through `ready` and through every call; it is not unhandled.
ready.catch(() => {});
// A task with MCP servers imports clew's MCP support from beside this module, hidden from
// bundlers (a bundle stays one chunk; an application that bundles MCP imports "clew/mcp"):
// the specifier comes from boundary/options.js, so no bundler resolves it, and a relative import()
// resolves against this module (no `import.meta`, which iife and CommonJS bundles lack).
clew_mcp_import((specifier) => import(/* webpackIgnore: true */ /* @vite-ignore */ specifier));

function check() {
  if (!loaded) {
    throw Object.assign(new Error("clew's wasm module is still loading: `await ready` before the first synchronous call"), { code: "CLEW_NOT_READY" });
  }
}

export function parseAssistantMessage(text, tools) {
  check();
  return wasm.parseAssistantMessage(text, tools);
}

export function buildRequest(format, request) {
  check();
  return wasm.buildRequest(format, request);
}

export function modelCost(info, usage) {
  check();
  return wasm.modelCost(info, usage);
}

export function sseDecoder(format) {
  check();
  return wasm.sseDecoder(format);
}

export async function readModelStream(response, format) {
  await ready;
  return wasm.readModelStream(response, format);
}

export class StreamDecoder extends wasm.StreamDecoder {
  constructor(format) {
    check();
    super(format);
  }
}

export class ToolCallAssembler extends wasm.ToolCallAssembler {
  constructor() {
    check();
    super();
  }
}

export class AssistantMessageParser extends wasm.AssistantMessageParser {
  constructor(tools) {
    check();
    super(tools);
  }
}

// Marks a Task made around a wasm task that already exists (restore, fromHistory).
const WRAPPED = Symbol("wrapped");

/**
 * The agent task. Made after `ready`, it is the wasm class itself (and bad options throw
 * here); made before, it is created when `start` is called (and bad options reject there).
 * `Task.restore`, `Task.fromHistory` and `Task.mergeSnapshot` are synchronous: they need
 * `await ready` first (`Task.snapshotParts` and `Task.joinSnapshot` do not).
 */
export class Task {
  #inner = null;
  #options;
  #abortReason = null;
  #failure = null;

  constructor(options, inner) {
    if (options === WRAPPED) this.#inner = inner;
    else if (loaded) this.#inner = new wasm.Task(options);
    else this.#options = options;
  }

  static restore(snapshot, options) {
    check();
    return new Task(WRAPPED, wasm.Task.restore(snapshot, options));
  }

  static fromHistory(saved, options) {
    check();
    return new Task(WRAPPED, wasm.Task.fromHistory(saved, options));
  }

  static mergeSnapshot(stored, changes) {
    check();
    return wasm.Task.mergeSnapshot(stored, changes);
  }

  static snapshotParts = wasm.Task.snapshotParts;
  static joinSnapshot = wasm.Task.joinSnapshot;

  // NOTE: a task made before `ready` and not started has no state to snapshot or resume;
  // made after, it is the wasm class, whose methods say so.
  snapshot() {
    return this.#inner?.snapshot();
  }

  resume() {
    return this.#inner ? this.#inner.resume() : ready.then(() => new wasm.Task(this.#options).resume());
  }

  start(text, images) {
    if (this.#inner) return this.#inner.start(text, images);
    return ready.then(() => {
      if (!this.#inner) this.#inner = new wasm.Task(this.#options);
      const outcome = this.#inner.start(text, images);
      if (this.#failure) this.#inner.fail(...this.#failure);
      else if (this.#abortReason !== null) this.#inner.abort(this.#abortReason);
      return outcome;
    });
  }

  abort(reason) {
    if (this.#inner) this.#inner.abort(reason);
    else this.#abortReason = reason ?? "aborted";
  }

  fail(code, message) {
    if (this.#inner) this.#inner.fail(code, message);
    else this.#failure = [code, message];
  }

  // NOTE: a task not made yet waits on no ask: the wasm class's error, in its words.
  condense(options) {
    if (this.#inner) return this.#inner.condense(options);
    throw Object.assign(new TypeError("condense() needs a task waiting on a follow-up question, a completion, a resume or the mistake limit; this one is idle"), { code: "CLEW_INVALID_STATE" });
  }

  get messages() { return this.#inner ? this.#inner.messages : []; }
  get history() { return this.#inner ? this.#inner.history : []; }
  get usage() {
    return this.#inner ? this.#inner.usage : { inputTokens: 0, outputTokens: 0, cacheWriteTokens: 0, cacheReadTokens: 0, totalCost: 0, requests: 0 };
  }
  get state() { return this.#inner ? this.#inner.state : "idle"; }
  get outcome() { return this.#inner ? this.#inner.outcome : undefined; }

  free() {
    this.#inner?.free();
    this.#inner = null;
  }

  [Symbol.dispose]() {
    this.free();
  }
}
