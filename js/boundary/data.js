// Plain data across the boundary (src/wasm/json_js.rs, src/wasm/blocks_js.rs): a value
// written as JSON text without an exception reaching wasm, and a member defined on an object.

export function clew_stringify(value) {
  let bad = null;
  try {
    const text = JSON.stringify(value, function (key, v) {
      if (typeof v === 'number' && !Number.isFinite(v) && bad === null) bad = key;
      return v;
    });
    if (bad !== null) return { bad };
    return typeof text === 'string' ? text : { error: 'is not plain data' };
  } catch (error) {
    return { error: 'cannot be written as JSON (' + String(error && error.message || error) + ')' };
  }
}

export function clew_define(object, key, value) {
  Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
}
