// AssistantMessageParser as the package exports it: the wasm class, plus the one thing a
// string crossing into wasm cannot carry, half of a surrogate pair. A chunk that ends in a
// high surrogate keeps it back and prepends it to the next chunk, so an emoji cut between
// two chunks arrives whole instead of as two U+FFFD.
import { AssistantMessageParser as WasmAssistantMessageParser } from "./clew.js";

export class AssistantMessageParser extends WasmAssistantMessageParser {
  #heldHigh = "";

  /**
   * Appends a chunk of the model's text and parses it. Returns the index of the first
   * block that changed, or the block count when none changed.
   * @param {string} chunk
   * @returns {number}
   */
  push(chunk) {
    if (typeof chunk !== "string") {
      throw Object.assign(new TypeError(`push expects a string, got ${typeof chunk}`), { code: "CLEW_INVALID_ARGUMENT" });
    }
    if (this.#heldHigh) {
      chunk = this.#heldHigh + chunk;
      this.#heldHigh = "";
    }
    const last = chunk.charCodeAt(chunk.length - 1);
    if (last >= 0xd800 && last <= 0xdbff) {
      this.#heldHigh = chunk.slice(-1);
      chunk = chunk.slice(0, -1);
    }
    return super.push(chunk);
  }

  /**
   * Ends the stream: a high surrogate held back from the last chunk is parsed as it is
   * (it becomes U+FFFD). Returns what `push` returns.
   * @returns {number}
   */
  finish() {
    const held = this.#heldHigh;
    this.#heldHigh = "";
    return held ? super.push(held) : this.length;
  }
}
