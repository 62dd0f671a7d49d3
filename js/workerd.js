// Cloudflare Workers (workerd) entry: the runtime
// imports a .wasm file as a compiled WebAssembly.Module; compiling bytes at run time is not
// allowed there.
import wasmModule from "./clew_bg.wasm";
import { initSync } from "./clew.js";

initSync({ module: wasmModule });

export * from "./api.js";
