// clew/cassette's tape: the document's format and its checks, redaction, the requests'
// canonical form and digest, the first difference between two requests, and a provider's
// SSE body turned into a one-round tape.

/** The format's name and the version this release writes (and the newest it reads). */
export const FORMAT = "clew-cassette";
export const VERSION = 2;

/** A `TypeError` with a `code`, like the rest of the package's argument errors. */
export function tapeError(code, message) {
  return Object.assign(new TypeError(message), { code });
}

/** A recorded error (`{ message, name }`), made an error again to throw. */
export const rethrow = (e) => Object.assign(new Error(e.message), { name: e.name });

/**
 * A recorded response whose body was never read (none, or the task did not read it), replayed
 * without one: a null-body status (204, 304) takes no body at all. Null for any other response.
 */
export function unreadResponse(response) {
  const reads = Array.isArray(response.reads) ? response.reads.length : response.reads.n.length;
  return response.stream || response.end || reads ? null : new Response(null, { status: response.status, headers: response.headers ?? {} });
}

// ---- bytes ----

const encoder = new TextEncoder();
// NOTE: `ignoreBOM` keeps a leading byte order mark in the text (it is one of the body's bytes).
const strict = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** Bytes as a binary string (one char per byte). */
const binary = (bytes) => {
  let s = "";
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return s;
};

/** A binary string's bytes. */
const unbinary = (text) => {
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  return bytes;
};

/** Bytes as the tape keeps them: `text` when they are UTF-8, else `base64`. */
export function readOf(bytes) {
  try {
    return { text: strict.decode(bytes) };
  } catch {
    return { base64: btoa(binary(bytes)) };
  }
}

/** The bytes of a tape's `{ text }` or `{ base64 }`. */
export function bytesOf(read) {
  return typeof read.text === "string" ? encoder.encode(read.text) : unbinary(atob(read.base64));
}

/** A body's reads as one array. */
export function concat(chunks) {
  const bytes = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const chunk of chunks) { bytes.set(chunk, at); at += chunk.length; }
  return bytes;
}

/**
 * One buffer for the text bodies of `responses` (version 2), each slot its reads' total
 * length: encoding them into it is several times quicker than one `encode` each. Gives each
 * response's slot (undefined for a body that goes its own way).
 */
export function bodyPool(responses) {
  const slots = new Map();
  let total = 0;
  for (const response of responses) {
    if (Array.isArray(response.reads) || typeof response.text !== "string") continue;
    let size = 0;
    for (const length of response.reads.bytes) size += length;
    // NOTE: a body that cannot be that long is left to `BodyReads` to report.
    if (size > response.text.length * 3) continue;
    slots.set(response, [total, size]);
    total += size;
  }
  const pool = new Uint8Array(total);
  return (response) => {
    const slot = slots.get(response);
    return slot && pool.subarray(slot[0], slot[0] + slot[1]);
  };
}

/**
 * A replayed body's reads. The tape keeps a body whole (`text`, or `base64` when it is not
 * UTF-8) with its reads' orders, times and byte lengths side by side (`reads: { n, at,
 * bytes }`, version 2); version 1 kept each read as an object of its own. `piece(i)` is read
 * `i`'s bytes. (Bytes, not text: the task's read loop copies bytes into the wasm with one
 * `set`, where text is encoded character by character.)
 */
export class BodyReads {
  /**
   * @param {object} response a response of the tape (checked by `readTape`)
   * @param {string} where its place, for the error when its reads do not add up to its body
   * @param {Uint8Array} [into] where to encode a text body (see `bodyPool`)
   */
  constructor(response, where, into) {
    const reads = response.reads;
    if (Array.isArray(reads)) {
      this.n = reads.map((r) => r.n);
      this.at = reads.map((r) => r.at);
      this.list = reads;
      return;
    }
    this.n = reads.n;
    this.at = reads.at;
    this.ends = [];
    let end = 0;
    for (const length of reads.bytes) this.ends.push(end += length);
    const text = response.text;
    if (into && into.length === end && typeof text === "string") {
      const { read, written } = encoder.encodeInto(text, into);
      this.bytes = read === text.length && written === end ? into : null;
    } else {
      this.bytes = bytesOf(response);
      if (this.bytes.length !== end) this.bytes = null;
    }
    if (!this.bytes) {
      throw tapeError("CLEW_INVALID_CASSETTE", `the cassette's ${where}.reads.bytes add up to ${end} bytes, the body has ${bytesOf(response).length}`);
    }
  }

  get length() {
    return this.n.length;
  }

  /** Read `i`: a view of the body's bytes (the task copies what it reads; nothing keeps or transfers it). */
  piece(i) {
    if (this.list) return bytesOf(this.list[i]);
    return this.bytes.subarray(i ? this.ends[i - 1] : 0, this.ends[i]);
  }
}

// ---- canonical JSON and digest ----

/** `value` as JSON with every object's keys sorted, leaving out the paths `ignored` matches. */
export function canonical(value, ignored = () => false, path = "$") {
  if (Array.isArray(value)) return "[" + value.map((v, i) => canonical(v, ignored, `${path}[${i}]`)).join(",") + "]";
  if (value && typeof value === "object") {
    const keys = Object.keys(value).sort().filter((k) => value[k] !== undefined && !ignored(`${path}.${k}`));
    return "{" + keys.map((k) => JSON.stringify(k) + ":" + canonical(value[k], ignored, `${path}.${k}`)).join(",") + "}";
  }
  return JSON.stringify(value) ?? "null";
}

/** A request body's digest: of its canonical form (keys sorted) without the paths `ignored` matches. */
export function requestDigest(body, ignored) {
  return digest(canonical(body, ignored));
}

/** `sha256:<hex>` of `text` (Web Crypto: every runtime clew runs in). */
export async function digest(text) {
  if (!globalThis.crypto?.subtle) throw tapeError("CLEW_INVALID_CASSETTE", "a cassette needs Web Crypto (crypto.subtle) for its digests");
  const hash = new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(text)));
  return "sha256:" + Array.from(hash, (b) => b.toString(16).padStart(2, "0")).join("");
}

// ---- paths ----

/**
 * A matcher for JSON paths such as `$.metadata.user_id` or `$.messages[*].content`
 * (`$.` may be left out; `*` is any key or index).
 */
export function pathMatcher(patterns = []) {
  const split = (p) => String(p).replace(/^\$\.?/, "").replace(/\[(\d+|\*)\]/g, ".$1").split(".").filter(Boolean);
  const compiled = patterns.map(split);
  if (!compiled.length) return () => false;
  return (path) => {
    const parts = split(path);
    return compiled.some((pattern) => pattern.length === parts.length && pattern.every((p, i) => p === "*" || p === parts[i]));
  };
}

// ---- redaction ----

/** Keys whose string values are ids, signatures or encrypted reasoning in the four formats. */
const SECRET_KEYS = new Set([
  "id", "call_id", "tool_use_id", "tool_call_id", "item_id", "response_id", "responseId", "previous_response_id",
  "signature", "encrypted_content", "thoughtSignature", "thought_signature", "user",
]);
/** What a placeholder looks like (the same one everywhere the value was). */
export const PLACEHOLDER = /^redacted-\d+$/;

function isSecret(key, holder, path, extra) {
  if (extra(path)) return true;
  if (SECRET_KEYS.has(key)) return true;
  // NOTE: Anthropic's redacted thinking carries its encrypted text in `data`.
  return key === "data" && holder && holder.type === "redacted_thinking";
}

/** Every secret string in `value` (a parsed JSON body or event), by walking it. */
function collectSecrets(value, found, extra, path = "$") {
  if (Array.isArray(value)) value.forEach((v, i) => collectSecrets(v, found, extra, `${path}[${i}]`));
  else if (value && typeof value === "object") {
    for (const [key, v] of Object.entries(value)) {
      const at = `${path}.${key}`;
      if (typeof v === "string" && v !== "" && !PLACEHOLDER.test(v) && isSecret(key, value, at, extra)) found(v);
      else collectSecrets(v, found, extra, at);
    }
  }
}

/** The JSON values of an SSE body (each `data:` line) or of a JSON-lines body. */
function bodyEvents(text) {
  const events = [];
  for (const line of text.split(/\r?\n/)) {
    const data = line.startsWith("data:") ? line.slice(5).trim() : line.trim();
    if (!data.startsWith("{") && !data.startsWith("[")) continue;
    try { events.push(JSON.parse(data)); } catch {}
  }
  return events;
}

/** `value` with each secret (a string under a secret key or path) that `map` holds replaced. */
function replaceSecrets(value, map, extra, path = "$") {
  if (Array.isArray(value)) return value.map((v, i) => replaceSecrets(v, map, extra, `${path}[${i}]`));
  if (!value || typeof value !== "object") return value;
  const out = {};
  for (const [key, v] of Object.entries(value)) {
    const at = `${path}.${key}`;
    // NOTE: defined, not assigned: a key "__proto__" (a model's tool arguments may have one)
    // stays a key.
    Object.defineProperty(out, key, {
      value: typeof v === "string" && map.has(v) && isSecret(key, value, at, extra) ? map.get(v) : replaceSecrets(v, map, extra, at),
      enumerable: true, writable: true, configurable: true,
    });
  }
  return out;
}

/** A JSON member whose value is a string: its key, and where the string's inside starts and ends. */
const MEMBER = /"(\w+)"\s*:\s*"((?:[^"\\]|\\.)*)"/g;

/**
 * A response with each secret `map` holds replaced in its body where it is the value of a
 * secret key; a read boundary inside a replaced value moves to the value's end, so the reads
 * keep their number and roughly their boundaries.
 */
function redactBody(response, map) {
  if (!map.size || !response.reads.bytes.length) return response;
  const whole = binary(bytesOf(response));
  const hits = [];
  for (const match of whole.matchAll(MEMBER)) {
    if (!SECRET_KEYS.has(match[1])) continue;
    let value;
    try { value = JSON.parse(`"${new TextDecoder().decode(unbinary(match[2]))}"`); } catch { continue; }
    const to = map.get(value);
    if (to === undefined) continue;
    const end = match.index + match[0].length - 1;
    hits.push({ from: end - match[2].length, to: end, text: binary(encoder.encode(to)) });
  }
  if (!hits.length) return response;
  let text = "", at = 0;
  for (const hit of hits) { text += whole.slice(at, hit.from) + hit.text; at = hit.to; }
  text += whole.slice(at);
  const lengths = [];
  let end = 0, moved = 0, h = 0, last = 0;
  for (const length of response.reads.bytes) {
    end += length;
    while (h < hits.length && hits[h].to <= end) { moved += hits[h].text.length - (hits[h].to - hits[h].from); h++; }
    const inside = h < hits.length && hits[h].from < end;
    const now = inside ? hits[h].from + moved + hits[h].text.length : end + moved;
    lengths.push(now - last);
    last = now;
  }
  const { text: _, base64: __, ...rest } = response;
  return { ...rest, ...readOf(unbinary(text)), reads: { ...response.reads, bytes: lengths } };
}

/**
 * The tape with every secret replaced: the API key and the user's `redact` paths, and every
 * id, signature and encrypted reasoning value of the requests and responses, each distinct
 * value by the same `redacted-<n>` everywhere (so call ids still pair, and a request made
 * from a redacted response matches its recorded digest). Request digests are computed here,
 * after redaction, leaving out the user's `ignore` paths.
 */
export async function redactTape(tape, { apiKey, redact = [], ignore = [] }) {
  // NOTE: the key is never sent in a body; should a model or a tool repeat it, it goes too.
  if (typeof apiKey === "string" && apiKey.length >= 8) {
    tape = JSON.parse(JSON.stringify(tape).replaceAll(JSON.stringify(apiKey).slice(1, -1), "redacted-key"));
  }
  const extra = pathMatcher(redact);
  const ignored = pathMatcher(ignore);
  const map = new Map();
  const found = (v) => { if (!map.has(v)) map.set(v, `redacted-${map.size + 1}`); };
  const decoder = new TextDecoder();
  for (const entry of tape.interactions) {
    if (entry.type === "request") {
      collectSecrets(entry.body, found, extra);
      const text = entry.response ? decoder.decode(bytesOf(entry.response)) : "";
      for (const event of bodyEvents(text)) collectSecrets(event, found, () => false);
      // NOTE: an event cut by a failed body does not parse; its complete values still go.
      for (const [, key, raw] of text.matchAll(MEMBER)) {
        if (!SECRET_KEYS.has(key)) continue;
        try { const v = JSON.parse(`"${raw}"`); if (v && !PLACEHOLDER.test(v)) found(v); } catch {}
      }
    }
  }
  const interactions = [];
  let previous = null;
  for (const entry of tape.interactions) {
    // NOTE: tool calls, asks and MCP calls are kept as they were (their ids are not the model's).
    if (entry.type !== "request") { interactions.push(entry); continue; }
    const body = replaceSecrets(entry.body, map, extra);
    const out = { ...entry, body: shareWith(previous, body), digest: await requestDigest(body, ignored) };
    if (body !== null) previous = body;
    if (entry.response) out.response = redactBody(entry.response, map);
    interactions.push(out);
  }
  return { ...tape, interactions };
}

// ---- request bodies that share items with the previous one ----

/**
 * What a tape keeps of a request body: each top-level array (the conversation: `messages`,
 * `input`, `contents`) whose first items are the previous request's starts with
 * `{ "$previous": n }` in their place, so a task's tape grows with its conversation, not with
 * its square. The digest is of the whole body.
 */
function shareWith(previous, body) {
  if (!previous || !body || typeof body !== "object" || Array.isArray(body)) return body;
  const out = { ...body };
  for (const [key, items] of Object.entries(body)) {
    const before = previous[key];
    if (!Array.isArray(items) || !Array.isArray(before)) continue;
    let same = 0;
    while (same < items.length && same < before.length && JSON.stringify(items[same]) === JSON.stringify(before[same])) same++;
    if (same > 0) out[key] = [{ $previous: same }, ...items.slice(same)];
  }
  return out;
}

const isShared = (items) => Array.isArray(items) && items[0] && typeof items[0] === "object" && Number.isInteger(items[0].$previous);

/**
 * The requests' whole bodies, in order, from their kept form; and, for the replay's quick
 * check, each body's JSON text as clew writes it, made from its items' texts (an item kept
 * from the previous request keeps its text).
 */
export class RequestBodies {
  constructor(entries) {
    this.bodies = [];
    this.texts = [];
    let previous = null;
    for (const [i, entry] of entries.entries()) {
      let body = entry?.body ?? null;
      if (body && typeof body === "object" && !Array.isArray(body)) {
        const whole = { ...body };
        for (const [key, items] of Object.entries(body)) {
          // NOTE: a member the same as the last request's is that very value (see `matches`).
          if (!Array.isArray(items) && previous && key in previous && typeof items === "object" && JSON.stringify(items) === JSON.stringify(previous[key])) {
            whole[key] = previous[key];
          }
          if (!isShared(items)) continue;
          const before = previous?.[key];
          if (!Array.isArray(before) || items[0].$previous > before.length) {
            throw tapeError("CLEW_INVALID_CASSETTE", `the cassette's request ${i} keeps ${items[0].$previous} items of ${key} from a request that has fewer`);
          }
          whole[key] = [...before.slice(0, items[0].$previous), ...items.slice(1)];
        }
        body = whole;
      }
      this.bodies.push(body);
      if (body && typeof body === "object" && !Array.isArray(body)) previous = body;
    }
  }

  /** Request `i`'s whole body. */
  body(i) {
    return this.bodies[i] ?? null;
  }

  /**
   * Whether `text` is request `i`'s JSON text as `JSON.stringify` writes it, compared piece
   * by piece without making the whole text: each array item's text is written once across
   * requests (call in order: each request reuses the last one's items).
   */
  matches(i, text) {
    const body = this.bodies[i];
    if (body === null || typeof body !== "object" || Array.isArray(body)) return text === JSON.stringify(body);
    const last = this.lastItems ?? {};
    const items = {};
    const replaced = {};
    const arrays = [];
    const members = [];
    for (const [key, value] of Object.entries(body)) {
      members.push(key, value);
      if (!Array.isArray(value)) { replaced[key] = value; continue; }
      const before = last[key] ?? { values: [], texts: [], at: -1 };
      // NOTE: the first items the last request had too (the same objects) are one run.
      let shared = 0;
      while (shared < value.length && before.values[shared] === value[shared]) shared++;
      const texts = value.map((item, j) => (j < shared ? before.texts[j] : JSON.stringify(item)));
      const entry = { values: value, texts, at: -1, before, shared };
      items[key] = entry;
      arrays.push(entry);
      replaced[key] = MARK;
    }
    this.lastItems = items;
    // NOTE: the members around the arrays are written again only when one of them changed.
    const cached = this.lastParts;
    const same = cached && cached.members.length === members.length &&
      cached.members.every((m, j) => m === members[j] || (j % 2 === 1 && Array.isArray(m) && Array.isArray(members[j])));
    const parts = same ? cached.parts : JSON.stringify(replaced).split(MARK_TEXT);
    this.lastParts = { members, parts };
    const lastText = this.lastText;
    this.lastText = text;
    // NOTE: a slice compared with `===` is several times quicker in V8 than `startsWith` at an
    // offset. The items shared with the last request are compared in one slice with where
    // they were in its text (which matched its recording); the rest one by one.
    let at = 0;
    for (let j = 0; j < parts.length; j++) {
      const part = parts[j];
      if (text.slice(at, at + part.length) !== part) return false;
      at += part.length;
      if (j === parts.length - 1) break;
      const entry = arrays[j];
      const texts = entry.texts;
      if (text[at] !== "[") return false;
      at++;
      entry.at = at;
      let k = 0;
      if (entry.shared > 1 && lastText !== undefined && entry.before.at >= 0) {
        let length = entry.shared - 1;
        for (let m = 0; m < entry.shared; m++) length += texts[m].length;
        const from = entry.before.at;
        if (text.slice(at, at + length) !== lastText.slice(from, from + length)) return false;
        at += length;
        k = entry.shared;
      }
      for (; k < texts.length; k++) {
        if (k > 0) {
          if (text[at] !== ",") return false;
          at++;
        }
        const item = texts[k];
        if (text.slice(at, at + item.length) !== item) return false;
        at += item.length;
      }
      if (text[at] !== "]") return false;
      at++;
    }
    return at === text.length;
  }
}

/** What stands for an array while a body's other members are written (see `matches`). */
const MARK = "\u0000clew-items\u0000";
const MARK_TEXT = JSON.stringify(MARK);


// ---- comparing a request with its recording ----

const shorten = (value) => {
  const text = value === undefined ? "(absent)" : JSON.stringify(value);
  return text.length > 80 ? text.slice(0, 77) + "..." : text;
};

/**
 * The first place where `actual` (the request the task makes) differs from `recorded` (its
 * redacted recording), or null. A placeholder in the recording matches any string that
 * stands for the same value everywhere (`bindings`); paths `ignored` matches are skipped.
 */
export function firstDifference(recorded, actual, ignored, bindings, path = "$") {
  if (ignored(path)) return null;
  if (typeof recorded === "string" && (PLACEHOLDER.test(recorded) || recorded === "redacted-key") && typeof actual === "string") {
    if (actual === recorded) return null;
    const bound = bindings.get(recorded);
    if (bound === undefined) { bindings.set(recorded, actual); return null; }
    if (bound === actual) return null;
  }
  const kind = (v) => (Array.isArray(v) ? "array" : v === null ? "null" : typeof v);
  if (kind(recorded) !== kind(actual)) return { path, recorded: shorten(recorded), actual: shorten(actual) };
  if (Array.isArray(recorded)) {
    for (let i = 0; i < Math.max(recorded.length, actual.length); i++) {
      const d = firstDifference(recorded[i], actual[i], ignored, bindings, `${path}[${i}]`);
      if (d) return d;
    }
    return null;
  }
  if (recorded && typeof recorded === "object") {
    const keys = [...new Set([...Object.keys(recorded), ...Object.keys(actual)])].sort();
    for (const key of keys) {
      const d = firstDifference(recorded[key], actual[key], ignored, bindings, `${path}.${key}`);
      if (d) return d;
    }
    return null;
  }
  if (recorded === actual) return null;
  if (typeof recorded === "string" && typeof actual === "string") {
    // NOTE: two long texts are shown from a little before where they part.
    let same = 0;
    while (same < recorded.length && recorded[same] === actual[same]) same++;
    const from = Math.max(0, same - 20);
    const part = (s) => (from ? "..." : "") + shorten(s.slice(from));
    return { path, recorded: part(recorded), actual: part(actual) };
  }
  return { path, recorded: shorten(recorded), actual: shorten(actual) };
}

/**
 * Compares each request the task makes with its recording, in order: the tape's request
 * entries, and the paths left out of the comparison. One writer of "is this the recorded
 * request" for the replay and for `tapeModel`.
 */
export class RequestMatcher {
  /**
   * @param {object[]} entries the tape's request entries, in order (checked by `readTape`)
   * @param {string[]} ignore JSON paths left out of the comparison
   */
  constructor(entries, ignore) {
    this.entries = entries;
    this.bodies = new RequestBodies(entries);
    this.ignored = pathMatcher(ignore);
    this.ignoreCount = ignore.length;
    /** What each placeholder of the tape stands for in this run (the first value it met). */
    this.bindings = new Map();
  }

  /**
   * Where request `call`'s body `text` differs from its recording: null when it does not (a
   * recording of null matches any request), else `{ path, recorded, actual }`, or a promise
   * of either when only the digest can tell (a request that holds values the tape redacted).
   * Call in order (see `RequestBodies.matches`).
   */
  check(call, text) {
    const entry = this.entries[call];
    const recorded = this.bodies.body(call);
    // NOTE: the usual case, the same bytes as recorded, is one comparison of two strings;
    // only a request that differs is parsed and walked (for its first difference, or for
    // values the tape redacted that this request holds as they are).
    if (recorded === null || (!this.ignoreCount && this.bodies.matches(call, text))) return null;
    let body;
    try { body = JSON.parse(text); } catch { body = text; }
    const d = firstDifference(recorded, body, this.ignored, this.bindings);
    if (d || !entry?.digest) return d;
    const swapped = new Map([...this.bindings].map(([placeholder, value]) => [value, placeholder]));
    const redacted = JSON.parse(JSON.stringify(body), (_, v) => (typeof v === "string" ? swapped.get(v) ?? v : v));
    return requestDigest(redacted, this.ignored).then((now) => (now === entry.digest ? null : { path: "digest", recorded: entry.digest, actual: now }));
  }
}

// ---- checking a tape ----

const isBase64 = (v) => typeof v === "string" && v.length % 4 === 0 && /^[A-Za-z0-9+/]*={0,2}$/.test(v);

/**
 * Checks a version 2 response's body (`text` or `base64`) and its reads' columns. (That the
 * reads add up to the body is checked by `BodyReads`, which has its bytes.)
 */
function checkReads(response, where, bad) {
  if (typeof response.text !== "string" && !isBase64(response.base64)) bad(where, "needs the body as text, or base64");
  const reads = response.reads;
  if (!reads || typeof reads !== "object" || !["n", "at", "bytes"].every((k) => Array.isArray(reads[k]))) {
    bad(`${where}.reads`, "must be { n, at, bytes }, three arrays");
  }
  const count = reads.n.length;
  if (reads.at.length !== count || reads.bytes.length !== count) bad(`${where}.reads`, "needs n, at and bytes of one length");
  for (let j = 0; j < count; j++) {
    const n = reads.n[j], at = reads.at[j], bytes = reads.bytes[j];
    if (!Number.isSafeInteger(n) || n < 0 || !Number.isFinite(at) || at < 0 || at > 1e15) bad(`${where}.reads[${j}]`, "needs an order n and a time at (ms from the start)");
    if (!Number.isSafeInteger(bytes) || bytes < 0) bad(`${where}.reads.bytes[${j}]`, "must be a byte count");
  }
}

/** Checks a tape (object or JSON text) before replaying it; a `TypeError` naming the place if it is not one. */
export function readTape(data) {
  let tape = data;
  if (typeof tape === "string") {
    try { tape = JSON.parse(tape); } catch (e) { throw tapeError("CLEW_INVALID_CASSETTE", `the cassette is not JSON: ${e.message}`); }
  }
  const bad = (where, what) => { throw tapeError("CLEW_INVALID_CASSETTE", `the cassette's ${where} ${what}`); };
  if (!tape || typeof tape !== "object" || Array.isArray(tape)) bad("data", "must be an object or its JSON text");
  if (tape.format !== FORMAT) bad("format", `must be "${FORMAT}"`);
  if (!Number.isInteger(tape.version) || tape.version < 1) bad("version", "must be a positive integer");
  if (tape.version > VERSION) {
    throw tapeError("CLEW_CASSETTE_VERSION", `the cassette is format version ${tape.version}, written by a later clew (${tape.clew}); this one reads up to ${VERSION}`);
  }
  if (!tape.model || typeof tape.model.format !== "string") bad("model.format", "must be a string");
  if (!Number.isSafeInteger(tape.startedAt) || tape.startedAt < 0) bad("startedAt", "must be a time in ms since the epoch");
  if (!Array.isArray(tape.interactions)) bad("interactions", "must be an array");
  if (tape.wakes !== undefined && !Array.isArray(tape.wakes)) bad("wakes", "must be an array");
  const strings = (v) => Array.isArray(v) && v.every((p) => typeof p === "string");
  if (tape.redaction !== undefined && (!tape.redaction || typeof tape.redaction !== "object" || !["redact", "ignore"].every((k) => tape.redaction[k] === undefined || strings(tape.redaction[k])))) {
    bad("redaction", "must be { redact, ignore }, lists of JSON paths");
  }
  if (tape.mcp !== undefined && (!tape.mcp || typeof tape.mcp !== "object" || Object.values(tape.mcp).some((s) => !s || typeof s !== "object" || (s.methods !== undefined && !strings(s.methods))))) {
    bad("mcp", "must be an object of servers, each { capabilities, methods } with methods a list of names");
  }
  const stamp = (s, where) => {
    if (!s || typeof s !== "object" || !Number.isSafeInteger(s.n) || s.n < 0 || !Number.isFinite(s.at) || s.at < 0 || s.at > 1e15) {
      bad(where, "needs an order n and a time at (ms from the start)");
    }
  };
  const error = (e, where) => {
    stamp(e, where);
    if (typeof e.message !== "string" || (e.name !== undefined && typeof e.name !== "string")) bad(where, "needs a message (and a name) as strings");
  };
  const object = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
  const types = new Set(["request", "tool", "ask", "mcp"]);
  const calls = { request: 0, tool: 0, ask: 0, mcp: 0 };
  // NOTE: index loops, not forEach: an array with holes (not JSON, but an object can have
  // them) is checked at every index.
  for (let i = 0; i < tape.interactions.length; i++) {
    const e = tape.interactions[i];
    const at = `interactions[${i}]`;
    if (!object(e) || !types.has(e.type)) bad(`${at}.type`, "must be request, tool, ask or mcp");
    if (e.call !== calls[e.type]) bad(`${at}.call`, `must be ${calls[e.type]} (each kind of call counts from 0, in order)`);
    calls[e.type]++;
    if (e.type === "request") {
      if (e.body !== null && !object(e.body)) bad(`${at}.body`, "must be an object (a provider body) or null (any request)");
      if (e.error) error(e.error, `${at}.error`);
      else if (!object(e.response)) bad(at, "needs a response or an error");
      else {
        const response = e.response;
        stamp(response, `${at}.response`);
        if (!Number.isInteger(response.status) || response.status < 200 || response.status > 599) bad(`${at}.response.status`, "must be an HTTP status from 200 to 599");
        if (response.headers !== undefined && (!object(response.headers) || Object.values(response.headers).some((v) => typeof v !== "string"))) {
          bad(`${at}.response.headers`, "must be an object of strings");
        }
        if (tape.version === 1) {
          if (!Array.isArray(response.reads)) bad(`${at}.response.reads`, "must be an array");
          for (let j = 0; j < response.reads.length; j++) {
            const r = response.reads[j];
            stamp(r, `${at}.response.reads[${j}]`);
            if (typeof r.text !== "string" && !isBase64(r.base64)) bad(`${at}.response.reads[${j}]`, "needs text, or base64");
          }
        } else {
          checkReads(response, `${at}.response`, bad);
        }
        const end = response.end;
        if (end !== undefined) {
          if (!object(end) || !["end", "error", "abort"].includes(end.type)) bad(`${at}.response.end.type`, "must be end, error or abort");
          if (end.type === "end") stamp(end, `${at}.response.end`);
          if (end.type === "error") error(end, `${at}.response.end`);
        }
      }
    } else if (e.outcome !== undefined) {
      stamp(e.outcome, `${at}.outcome`);
      if (e.outcome.error !== undefined && (!object(e.outcome.error) || typeof e.outcome.error.message !== "string")) bad(`${at}.outcome.error`, "needs a message");
    } else if (!(e.type === "tool" && e.cancelled === true)) {
      bad(`${at}.outcome`, "is required (only a tool call the task cancelled has none)");
    }
  }
  const wakes = tape.wakes ?? [];
  for (let i = 0; i < wakes.length; i++) {
    const w = wakes[i];
    stamp(w, `wakes[${i}]`);
    if (!Number.isFinite(w.due)) bad(`wakes[${i}].due`, "must be a number");
  }
  return tape;
}

// ---- importing a provider's body ----

/**
 * A one-round tape from a provider's recorded SSE body (or a `chunks` JSON-lines body):
 * one request that matches any request (`body: null`), answered with `body` in reads of
 * one SSE event each (or `readSize` bytes). Replay it with `tools: "live"` when the body
 * calls tools.
 */
export function tapeFromSse(body, { format, id = "", status = 200, contentType = "text/event-stream", readSize, startedAt = Date.UTC(2025, 0, 1), clew = "" } = {}) {
  if (typeof format !== "string") throw tapeError("CLEW_INVALID_ARGUMENT", "fromSse needs { format }");
  const bytes = typeof body === "string" ? encoder.encode(body) : body instanceof Uint8Array ? body : null;
  if (!bytes) throw tapeError("CLEW_INVALID_ARGUMENT", "fromSse's body must be a string or a Uint8Array");
  const pieces = [];
  if (readSize > 0) {
    for (let i = 0; i < bytes.length; i += readSize) pieces.push(bytes.subarray(i, i + readSize));
  } else {
    // NOTE: one event per read: cut after each blank line (or line, for JSON lines).
    let from = 0;
    for (let i = 0; i < bytes.length; i++) {
      const blank = bytes[i] === 10 && (bytes[i + 1] === 10 || (bytes[i + 1] === 13 && bytes[i + 2] === 10));
      const line = format === "chunks" && bytes[i] === 10;
      if (blank || line) {
        const end = line ? i + 1 : bytes[i + 1] === 10 ? i + 2 : i + 3;
        pieces.push(bytes.subarray(from, end));
        from = i = end;
        i--;
      }
    }
    if (from < bytes.length) pieces.push(bytes.subarray(from));
  }
  const reads = { n: pieces.map((_, i) => i + 1), at: pieces.map(() => 0), bytes: pieces.map((p) => p.length) };
  const response = { n: 0, at: 0, status, headers: { "content-type": contentType }, ...readOf(bytes), reads, end: { n: pieces.length + 1, at: 0, type: "end" } };
  return {
    format: FORMAT, version: VERSION, clew, model: { format, id }, startedAt,
    interactions: [{ type: "request", call: 0, at: 0, body: null, digest: null, response }],
    wakes: [],
  };
}
