// Entry with the wasm inlined as base64 and compiled synchronously: nothing to fetch and no
// top-level await, so it works in any bundle (Rollup, esbuild's iife, server bundles) and in
// Node. `clew/inline`, and the `node` and `import` conditions, resolve here.
import { initSync } from "./clew.js";
import wasmBase64 from "./clew_wasm_base64.js";
import { clew_mcp_import } from "__BOUNDARY_MODULE__";

function decode(text) {
  if (typeof Uint8Array.fromBase64 === "function") return Uint8Array.fromBase64(text);
  if (typeof Buffer === "function") return new Uint8Array(Buffer.from(text, "base64"));
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

initSync({ module: decode(wasmBase64) });
// A task with MCP servers imports clew's MCP support from beside this module, hidden from
// bundlers (a bundle stays one chunk; an application that bundles MCP imports "clew/mcp"):
// the specifier comes from boundary/options.js, so no bundler resolves it, and a relative import()
// resolves against this module (no `import.meta`, which iife and CommonJS bundles lack).
clew_mcp_import((specifier) => import(/* webpackIgnore: true */ /* @vite-ignore */ specifier));

export * from "./api.js";
