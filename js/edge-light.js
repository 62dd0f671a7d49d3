// Vercel and Next.js edge (edge-light) entry: `.wasm?module` is how an edge function imports a
// compiled WebAssembly.Module (Next's webpack next-middleware-wasm-loader, and Turbopack).
import wasmModule from "./clew_bg.wasm?module";
import { initSync } from "./clew.js";

// Next's local edge sandbox (next start, next dev) compiles the module in Node's realm and
// runs this code in a vm context with its own WebAssembly, so `instanceof WebAssembly.Module`
// (which initSync checks) is false: give the module this realm's prototype.
initSync({ module: wasmModule instanceof WebAssembly.Module ? wasmModule : Object.setPrototypeOf(wasmModule, WebAssembly.Module.prototype) });

export * from "./api.js";
