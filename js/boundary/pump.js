// The read loop (src/wasm/js_call.rs `clew_pump`): a stream's reads handed to the wasm one
// by one, cancelled the moment the task's signal aborts. Like every module of js/boundary/,
// it runs user-facing JavaScript inside a try, so that no exception unwinds through wasm
// frames (that skips restoring the wasm stack pointer and leaks a slot of the externref
// table each time, until every call on every object of the instance fails).

import { clew_time } from './calls.js';

const ROOM = 4294967296; // 2 ** 32: `push`'s answer is room * ROOM + address

// A stream's controller (the task's own: only its signal is handed out) holds, as `cancel`,
// the cancel of the read loop reading with it, or `true` once aborted: the read loop does not
// listen on the signal, which is made only when someone reads it (`clew_context`).

// Aborts a stream's controller (the listeners of its signal, if it was read, run first), then
// cancels the read loop reading with it.
export function clew_abort(controller) {
  controller.abort();
  const cancel = controller.cancel;
  controller.cancel = true;
  if (typeof cancel === 'function') cancel(controller.signal.reason);
}

// `push(length, value, now)` takes one read: `length` bytes already written at the wasm's
// inbox, or, when the read did not fit or is not bytes, `length` -1 and the value itself.
// `now` is the task's time (`clock`, a function, read as `clew_time` reads it; else the
// host's). `push` answers -1 to stop reading, else where its inbox now is: `room * 2 ** 32 +
// address` (`inbox` before the first read). One crossing per read, and the bytes copied by
// one `set` on a view of the wasm's memory kept from read to read.
export async function clew_pump(stream, push, controller, memory, clock, inbox) {
  // The reader is cancelled as soon as `controller` aborts (`clew_abort`: abort, a failure,
  // the task's end), not at the next chunk: a body that ignores the signal and never sends
  // again is released at once, with everything the read loop holds.
  const reader = stream.getReader();
  // NOTE: a flag of its own rather than `signal.aborted` at every read (a getter that costs
  // a call into the runtime's own JavaScript).
  let aborted = false;
  const cancel = (reason) => { aborted = true; reader.cancel(reason).catch(() => {}); };
  if (controller.cancel === true) { cancel(controller.signal.reason); return; }
  controller.cancel = cancel;
  let heap = new Uint8Array(memory.buffer), room = Math.floor(inbox / ROOM), at = inbox % ROOM;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done || aborted) return;
      const now = clock === undefined ? Date.now() : clew_time(clock);
      let answer;
      try {
        if (value instanceof Uint8Array && value.length <= room) {
          // NOTE: a view on a buffer the memory outgrew is detached (length 0).
          if (heap.length === 0) heap = new Uint8Array(memory.buffer);
          heap.set(value, at);
          answer = push(value.length, undefined, now);
        } else {
          answer = push(-1, value, now);
        }
      } catch (error) { reader.cancel().catch(() => {}); throw error; }
      if (answer < 0) { reader.cancel().catch(() => {}); return; }
      room = Math.floor(answer / ROOM);
      at = answer % ROOM;
    }
  } finally {
    if (controller.cancel === cancel) controller.cancel = undefined;
    try { reader.releaseLock(); } catch {}
  }
}
