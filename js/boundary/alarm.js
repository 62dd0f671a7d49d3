// The host's timers behind the tasks' wake-ups (src/wasm/driver.rs `timer_at` calls `set` and
// `cancel` as it calls `options.clock`'s setTimeout and clearTimeout). Where the host's
// timers can be unref'd (Node, Bun) the tasks of an instance share one: each waiting task's
// wake-up is an entry here and the timer is armed for the earliest; a task that no longer
// waits leaves it armed, unref'd once no task waits (it no longer keeps the process alive).
// A task then makes no host timer of its own, which in Node costs more than the rest of its
// wake-up (measured in BENCHMARKS.md: the first token). Elsewhere (browsers, workerd, Deno)
// the first timer made shows it, and each later wake-up is a host timer of its own: there a
// timer may not outlive what made it (a request, in workerd).

const waiting = new Map(); // token (negative) → [the host's time it wakes at, its wake function]
let last = 0, shared = true, refed, timer, timerAt;
// The `setTimeout` and `clearTimeout` that made `timer`: a test that installs fake timers
// since gets a timer of its own clock.
let madeBy, clearWith;

// Calls `wake` in `delay` ms: a token for `cancel`, negative for an entry on the shared
// timer, else the host timer's handle.
function set(wake, delay) {
  if (!shared) return setTimeout(wake, Math.min(delay, 2147483647));
  const token = --last;
  waiting.set(token, [Date.now() + delay, wake]);
  arm();
  return token;
}

// The wake-up of `token` cancelled.
function cancel(token) {
  if (!(token < 0)) return clearTimeout(token);
  waiting.delete(token);
  if (waiting.size || !refed) return;
  refed = false;
  // NOTE: a timer that cannot be unref'd (the first, where timers cannot) is cleared.
  if (typeof timer.unref === 'function') timer.unref();
  else clearWith(timer), timer = undefined;
}

// Arms the timer for the earliest wake-up, unless it fires by then anyway.
function arm() {
  let at = Infinity;
  for (const [when] of waiting.values()) at = Math.min(at, when);
  if (timer && timerAt <= at && madeBy === setTimeout) {
    if (!refed) timer.ref(refed = true);
    return;
  }
  // NOTE: from 0 (a negative delay draws a warning in Node) to 2 ** 31 - 1 ms, which timers
  // take (a longer one fires at once): the tasks not due when it fires wait on it armed again.
  const next = setTimeout(fired, Math.min(Math.max(at - Date.now(), 0), 2147483647));
  if (timer) clearWith(timer);
  timer = next; timerAt = at; refed = true;
  madeBy = setTimeout; clearWith = clearTimeout;
  // NOTE: where timers cannot be unref'd, this one serves the wake-ups it has, and each later
  // wake-up gets a timer of its own.
  if (typeof next?.unref !== 'function') shared = false;
}

// The timer fired: the wake-ups due are called, and the timer armed again for the earliest
// left.
function fired() {
  timer = refed = undefined;
  const now = Date.now(), due = [];
  for (const [token, [at, wake]] of waiting) if (at <= now) waiting.delete(token), due.push(wake);
  if (waiting.size) arm();
  // NOTE: a wake-up that throws (its task's instance failed) does not stop the others.
  for (const wake of due) try { wake(); } catch {}
}

// The shared timer's [set, cancel].
export function clew_alarm() {
  return [set, cancel];
}
