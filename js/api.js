// The public API of every entry, in one list: the generated bindings without their init
// functions, with the parser and assembler subclasses (js/parser.js, js/assembler.js, which
// the build bundles into clew.js), and the error classes (from the module the bindings use).
export {
  parseAssistantMessage,
  buildRequest,
  modelCost,
  readModelStream,
  sseDecoder,
  StreamDecoder,
  Task,
  AssistantMessageParser,
  ToolCallAssembler,
} from "./clew.js";
export { ClewError, ClewStreamError, ClewTaskError } from "__ERRORS_MODULE__";

/** Resolves once the wasm module is ready; it already is with this entry. */
export const ready = Promise.resolve();
