// The public API of every entry, in one list: the generated bindings without their init
// functions, the parser and assembler subclasses, and the error classes (from the module the bindings use).
export {
  parseAssistantMessage,
  buildRequest,
  modelCost,
  readModelStream,
  sseDecoder,
  StreamDecoder,
  Task,
} from "./clew.js";
export { AssistantMessageParser } from "./parser.js";
import { Task } from "./clew.js";
import { mergeSnapshot } from "__BOUNDARY_MODULE__";

Task.mergeSnapshot = mergeSnapshot;
export { ToolCallAssembler } from "./assembler.js";
export { ClewError, ClewStreamError, ClewTaskError } from "__ERRORS_MODULE__";

/** Resolves once the wasm module is ready; it already is with this entry. */
export const ready = Promise.resolve();
