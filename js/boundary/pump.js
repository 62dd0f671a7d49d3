// The read loop (src/wasm/js_call.rs `clew_pump`): a stream's reads handed to the wasm one
// by one, cancelled the moment the task's signal aborts. Like every module of js/boundary/,
// it runs user-facing JavaScript inside a try, so that no exception unwinds through wasm
// frames (that skips restoring the wasm stack pointer and leaks a slot of the externref
// table each time, until every call on every object of the instance fails).

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
