// A reproduction, without clew, of the V8 bug that js/boundary.js `clew_wasm_exports` works
// around (node v8-deopt-repro.mjs; VIA=proxy calls the export through a Proxy). A hot JS
// function calls a wasm export that returns an externref and that calls back into JS;
// TurboFan optimizes the caller with the wasm call inlined and with the global LIMIT folded
// in as a constant. Near the end the callback changes LIMIT, which invalidates the caller's
// code while the wasm call is on the stack; when the call returns, V8 before 13 (Node 20 and
// 22) cannot rebuild the frame for an externref result: "Fatal error ... unreachable code" in
// Deoptimizer::DoComputeBuiltinContinuation, SIGTRAP, exit code 133. Node 24 survives, and so
// does every version when the call goes through a Proxy, which TurboFan does not inline.
const bytes = new Uint8Array([
  0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, // magic, version
  1, 6, 1, 0x60, 1, 0x6f, 1, 0x6f, // type: (externref) -> externref
  2, 7, 1, 1, 0x6d, 1, 0x66, 0, 0, // import m.f of that type
  3, 2, 1, 0, // one function of that type
  7, 5, 1, 1, 0x67, 0, 1, // export it as g
  10, 8, 1, 6, 0, 0x20, 0, 0x10, 0, 0x0b, // g(x) = f(x)
]);
const N = 200000;
globalThis.LIMIT = 1;
let i = 0;
const f = (x) => {
  if (i === N - 10) globalThis.LIMIT = 2;
  return x;
};
const { exports } = new WebAssembly.Instance(new WebAssembly.Module(bytes), { m: { f } });
const g = process.env.VIA === "proxy" ? new Proxy(exports.g, {}) : exports.g;
function caller(x) {
  return g(x) + LIMIT;
}
let sum = 0;
for (i = 0; i < N; i++) sum += caller(i);
console.log("survived", sum);
