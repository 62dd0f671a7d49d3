// ToolCallAssembler as the package exports it: the wasm class, plus the one thing a string
// crossing into wasm cannot carry, half of a surrogate pair. When a piece's arguments end in
// a high surrogate, it is kept back and put before that call's next piece, so an emoji cut
// between two pieces arrives whole instead of as two U+FFFD.
import { ToolCallAssembler as WasmToolCallAssembler } from "./clew.js";

export class ToolCallAssembler extends WasmToolCallAssembler {
  #held = new Map();

  /**
   * Adds a `tool_calls` chunk (or its `tool_call` object); returns the index of its call.
   * @param {object} chunk
   * @returns {number}
   */
  push(chunk) {
    let call, fn, args;
    try {
      call = chunk !== null && typeof chunk === "object" && chunk.tool_call !== null && typeof chunk.tool_call === "object" ? chunk.tool_call : chunk;
      fn = call.function;
      args = fn.arguments;
    } catch {
      return super.push(chunk);
    }
    if (typeof args !== "string") return super.push(chunk);
    const key = typeof fn.id === "string" ? fn.id : typeof call.call_id === "string" ? call.call_id : "";
    let text = (this.#held.get(key) ?? "") + args;
    this.#held.delete(key);
    const last = text.charCodeAt(text.length - 1);
    if (last >= 0xd800 && last <= 0xdbff) {
      this.#held.set(key, text.slice(-1));
      text = text.slice(0, -1);
    }
    return super.push({ call_id: call.call_id, function: { id: fn.id, name: fn.name, arguments: text } });
  }
}
