// clew/cassette's macrotask: runs a function in a macrotask of its own, after every microtask
// already queued, in each runtime the cassette runs in. The sequencers hand each input over
// in one, so the task has handled the last input's effects before the next comes.

/**
 * Runs `f` in a macrotask of its own (after every pending microtask): `setImmediate` where
 * there is one (Node, Bun), else a MessageChannel's message once it was seen to come as a
 * macrotask (browsers, Deno), else `setTimeout(f, 0)`. workerd delivers a MessageChannel's
 * message before the microtasks already queued, so there a message is no macrotask; until the
 * first message tells which it is, `setTimeout` runs `f`.
 */
export const macrotask = typeof setImmediate === "function"
  ? (f) => setImmediate(f)
  : typeof MessageChannel === "function"
    ? channelOrTimeout()
    : (f) => setTimeout(f, 0);

function channelOrTimeout() {
  let channel = null;
  const queue = [];
  let checked = false;
  let asMacrotask = false;
  const check = () => {
    checked = true;
    const probe = new MessageChannel();
    let microtaskRan = false;
    probe.port1.onmessage = () => {
      asMacrotask = microtaskRan;
      probe.port1.close();
      if (!asMacrotask) return;
      channel = new MessageChannel();
      channel.port1.onmessage = () => queue.shift()?.();
    };
    probe.port2.postMessage(0);
    Promise.resolve().then(() => { microtaskRan = true; });
  };
  return (f) => {
    if (channel) {
      queue.push(f);
      channel.port2.postMessage(0);
      return;
    }
    if (!checked) check();
    setTimeout(f, 0);
  };
}
