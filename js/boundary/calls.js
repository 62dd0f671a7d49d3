// Calls into user functions that report whether they threw instead of throwing into wasm
// (src/wasm/js_call.rs, src/wasm/driver/persist.rs): `clew_try` and `clew_tried`, the
// task's clock, and `options.persist` called the same way.

import { keepHistory } from './request.js';

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

// The second argument of `model.request`, `fetch`, a tool's `execute` and
// `readRequiredFiles`: `{ signal, taskId? }`, where `signal` is `controller`'s, made only when
// read (in Node an AbortSignal costs more to make than the rest of a request's way out).
export function clew_context(controller, taskId) {
  const context = { get signal() { return controller.signal; } };
  if (taskId !== undefined) context.taskId = taskId;
  return context;
}

// A new promise and its resolve function, `[promise, resolve]`: the promise `task.start()`
// and `task.resume()` return.
export function clew_deferred() {
  let resolve;
  const promise = new Promise((settle) => { resolve = settle; });
  return [promise, resolve];
}

// What a value a user's function gave is, in one crossing: 1 a promise or another thenable
// (to await), 2 an object with a `getReader` method (a stream), 0 anything else. A check that
// throws (a getter, a revoked proxy) reads as the value not being that.
export function clew_kind(value) {
  if (value === null || (typeof value !== 'object' && typeof value !== 'function')) return 0;
  try { if (value instanceof Promise || typeof value.then === 'function') return 1; } catch {}
  try { if (typeof value.getReader === 'function') return 2; } catch {}
  return 0;
}

// `options.clock.now()` as a number: NaN when it returns anything else or throws.
export function clew_time(now) {
  try { const time = now(); return typeof time === "number" ? time : NaN; } catch { return NaN; }
}

// Calls `options.persist(changes, { reason, wakeAt? })` as `clew_try` calls (the outcome
// through `clew_tried`). The changes are the machine's JSON parsed. Their history entries
// are frozen, because the requests are made of them too (the request cache, request.js), so
// that each entry crosses into JavaScript once.
export function clew_persist(persist, text, cache, reason, wakeAt) {
  const changes = JSON.parse(text);
  keepHistory(cache, changes.historyFrom, changes.history.map(frozenShared));
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
