// Browser and bundler entry: fetches and instantiates the wasm file beside this module
// (bundlers turn the URL into an asset), with top-level await so imports are ready to use.
import init from "./clew.js";

await init({ module_or_path: new URL("./clew_bg.wasm", import.meta.url) });

export * from "./clew.js";
export { AssistantMessageParser } from "./parser.js";
