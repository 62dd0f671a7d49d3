// Methods of the wasm classes check that their object is alive before they enter the wasm.
// On a freed object (or on anything but an instance) the generated bindings would throw
// from inside the wasm, and an exception that unwinds through wasm frames leaves a little of
// the instance's stack behind each time, until every call fails. Here it is a TypeError with
// a code instead, and `free()` twice does nothing. scripts/build appends the call to the
// bindings (clew.js), so every entry gets it.
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
