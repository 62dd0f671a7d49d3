// clew/cassette's import: a provider's recorded SSE body (or a JSON-lines body) as a
// one-round tape, so a recorded stream becomes a test.

import { FORMAT, VERSION, tapeError } from "./cassette-format.js";
import { encoder, readOf } from "./cassette-bytes.js";

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
