// What scripts/package.mjs wraps the generated bindings in: the classes' liveness checks and
// the V8 workaround for exports that return an externref.

// Methods of the wasm classes check that their object is alive before they enter the wasm:
// on a freed object (or on anything but an instance) the generated bindings would throw from
// inside it. Here that is a TypeError with a code, and `free()` twice does nothing.
const GUARDED = Symbol.for("clew.guarded");

function alive(self, name) {
  if (self === null || typeof self !== "object" || !self.__wbg_ptr) {
    throw Object.assign(new TypeError(`${name}: this object was freed, or is not a ${name}`), { code: "CLEW_FREED" });
  }
}

export function guardClasses(classes) {
  for (const cls of classes) {
    const proto = cls.prototype;
    if (Object.prototype.hasOwnProperty.call(proto, GUARDED)) continue;
    Object.defineProperty(proto, GUARDED, { value: true });
    const name = cls.name;
    for (const key of Object.getOwnPropertyNames(proto)) {
      if (key === "constructor" || key.startsWith("__")) continue;
      const d = Object.getOwnPropertyDescriptor(proto, key);
      if (key === "free") {
        const free = d.value;
        d.value = function free_() {
          if (this !== null && typeof this === "object" && this.__wbg_ptr) free.call(this);
        };
      } else if (typeof d.value === "function") {
        const method = d.value;
        d.value = function (a, b) {
          alive(this, name);
          return method.call(this, a, b);
        };
      } else if (d.get) {
        const get = d.get;
        d.get = function () {
          alive(this, name);
          return get.call(this);
        };
      }
      Object.defineProperty(proto, key, d);
    }
  }
}

// The wasm exports the bindings call, each one that returns a single externref wrapped in a
// Proxy (`refReturning`, their names: scripts/package.mjs reads them from clew_bg.wasm.d.ts). V8
// before 13 (Node 20 and 22, Chromium of that age) inlines a JS->wasm call into the optimized
// JS function that makes it; when that function is deoptimized while the wasm runs (lazily: the
// wasm called back into JS, and that JS or a GC invalidated the optimized code), the
// deoptimizer cannot rebuild the frame for an externref result and aborts the process:
// "Fatal error ... unreachable code" in Deoptimizer::DoComputeBuiltinContinuation (SIGTRAP).
// TurboFan does not inline the call of a Proxy: the wasm is entered through the Call builtin
// (about 20 ns more a call). Every other export, and `memory`, is the instance's own (prototype).
export function clew_wasm_exports(exports, refReturning) {
  const out = Object.create(exports);
  for (const name of refReturning) {
    if (typeof exports[name] === "function") {
      Object.defineProperty(out, name, { value: new Proxy(exports[name], {}), enumerable: true });
    }
  }
  return out;
}
