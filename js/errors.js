// The package's error classes. The wasm module creates its errors from these classes (this
// file is imported by the generated bindings), and every entry exports them, so `instanceof`
// works in user code.

/** An error of clew, with a stable `code`. */
export class ClewError extends Error {
  constructor(message, code) {
    super(message);
    this.name = "ClewError";
    this.code = code;
  }
}

/** A model stream failed: its HTTP response, its framing, or its content. */
export class ClewStreamError extends ClewError {
  constructor(message, code) {
    super(message, code);
    this.name = "ClewStreamError";
  }
}

/** Why a task did not complete (`outcome.error`), or a misuse of a Task. */
export class ClewTaskError extends ClewError {
  constructor(message, code) {
    super(message, code);
    this.name = "ClewTaskError";
  }
}
