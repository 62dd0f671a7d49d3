// clew/cassette's replayed body: a response body whose reads the replaying sequencer hands
// over, each in its turn, and which ends as it ended when it was recorded.

import { rethrow } from "./format.js";

/** A read past a body's end (shared: the task only looks at `done`). */
const DONE = Object.freeze({ done: true, value: undefined });

/**
 * A replayed response body, each read handed over in its turn. It is its own reader, with
 * what the task reads a body with (`getReader`, `read`, `cancel`, `releaseLock`, `locked`;
 * js/boundary/pump.js), not a `ReadableStream`: nothing but the task reads it, and a stream's
 * machinery per read (a read request, a pull and its promise) made a replay 1.27x the same
 * task with its bodies from memory (benches/wasm/cassette.mjs), 0.97x without.
 */
export class ReplayedBody {
  constructor(sequencer, key, past) {
    this.sequencer = sequencer;
    this.key = key;
    this.past = past;
    this.locked = false;
    /** Null while reads may come; else `DONE` (ended, cancelled) or the recorded error. */
    this.ended = null;
    /** The read waiting for its turn: `{ promise, resolve }`. */
    this.waiting = null;
  }

  getReader() {
    if (this.locked) throw new TypeError("the replayed body is locked to a reader");
    this.locked = true;
    return this;
  }

  releaseLock() {
    this.locked = false;
  }

  read() {
    // NOTE: one read at a time, as a stream's reader queues them.
    if (this.waiting) return this.waiting.promise.then(() => this.read());
    if (this.ended) return this.ended === DONE ? Promise.resolve(DONE) : Promise.reject(this.ended);
    const now = this.sequencer.takeNow(this.key);
    if (now instanceof Uint8Array) return Promise.resolve({ done: false, value: now });
    if (now !== null) return this.#end(now);
    if (!this.sequencer.ahead(this.key)) return this.past();
    let resolve;
    const promise = new Promise((r) => { resolve = r; });
    this.waiting = { promise, resolve };
    this.sequencer.take(this.key).then((event) => {
      if (this.waiting?.promise !== promise) return;
      this.waiting = null;
      resolve(event instanceof Uint8Array ? { done: false, value: event } : this.#end(event));
    });
    return promise;
  }

  /** The body's recorded end: closed, or failed with its error. */
  #end(event) {
    this.ended = event.type === "end" ? DONE : rethrow(event);
    return this.read();
  }

  /** Stops the body (a read waiting ends as done), and drops what the tape has left of it. */
  cancel() {
    if (!this.ended) {
      this.ended = DONE;
      this.sequencer.drop(this.key);
    }
    const waiting = this.waiting;
    this.waiting = null;
    waiting?.resolve(DONE);
    return Promise.resolve();
  }
}
