// clew/cassette: a whole task on tape. `new Task({ ...options, cassette: { mode: "record" } })`
// records every input the task gets (model responses read by read, tool results, answers,
// MCP results, its timer) with their times on the task's clock; `task.cassette()` gives the
// tape, redacted. `cassette: { mode: "replay", data }` answers the task from the tape on a
// virtual clock: the same transcript and history, byte for byte, in a few milliseconds, and
// a typed error that ends the task where it drifts. The main entry never imports this module.
import { Task as BaseTask } from "clew";
import { tapeError, PLACEHOLDER } from "./format.js";
import { tapeFromSse } from "./from-sse.js";
import { Recording } from "./recording.js";
import { Replaying } from "./replaying.js";

export { tapeFromSse as fromSse };
export { tapeModel } from "./tape-model.js";

const MODES = ["record", "replay", "auto"];

/**
 * The agent task, with `options.cassette`: everything `clew`'s `Task` does, plus recording
 * and replaying (`cassette()` gives the tape).
 */
export class Task extends BaseTask {
  #tape;

  constructor(options) {
    const cassette = options && typeof options === "object" ? options.cassette : undefined;
    if (cassette === undefined) {
      super(options);
      return;
    }
    const tape = makeTape(options, cassette);
    super(tape.options);
    this.#tape = tape;
    tape.task = this;
  }

  async start(text, images) {
    const outcome = await super.start(text, images);
    return this.#tape ? this.#tape.finished(outcome) : outcome;
  }

  get outcome() {
    const outcome = super.outcome;
    return this.#tape && outcome ? this.#tape.finished(outcome) : outcome;
  }

  /**
   * The tape: when recording, what happened so far, redacted (a promise: redaction computes
   * the requests' digests); when replaying, the tape being replayed.
   */
  cassette() {
    if (!this.#tape) throw tapeError("CLEW_INVALID_ARGUMENT", "this task has no cassette option");
    return this.#tape.document();
  }
}

function makeTape(options, cassette) {
  if (!cassette || typeof cassette !== "object") throw tapeError("CLEW_INVALID_OPTIONS", "options.cassette must be an object");
  const mode = cassette.mode ?? "auto";
  if (!MODES.includes(mode)) throw tapeError("CLEW_INVALID_OPTIONS", `options.cassette.mode must be one of ${MODES.join(", ")}`);
  if (mode === "replay" && cassette.data == null) throw tapeError("CLEW_INVALID_OPTIONS", "options.cassette.data is required to replay");
  for (const key of ["tools", "asks"]) {
    if (cassette[key] !== undefined && cassette[key] !== "tape" && cassette[key] !== "live") {
      throw tapeError("CLEW_INVALID_OPTIONS", `options.cassette.${key} must be "tape" or "live"`);
    }
  }
  for (const key of ["redact", "ignore"]) {
    if (cassette[key] !== undefined && !(Array.isArray(cassette[key]) && cassette[key].every((p) => typeof p === "string"))) {
      throw tapeError("CLEW_INVALID_OPTIONS", `options.cassette.${key} must be a list of JSON paths (strings)`);
    }
  }
  if (cassette.onDivergence !== undefined && !["fail", "warn"].includes(cassette.onDivergence)) {
    throw tapeError("CLEW_INVALID_OPTIONS", 'options.cassette.onDivergence must be "fail" or "warn"');
  }
  const model = options.model ?? {};
  const { cassette: _, ...rest } = options;
  return mode === "record" || (mode === "auto" && cassette.data == null)
    ? new Recording(rest, model, cassette)
    : new Replaying(rest, model, cassette);
}

export { PLACEHOLDER };
