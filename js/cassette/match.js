// clew/cassette's comparison of what a task does with what the tape recorded: the first JSON
// path where two values differ, and the check of each model request in turn (shared by the
// replay and `tapeModel`).

import { PLACEHOLDER, KEY_PLACEHOLDER } from "./format.js";
import { pathMatcher, requestDigest } from "./json.js";
import { RequestBodies } from "./requests.js";

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
  if (typeof recorded === "string" && (PLACEHOLDER.test(recorded) || recorded === KEY_PLACEHOLDER) && typeof actual === "string") {
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
