// clew/cassette's replaying sequencer: a tape's inputs handed over to the task in their
// recorded order, each once the task asks for it, with the clock at its recorded time.

import { macrotask } from "./macrotask.js";
import { WAKE, bodyAfter } from "./replay-keys.js";

/**
 * Replaying: the tape's inputs in their recorded order (`n`). Each waits for its consumer
 * (the task asking for it: a read, a tool's result, an answer, its timer armed for the
 * recorded time), then is handed over in a macrotask of its own with the clock at its
 * recorded time.
 */
export class ReplayingSequencer {
  /**
   * @param {TapeClock} clock the task's clock (tape-clock.js)
   * @param {number} start the tape's start
   * @param {{ n: number, at: number, key: string, due?: number, what?: string, run?: { reads: { at: number[], piece(i: number): unknown }, i: number, to: number } }[]} events
   *   in order; an event with a `run` stands for reads `i..to` of a body (consecutive events
   *   for one consumer), handed over one by one, each as `reads.piece(i)` at `reads.at[i]`
   * @param {number} stallMs real ms the next event may wait for its consumer before `onStall`
   * @param {(event: object) => void} onStall called when the task stopped asking for what comes next
   */
  constructor(clock, start, events, stallMs, onStall) {
    this.clock = clock;
    this.start = start;
    this.events = events;
    this.next = 0;
    this.waiting = new Map();
    this.scheduled = false;
    this.stopped = false;
    this.stallMs = stallMs;
    this.onStall = onStall;
    this.watchdog = null;
    // NOTE: a tape without its timer's firings (imported, or edited) is replayed by time: the
    // timer fires when it is due before the next input.
    this.byTime = !events.some((e) => e.key === WAKE);
    clock.onArm = () => this.#schedule();
  }

  /** The time (from the start) of what `event` hands over next: itself, or its run's next read. */
  static at(event) {
    return event.run ? event.run.reads.at[event.run.i] : event.at;
  }

  /** Hands over `event`'s next item (itself, or its run's next read): moves past it, sets the clock to its time. */
  #consume(event) {
    this.last = event.key;
    const run = event.run;
    // NOTE: the clock never goes back (a tape replayed by time may fire a timer a millisecond
    // past the next input's time).
    if (!run) {
      this.next++;
      this.clock.time = Math.max(this.clock.time, this.start + event.at);
      return event;
    }
    const i = run.i++;
    if (run.i === run.to) this.next++;
    this.clock.time = Math.max(this.clock.time, this.start + run.reads.at[i]);
    return run.reads.piece(i);
  }

  /** Waits for the event `key` (a read of a body, a tool's result, …); resolves with it once it is its turn. */
  take(key) {
    if (this.stopped) return new Promise(() => {});
    return new Promise((resolve) => {
      this.waiting.set(key, resolve);
      if (this.#follows(key) && this.events[this.next]?.key === key && !this.byTime) this.#step();
      else this.#schedule();
    });
  }

  /**
   * The event for `key` at once, when it may be handed over without waiting: the next read
   * of the body whose read came last (see `take`). Else null.
   */
  takeNow(key) {
    const event = this.events[this.next];
    if (this.stopped || this.byTime || !this.#follows(key) || event?.key !== key) return null;
    return this.#consume(event);
  }

  /**
   * Whether `key`'s next event continues the one handed over last: the next read of the same
   * body, or a body's first read after its response. Its consumer asks for it only once the
   * last one was handled (the read loop reads again only then, and starts only once the
   * response was handled), and nothing came between them on the tape, so it is handed over at
   * once, without waiting for a macrotask.
   */
  #follows(key) {
    const last = this.last;
    if (key === last) return true;
    return last !== undefined && key === bodyAfter(last);
  }

  /** Whether an event for `key` is still ahead on the tape. */
  ahead(key) {
    for (let i = this.next; i < this.events.length; i++) if (this.events[i].key === key) return true;
    return false;
  }

  /** Drops what waits for `key` (a body cancelled, a tool aborted) and the tape's events for it. */
  drop(key) {
    this.waiting.delete(key);
    this.events = this.events.filter((e, i) => i < this.next || e.key !== key);
    this.#schedule();
  }

  /** The events never handed over. */
  unused() {
    return this.events.slice(this.next);
  }

  stop() {
    this.stopped = true;
    this.waiting.clear();
    this.#watch(null);
  }

  /** Starts (or, with null, stops) the stall watchdog for `event`. */
  #watch(event) {
    if (this.watchdog) clearTimeout(this.watchdog.timer);
    this.watchdog = null;
    if (!event || !(this.stallMs > 0)) return;
    const timer = setTimeout(() => { if (!this.stopped) this.onStall(event); }, this.stallMs);
    this.watchdog = { timer, event };
  }

  #schedule() {
    if (this.scheduled || this.stopped) return;
    this.scheduled = true;
    macrotask(() => {
      this.scheduled = false;
      this.#step();
    });
  }

  /**
   * Replaying by time: whether the timer fires before `event`. It does when it is due earlier;
   * due at the same time (or 1 ms later: a runtime fires timers up to a millisecond early), it
   * does when nothing waits for `event` yet, which then can only come after the timer (a
   * request that the timer makes, and its response stamped in the same millisecond).
   */
  #dueFirst(timer, event) {
    const at = this.start + ReplayingSequencer.at(event);
    return timer.due < at || (timer.due <= at + 1 && !this.waiting.has(event.key));
  }

  #step() {
    if (this.stopped) return;
    const event = this.events[this.next];
    const timer = this.clock.timer;
    if (this.byTime && timer && !timer.cleared && (!event || this.#dueFirst(timer, event))) {
      this.#watch(null);
      this.clock.time = Math.max(this.clock.time, timer.due);
      this.clock.timer = null;
      timer.callback();
      return this.#schedule();
    }
    if (!event) return this.#watch(null);
    const stalled = () => { if (this.watchdog?.event !== event) this.#watch(event); };
    if (event.key === WAKE) {
      if (!timer || timer.cleared || timer.due - this.start !== event.due) return stalled();
      this.next++;
      this.clock.time = this.start + event.at;
      this.clock.timer = null;
      this.last = WAKE;
      timer.callback();
    } else {
      const resolve = this.waiting.get(event.key);
      if (!resolve) return stalled();
      this.waiting.delete(event.key);
      resolve(this.#consume(event));
    }
    this.#watch(null);
    this.#schedule();
  }
}
