// clew/cassette's tape clock: the task's clock (`TaskOptions.clock`) while it is on tape.
// Every input a taped task gets (a response, a body's read or end, a tool's result, an
// answer, an MCP result, its timer) is handed over one at a time by a sequencer (recording's
// or replaying's, each beside its user), and this clock reads the time of the input being
// handled. Recording, the times are the runtime's; replaying, they come from the tape, so a
// recorded 2 s delay takes no real time.

/**
 * A task clock (`TaskOptions.clock`) whose time moves only when an input is handed over.
 * `now()` is the time of the input being handled; the one timer is the task's (the machine
 * keeps a single wake-up time).
 */
export class TapeClock {
  /** @param {number} start the task's start, ms since the epoch */
  constructor(start) {
    this.time = start;
    this.timer = null;
    this.onArm = () => {};
  }

  now() {
    return this.time;
  }

  setTimeout(callback, ms) {
    const timer = { callback, due: this.time + Math.max(0, Number(ms) || 0), cleared: false, handle: null };
    this.timer = timer;
    this.onArm(timer);
    return timer;
  }

  clearTimeout(timer) {
    if (!timer) return;
    timer.cleared = true;
    if (timer.handle !== null) clearTimeout(timer.handle);
    if (this.timer === timer) this.timer = null;
  }

  /** The options' `clock` for this clock. */
  options() {
    return { now: () => this.now(), setTimeout: (f, ms) => this.setTimeout(f, ms), clearTimeout: (t) => this.clearTimeout(t) };
  }
}
