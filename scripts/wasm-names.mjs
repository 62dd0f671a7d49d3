// Build step (scripts/package.mjs): gives the wasm's hashed import and export names short ones, in
// the module and in its bindings alike.
//
// wasm-bindgen names each function the wasm imports `__wbg_<name>_<16 hex digits>` and each
// closure shim it exports `wasm_bindgen__convert__closures_____invoke__h<16 hex digits>`: about
// 90 names of 30 to 60 bytes whose hashes do not compress, written once in the wasm and again
// in the bindings. Renamed `w<n>` (imports) and `k<n>` (exports), the browser entry is about
// 2 KB smaller gzipped. Every other name (the public exports, `memory`, wasm-bindgen's own
// helpers) is kept.

/** Reads an unsigned LEB128 number at `at`: [value, next offset]. */
function leb(bytes, at) {
  let value = 0, shift = 0, byte;
  do {
    byte = bytes[at++];
    value += (byte & 0x7f) * 2 ** shift;
    shift += 7;
  } while (byte & 0x80);
  return [value, at];
}

/** An unsigned LEB128 number's bytes. */
function lebBytes(value) {
  const out = [];
  do {
    let byte = value % 128;
    value = Math.floor(value / 128);
    if (value) byte |= 0x80;
    out.push(byte);
  } while (value);
  return out;
}

const text = new TextDecoder();
const utf8 = new TextEncoder();
const nameBytes = (name) => { const b = utf8.encode(name); return [...lebBytes(b.length), ...b]; };

/** The end of a table's or memory's limits at `at`: flags, minimum, maximum if flagged. */
function skipLimits(bytes, at) {
  const [flags, next] = leb(bytes, at);
  const afterMin = leb(bytes, next)[1];
  return flags & 1 ? leb(bytes, afterMin)[1] : afterMin;
}

/** The end of an import's or export's description at `at`, by its kind byte. */
function skipDescription(bytes, kind, at) {
  switch (kind) {
    case 0: return leb(bytes, at)[1];                        // function: type index
    case 1: return skipLimits(bytes, at + 1);                // table: element type, limits
    case 2: return skipLimits(bytes, at);                    // memory: limits
    case 3: return at + 2;                                   // global: value type, mutability
    case 4: return leb(bytes, at + 1)[1];                    // tag: attribute, type index
    default: throw new Error(`[build] wasm import or export of unknown kind ${kind}`);
  }
}

/**
 * Renames, in the wasm module `wasm` (a Uint8Array), every import named by `renameImport(module,
 * name)` and every export named by `renameExport(name)` (each returns the new name or
 * undefined); returns the new module's bytes.
 */
function renameInModule(wasm, renameImport, renameExport) {
  const parts = [wasm.subarray(0, 8)];
  let at = 8;
  while (at < wasm.length) {
    const id = wasm[at];
    const [size, start] = leb(wasm, at + 1);
    const end = start + size;
    if (id !== 2 && id !== 7) {
      parts.push(wasm.subarray(at, end));
      at = end;
      continue;
    }
    const body = [];
    let [count, p] = leb(wasm, start);
    body.push(...lebBytes(count));
    for (let i = 0; i < count; i++) {
      let module;
      if (id === 2) {
        const [length, q] = leb(wasm, p);
        module = text.decode(wasm.subarray(q, q + length));
        body.push(...wasm.subarray(p, q + length));
        p = q + length;
      }
      const [length, q] = leb(wasm, p);
      const name = text.decode(wasm.subarray(q, q + length));
      const renamed = id === 2 ? renameImport(module, name) : renameExport(name);
      body.push(...nameBytes(renamed ?? name));
      p = q + length;
      const kind = wasm[p];
      const after = id === 2 ? skipDescription(wasm, kind, p + 1) : leb(wasm, p + 1)[1];
      body.push(...wasm.subarray(p, after));
      p = after;
    }
    if (p !== end) throw new Error(`[build] wasm section ${id} has ${end - p} bytes past its entries`);
    parts.push(Uint8Array.from([id, ...lebBytes(body.length), ...body]));
    at = end;
  }
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

/**
 * Shortens the hashed names of `wasm` (the module's bytes) and of `glue` (its bindings' text,
 * before minification); returns `{ wasm, glue, exportNames }` (`exportNames` maps each
 * renamed export's old name to its new one). Throws when a name to rename is not
 * in the bindings exactly where expected, so that a new wasm-bindgen cannot break the package
 * quietly.
 */
export function shortenWasmNames(wasm, glue) {
  const imports = new Map(), exports = new Map();
  const renamed = renameInModule(
    wasm,
    (module, name) => {
      if (module !== "./clew_bg.js" || !/^__wbg_\w+_[0-9a-f]{16}$|^__wbindgen_generic_\d+$/.test(name)) return undefined;
      const short = `w${imports.size}`;
      imports.set(name, short);
      return short;
    },
    (name) => {
      if (!/^wasm_bindgen__convert__closures_+invoke__h[0-9a-f]{16}$/.test(name)) return undefined;
      const short = `k${exports.size}`;
      exports.set(name, short);
      return short;
    },
  );
  if (!imports.size) throw new Error("[build] no hashed wasm-bindgen import found in the wasm");
  for (const [name, short] of imports) {
    // The import object's key: `name: function(…) {…}`, once.
    const key = new RegExp(`^(\\s*)${name}:`, "gm");
    const found = glue.match(key)?.length ?? 0;
    if (found !== 1) throw new Error(`[build] the import ${name} is a key of the bindings ${found} times, not once`);
    if (new RegExp(`\\b${name}\\b`).test(glue.replace(key, ""))) throw new Error(`[build] ${name} is named elsewhere in the bindings`);
    glue = glue.replace(key, `$1${short}:`);
  }
  // An export is called as `wasm.<name>` from a local function of the same name: both take
  // the short name (a property and a binding, which cannot clash).
  if (/\bk\d+\b/.test(glue)) throw new Error("[build] the bindings already use a name k<n>");
  for (const [name, short] of exports) {
    if (!glue.includes(`wasm.${name}(`)) throw new Error(`[build] the export ${name} is not called in the bindings`);
    glue = glue.replace(new RegExp(`\\b${name}\\b`, "g"), short);
  }
  return { wasm: renamed, glue, exportNames: exports };
}
