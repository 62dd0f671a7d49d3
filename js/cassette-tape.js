// clew/cassette's tape: the document's format and its checks, redaction, the requests'
// canonical form and digest, the first difference between two requests, and a provider's
// SSE body turned into a one-round tape.

/** The format's name and the version this release writes (and the newest it reads). */
export const FORMAT = "clew-cassette";
export const VERSION = 1;

/** A `TypeError` with a `code`, like the rest of the package's argument errors. */
export function tapeError(code, message) {
  return Object.assign(new TypeError(message), { code });
}

// ---- bytes ----

const encoder = new TextEncoder();
const strict = new TextDecoder("utf-8", { fatal: true });

/** A read as the tape keeps it: `text` when its bytes are UTF-8 on their own, else `base64`. */
export function readOf(bytes) {
  try {
    return { text: strict.decode(bytes) };
  } catch {
    let binary = "";
    for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
    return { base64: btoa(binary) };
  }
}

/** A tape read's bytes. */
export function bytesOf(read) {
  if (typeof read.text === "string") return encoder.encode(read.text);
  const binary = atob(read.base64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
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
    out[key] = typeof v === "string" && map.has(v) && isSecret(key, value, at, extra) ? map.get(v) : replaceSecrets(v, map, extra, at);
  }
  return out;
}

/** A JSON member whose value is a string: its key, and where the string's inside starts and ends. */
const MEMBER = /"(\w+)"\s*:\s*"((?:[^"\\]|\\.)*)"/g;

/**
 * Rewrites a body's reads with each secret `map` holds replaced where it is the value of a
 * secret key, over the whole body: a value cut between two reads is replaced in the first,
 * so the reads keep their number and roughly their boundaries.
 */
function redactReads(reads, map) {
  if (!map.size || !reads.length) return reads;
  const binary = (bytes) => { let s = ""; for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000)); return s; };
  const toBytes = (text) => { const b = new Uint8Array(text.length); for (let j = 0; j < text.length; j++) b[j] = text.charCodeAt(j); return b; };
  const parts = reads.map((r) => binary(bytesOf(r)));
  const whole = parts.join("");
  const hits = [];
  for (const match of whole.matchAll(MEMBER)) {
    if (!SECRET_KEYS.has(match[1])) continue;
    let value;
    try { value = JSON.parse(`"${new TextDecoder().decode(toBytes(match[2]))}"`); } catch { continue; }
    const to = map.get(value);
    if (to === undefined) continue;
    const end = match.index + match[0].length - 1;
    hits.push([end - match[2].length, end, to]);
  }
  if (!hits.length) return reads;
  const out = [];
  let start = 0, hit = 0;
  for (const [i, part] of parts.entries()) {
    const end = start + part.length;
    let text = "", at = start;
    while (at < end) {
      while (hit < hits.length && hits[hit][1] <= at) hit++;
      const next = hits[hit];
      if (next && next[0] <= at) { at = next[1]; continue; }
      const stop = next && next[0] < end ? next[0] : end;
      text += whole.slice(at, stop);
      at = stop;
      if (next && next[0] === at && at < end) { text += binary(encoder.encode(next[2])); at = next[1]; }
    }
    const { n, at: time } = reads[i];
    out.push({ n, at: time, ...readOf(toBytes(text)) });
    start = end;
  }
  return out;
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
      const reads = entry.response?.reads ?? [];
      const text = reads.map((r) => decoder.decode(bytesOf(r), { stream: true })).join("") + decoder.decode();
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
    if (entry.response) out.response = { ...entry.response, reads: redactReads(entry.response.reads, map) };
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

// ---- checking a tape ----

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
  tape.interactions.forEach((e, i) => {
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
        if (!Array.isArray(response.reads)) bad(`${at}.response.reads`, "must be an array");
        response.reads.forEach((r, j) => {
          stamp(r, `${at}.response.reads[${j}]`);
          if (typeof r.text !== "string" && (typeof r.base64 !== "string" || !/^[A-Za-z0-9+/]*={0,2}$/.test(r.base64) || r.base64.length % 4 !== 0)) {
            bad(`${at}.response.reads[${j}]`, "needs text, or base64");
          }
        });
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
  });
  (tape.wakes ?? []).forEach((w, i) => {
    stamp(w, `wakes[${i}]`);
    if (!Number.isFinite(w.due)) bad(`wakes[${i}].due`, "must be a number");
  });
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
  let n = 0;
  const response = { n: n++, at: 0, status, headers: { "content-type": contentType }, reads: [] };
  for (const piece of pieces) response.reads.push({ n: n++, at: 0, ...readOf(piece) });
  response.end = { n: n++, at: 0, type: "end" };
  return {
    format: FORMAT, version: VERSION, clew, model: { format, id }, startedAt,
    interactions: [{ type: "request", call: 0, at: 0, body: null, digest: null, response }],
    wakes: [],
  };
}
