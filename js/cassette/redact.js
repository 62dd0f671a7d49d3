// clew/cassette's redaction, on record: every secret, id, signature and encrypted reasoning
// value replaced by one placeholder wherever it is, request digests computed after it, and
// each request kept as what it adds to the previous one.

import { PLACEHOLDER, placeholder, KEY_PLACEHOLDER } from "./format.js";
import { encoder, binary, unbinary, bytesOf, readOf } from "./bytes.js";
import { requestDigest, pathMatcher } from "./json.js";
import { shareWith } from "./requests.js";
import { eventValues } from "./sse-events.js";

/** Keys whose string values are ids, signatures or encrypted reasoning in the four formats. */
const SECRET_KEYS = new Set([
  "id", "call_id", "tool_use_id", "tool_call_id", "item_id", "response_id", "responseId", "previous_response_id",
  "signature", "encrypted_content", "thoughtSignature", "thought_signature", "user",
]);

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
    tape = JSON.parse(JSON.stringify(tape).replaceAll(JSON.stringify(apiKey).slice(1, -1), KEY_PLACEHOLDER));
  }
  const extra = pathMatcher(redact);
  const ignored = pathMatcher(ignore);
  const map = new Map();
  const found = (v) => { if (!map.has(v)) map.set(v, placeholder(map.size + 1)); };
  const decoder = new TextDecoder();
  for (const entry of tape.interactions) {
    if (entry.type === "request") {
      collectSecrets(entry.body, found, extra);
      const text = entry.response ? decoder.decode(bytesOf(entry.response)) : "";
      for (const event of eventValues(text)) collectSecrets(event, found, () => false);
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
