// Cloudflare Workers (workerd) entry: the runtime imports a .wasm file as a compiled
// WebAssembly.Module; fetching it by URL would not work inside a Worker.
import wasmModule from "./clew_bg.wasm";
import { initSync } from "./clew.js";

initSync({ module: wasmModule });

export * from "./clew.js";
export { AssistantMessageParser } from "./parser.js";
