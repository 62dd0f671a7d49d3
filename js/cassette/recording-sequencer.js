// clew/cassette's recording sequencer: the inputs of a task being recorded handed over one at
// a time as they arrive, each stamped with its place in the order and the runtime's time.

import { macrotask } from "./macrotask.js";

/**
 * Recording: inputs as they arrive, handed over one per macrotask, each stamped with the
 * runtime's time when handed over and with its place in the order (`n`). The task's timer
 * is a real one whose firing is an input like the others.
 */
export class RecordingSequencer {
  constructor(clock, start) {
    this.clock = clock;
    this.start = start;
    this.queue = [];
    this.busy = false;
    this.n = 0;
    this.wakes = [];
    clock.onArm = (timer) => {
      timer.handle = setTimeout(() => {
        if (!timer.cleared) this.input((stamp) => {
          if (timer.cleared || this.clock.timer !== timer) return false;
          this.clock.timer = null;
          this.wakes.push({ ...stamp, due: timer.due - this.start });
          timer.callback();
          return true;
        });
      }, Math.max(0, timer.due - Date.now()));
    };
  }

  /**
   * Hands `deliver` its turn: it gets `{ n, at }` (its stamp) and returns whether it was
   * used (a timer cleared meanwhile is not). Resolves once it ran.
   */
  input(deliver) {
    return new Promise((resolve) => {
      this.queue.push({ deliver, resolve });
      this.#next();
    });
  }

  #next() {
    if (this.busy || !this.queue.length) return;
    this.busy = true;
    macrotask(() => {
      const { deliver, resolve } = this.queue.shift();
      this.clock.time = Math.max(this.clock.time, Date.now());
      const stamp = { n: this.n, at: this.clock.time - this.start };
      let used = true;
      // NOTE: a consumer that went away (a body the task cancelled) throws; the next input
      // still gets its turn.
      try { used = deliver(stamp) !== false; } catch {}
      if (used) this.n++;
      resolve();
      this.busy = false;
      this.#next();
    });
  }
}
