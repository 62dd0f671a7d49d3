// clew/cassette's check of a tape before it is replayed: a coded `TypeError` naming the first
// place that is wrong, so a damaged tape never hangs or traps the task.

import { FORMAT, VERSION, tapeError } from "./format.js";

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
