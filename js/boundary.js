// The JS side of the boundary with the wasm: every function here runs user-facing or
// user-supplied JavaScript (getters, proxies, streams, callbacks) inside a try, so that no
// exception unwinds through wasm frames. Such an exception skips restoring the wasm stack
// pointer and leaks a slot of the externref table each time, until every call on every
// object of the instance fails. The Rust side imports these (src/wasm/js_call.rs,
// json_js.rs, stream.rs, task_options.rs); scripts/build appends the `guardClasses` call to
// the bindings.

export async function clew_pump(stream, push, signal) {
  // The reader is cancelled as soon as `signal` aborts (abort, a failure, the task's end),
  // not at the next chunk: a body that ignores the signal and never sends again is released
  // at once, with everything the read loop holds.
  const reader = stream.getReader();
  const cancel = () => { reader.cancel(signal.reason).catch(() => {}); };
  if (signal.aborted) { cancel(); return; }
  signal.addEventListener('abort', cancel);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done || signal.aborted) return;
      let stop;
      try { stop = push(value); } catch (error) { reader.cancel().catch(() => {}); throw error; }
      if (stop) { reader.cancel().catch(() => {}); return; }
    }
  } finally {
    signal.removeEventListener('abort', cancel);
    try { reader.releaseLock(); } catch {}
  }
}
export function clew_request(request, messages) {
  request.messages = typeof structuredClone === 'function' ? structuredClone(messages) : JSON.parse(JSON.stringify(messages));
  return request;
}
// Calls `options.persist(changes, { reason, wakeAt? })` as `clew_try` calls (the outcome
// through `clew_tried`). The changes are the machine's JSON parsed. Their history entries
// are frozen, because the requests are made of them too (`cache`, by history index), so
// that each entry crosses into JavaScript once.
export function clew_persist(persist, text, cache, reason, wakeAt) {
  const changes = JSON.parse(text);
  cache.length = changes.historyFrom;
  for (const entry of changes.history) cache.push(frozenShared(entry));
  return clew_try(persist, undefined, changes, wakeAt === undefined ? { reason } : { reason, wakeAt });
}
// Freezes `value` deeply, and gives the same value for the requests to clone, except that
// its arrays are unfrozen copies, and so are the objects on the way to them: a frozen array
// takes `structuredClone`'s slow path, which every later request would pay again.
function frozenShared(value) {
  if (typeof value !== 'object' || value === null) return value;
  Object.freeze(value);
  if (Array.isArray(value)) {
    const copy = [];
    for (let i = 0; i < value.length; i++) copy.push(frozenShared(value[i]));
    return copy;
  }
  let copy = value;
  const keys = Object.keys(value);
  for (let i = 0; i < keys.length; i++) {
    const member = value[keys[i]];
    const shared = frozenShared(member);
    if (shared !== member) {
      if (copy === value) copy = { ...value };
      copy[keys[i]] = shared;
    }
  }
  return copy;
}
// `f.call(self, a, b)`: whether it returned, and `clew_tried()` gives what it returned or
// threw (two calls without a string crossing, cheaper than reading an `{ ok, value }`).
let tried;
export function clew_try(f, self, a, b) {
  try { tried = f.call(self, a, b); return true; } catch (error) { tried = error; return false; }
}
export function clew_tried() {
  const value = tried;
  tried = undefined;
  return value;
}

export function clew_stringify(value) {
  let bad = null;
  try {
    const text = JSON.stringify(value, function (key, v) {
      if (typeof v === 'number' && !Number.isFinite(v) && bad === null) bad = key;
      return v;
    });
    if (bad !== null) return { bad };
    return typeof text === 'string' ? text : { error: 'is not plain data' };
  } catch (error) {
    return { error: 'cannot be written as JSON (' + String(error && error.message || error) + ')' };
  }
}

export function clew_response(response) {
  try {
    if (response === null || typeof response !== 'object') return null;
    const status = response.status;
    if (typeof status !== 'number') return null;
    let retryAfter = null;
    try { retryAfter = response.headers.get('retry-after'); } catch {}
    const body = response.body ?? null;
    return { ok: response.ok === true, status, retryAfter, body, used: response.bodyUsed === true || !!(body && body.locked) };
  } catch { return null; }
}
export async function clew_error_body(body, limit, timeoutMs) {
  if (!body) return '';
  let reader, timer;
  try {
    reader = body.getReader();
    const late = new Promise((resolve) => { timer = setTimeout(() => resolve(null), timeoutMs); });
    const parts = [];
    let size = 0;
    while (size < limit) {
      const result = await Promise.race([reader.read(), late]);
      if (!result || result.done || !(result.value instanceof Uint8Array)) break;
      parts.push(result.value);
      size += result.value.length;
    }
    const bytes = new Uint8Array(Math.min(size, limit));
    let at = 0;
    for (const part of parts) {
      const piece = part.subarray(0, bytes.length - at);
      bytes.set(piece, at);
      at += piece.length;
    }
    return new TextDecoder().decode(bytes);
  } catch {
    return '';
  } finally {
    clearTimeout(timer);
    try { reader?.cancel().catch(() => {}); } catch {}
  }
}
export function clew_define(object, key, value) {
  Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
}

// The wasm exports the bindings call, each one that returns a single externref wrapped in a
// Proxy (`refReturning`, their names: js/package.mjs reads them from clew_bg.wasm.d.ts). V8
// before 13 (Node 20 and 22, Chromium of that age) inlines a JS->wasm call into the optimized
// JS function that makes it; when that function is deoptimized while the wasm runs (lazily: the
// wasm called back into JS, and that JS or a GC invalidated the optimized code), the
// deoptimizer cannot rebuild the frame for an externref result and aborts the process:
// "Fatal error ... unreachable code" in Deoptimizer::DoComputeBuiltinContinuation (SIGTRAP).
// TurboFan does not inline the call of a Proxy: the wasm is entered through the Call builtin
// (about 20 ns more a call). Every other export, and `memory`, is the instance's own (prototype).
export function clew_wasm_exports(exports, refReturning) {
  const out = Object.create(exports);
  for (const name of refReturning) {
    if (typeof exports[name] === "function") {
      Object.defineProperty(out, name, { value: new Proxy(exports[name], {}), enumerable: true });
    }
  }
  return out;
}

// Waits until the readable side has handed out every chunk queued so far: erroring a
// stream drops what its queue still holds.
async function drained(controller) {
  while ((controller.desiredSize ?? 0) < 0) await new Promise((resolve) => setTimeout(resolve, 1));
}

// The chunk objects of a push (src/wasm/stream.rs `chunks_to_js`), shaped as their JSON:
// members in the same order, an absent one left out.
// `object` with `key: value` added unless the value is absent.
function put(object, key, value) {
  if (value !== undefined) object[key] = value;
  return object;
}
export function clew_chunk(out, kind, a, b, c, d, e) {
  let chunk;
  if (kind === 0) chunk = { type: "text", text: a };
  else if (kind === 1) {
    chunk = put(put(put(put({ type: "reasoning", reasoning: a }, "signature", b), "redacted_data", c), "encrypted_content", d), "summary", e === undefined ? e : JSON.parse(e));
  } else if (kind === 2 || kind === 6) {
    const call = put(put(put({}, "call_id", a), "function", put(put(put({}, "id", b), "name", c), "arguments", d)), "signature", e);
    if (kind === 6) call.whole = true;
    chunk = { type: "tool_calls", tool_call: call };
  } else if (kind === 3) chunk = put({ type: "stop", reason: a }, "raw", b);
  else if (kind === 4) chunk = put(put({ type: "text_end" }, "signature", a), "phase", b);
  else chunk = { type: "item", item: JSON.parse(a) };
  out.push(chunk);
}
export function clew_usage(out, input, output, write, read, reasoning, cost) {
  out.push(put(put(put(put({ type: "usage", inputTokens: input, outputTokens: output }, "cacheWriteTokens", write), "cacheReadTokens", read), "reasoningTokens", reasoning), "totalCost", cost));
}

export function clew_transform(push, finish) {
  const deliver = async (result, controller) => {
    for (const chunk of result.chunks) controller.enqueue(chunk);
    if (result.error !== undefined) {
      await drained(controller);
      throw result.error;
    }
  };
  return new TransformStream({
    transform: (piece, controller) => deliver(push(piece), controller),
    flush: (controller) => deliver(finish(), controller),
  });
}

export function clew_read_body(body, push, finish) {
  let reader;
  try { reader = body.getReader(); } catch { return null; }
  let failed;
  let ended = false;
  return new ReadableStream({
    async pull(controller) {
      if (failed !== undefined) { controller.error(failed); return; }
      for (;;) {
        let result, bodyError, end = false;
        try {
          const { done, value } = await reader.read();
          end = done;
          result = done ? finish() : push(value);
        } catch (error) {
          // The body failed: its last event may still be whole.
          bodyError = error;
          end = true;
          result = finish();
        }
        for (const chunk of result.chunks) controller.enqueue(chunk);
        const error = result.error;
        if (error !== undefined) {
          if (bodyError !== undefined) try { error.cause = bodyError; } catch {}
          try { reader.cancel().catch(() => {}); } catch {}
          if (result.chunks.length) failed = error; else controller.error(error);
          return;
        }
        if (end) {
          ended = true;
          controller.close();
          return;
        }
        if (result.chunks.length) return;
      }
    },
    cancel(reason) {
      if (!ended) return reader.cancel(reason).catch(() => {});
    },
  }, { highWaterMark: 0 });
}

export function clew_options(options) {
  // A plain copy of the options as JSON, each function replaced by {"$fn": n} (its place in
  // `fns`); a cycle, a throwing getter, a proxy or a NaN is an error with the reason.
  const fns = [];
  const seen = new Set();
  let bad = null;
  function copy(v, depth, path) {
    if (typeof v === 'function') { fns.push(v); return { $fn: fns.length - 1 }; }
    // An MCP server's client stays here (clew_mcp); the core sees whether it is one.
    if (path.endsWith('].client') && path.startsWith('options.mcpServers[')) return typeof v?.listTools === 'function' && typeof v.callTool === 'function';
    if (typeof v === 'number' && !Number.isFinite(v)) { bad = bad ?? 'a number that is not finite at ' + path; return null; }
    if (typeof v === 'bigint') { bad = bad ?? 'a BigInt at ' + path; return null; }
    if (v === null || typeof v !== 'object') return v;
    if (seen.has(v)) throw new TypeError('they hold a cycle');
    if (depth > 64) throw new TypeError('they are nested too deeply');
    seen.add(v);
    let out;
    if (Array.isArray(v)) {
      out = [];
      for (let i = 0; i < v.length; i++) out.push(copy(v[i], depth + 1, path + '[' + i + ']'));
    } else {
      out = {};
      for (const key of Object.keys(v)) {
        Object.defineProperty(out, key, { value: copy(v[key], depth + 1, path + '.' + key), enumerable: true, writable: true, configurable: true });
      }
    }
    seen.delete(v);
    return out;
  }
  try {
    const json = JSON.stringify(copy(options, 0, 'options'));
    if (bad !== null) return { ok: false, error: 'they hold ' + bad };
    const servers = options.mcpServers;
    return { ok: true, json: json ?? 'null', fns, mcp: Array.isArray(servers) && servers.length ? clew_mcp(servers) : undefined };
  } catch (error) {
    return { ok: false, error: String(error && error.message || error) };
  }
}

// options.mcpServers (checked by the core): the code that lists the servers and calls them
// is mcp-servers.js at the package's root, loaded only when a task with servers first lists
// them. It registers itself under a global symbol: an application that imports "clew/mcp"
// (or "clew/mcp-servers") has it in its bundle; otherwise the entries that can import it
// from beside the package at run time (Node, browsers) said how (`clew_mcp_import`). The
// workerd and edge entries cannot: there the application imports it. `list()` gives the
// servers' listing as JSON (src/core/agent/mcp.rs `McpCatalog::read`), or "" when nothing
// changed.
const MCP_SERVERS = Symbol.for('clew.mcpServers');
let mcpImport = () => Promise.resolve();
export function clew_mcp_import(load) { mcpImport = () => load('./mcp-servers.js'); }
function clew_mcp(servers) {
  let loaded, told = false;
  const load = () => loaded ??= (globalThis[MCP_SERVERS] ? Promise.resolve() : mcpImport()).then(() => {
    if (typeof globalThis[MCP_SERVERS] !== 'function') throw new Error('it is not in this bundle');
    return globalThis[MCP_SERVERS](servers);
  });
  const run = (op) => (a, b) => load().then(
    (glue) => glue[op](a, b),
    (e) => (e = 'the MCP support could not be loaded (' + String(e && e.message || e) + '); import "clew/mcp" once in the application', op !== 'list' ? { text: e, isError: true } : told ? '' : (told = true, JSON.stringify({ errors: [{ message: e }] }))));
  return { list: run('list'), call: run('call'), read: run('read') };
}

// Methods of the wasm classes check that their object is alive before they enter the wasm:
// on a freed object (or on anything but an instance) the generated bindings would throw from
// inside it. Here that is a TypeError with a code, and `free()` twice does nothing.
const GUARDED = Symbol.for("clew.guarded");

function alive(self, name) {
  if (self === null || typeof self !== "object" || !self.__wbg_ptr) {
    throw Object.assign(new TypeError(`${name}: this object was freed, or is not a ${name}`), { code: "CLEW_FREED" });
  }
}

export function guardClasses(classes) {
  for (const cls of classes) {
    const proto = cls.prototype;
    if (Object.prototype.hasOwnProperty.call(proto, GUARDED)) continue;
    Object.defineProperty(proto, GUARDED, { value: true });
    const name = cls.name;
    for (const key of Object.getOwnPropertyNames(proto)) {
      if (key === "constructor" || key.startsWith("__")) continue;
      const d = Object.getOwnPropertyDescriptor(proto, key);
      if (key === "free") {
        const free = d.value;
        d.value = function free_() {
          if (this !== null && typeof this === "object" && this.__wbg_ptr) free.call(this);
        };
      } else if (typeof d.value === "function") {
        const method = d.value;
        d.value = function (a, b) {
          alive(this, name);
          return method.call(this, a, b);
        };
      } else if (d.get) {
        const get = d.get;
        d.get = function () {
          alive(this, name);
          return get.call(this);
        };
      }
      Object.defineProperty(proto, key, d);
    }
  }
}

// `Task.mergeSnapshot(stored, changes)`: a stored snapshot with what `options.persist` got
// applied. It reads nothing of a task, so it is plain JavaScript, here because every entry
// loads this module anyway; the entries attach it to Task. `changes` replaces the stored
// history and transcript entries from `historyFrom` and `messagesFrom` on; everything else
// of it is current. Arrays are copied, entries shared.
export function mergeSnapshot(stored, changes) {
  const take = (list, from, items) => {
    const base = Array.isArray(list) ? list.slice(0, Math.max(0, from | 0)) : [];
    return Array.isArray(items) ? base.concat(items) : base;
  };
  const { historyFrom = 0, messagesFrom = 0, ...rest } = changes ?? {};
  return {
    ...rest,
    history: take(stored?.history, historyFrom, changes?.history),
    messages: take(stored?.messages, messagesFrom, changes?.messages),
  };
}
