// clew/cassette's JSON helpers: a value's canonical text (keys sorted) and its digest, and
// the JSON paths a user names to redact or to leave out of the comparison.

import { tapeError } from "./format.js";
import { encoder } from "./bytes.js";

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
