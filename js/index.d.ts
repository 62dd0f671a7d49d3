// Types of every entry point: the generated bindings, already initialised, with the
// AssistantMessageParser subclass of parser.js.
export * from "./clew.js";
import { AssistantMessageParser as WasmAssistantMessageParser } from "./clew.js";

/**
 * Parses an assistant message as it streams in. After every `push`, `blocks()` equals
 * `parseAssistantMessage` of all the text pushed so far, whatever the chunk boundaries,
 * including a surrogate pair split between two chunks.
 */
export declare class AssistantMessageParser extends WasmAssistantMessageParser {
  /** Ends the stream: a held-back high surrogate is parsed as it is. Returns what `push` returns. */
  finish(): number;
}
