// clew/cassette's import (`fromSse`): a provider's recorded SSE body (or a JSON-lines body) as a
// one-round tape, so a recorded stream becomes a test.

import { FORMAT, VERSION, tapeError } from "./format.js";
import { encoder, binary, readOf } from "./bytes.js";
import { eventEnds } from "./sse-events.js";

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
    // NOTE: one event per read (one line, for JSON lines).
    let from = 0;
    for (const end of eventEnds(binary(bytes), format === "chunks")) {
      pieces.push(bytes.subarray(from, end));
      from = end;
    }
  }
  const reads = { n: pieces.map((_, i) => i + 1), at: pieces.map(() => 0), bytes: pieces.map((p) => p.length) };
  const response = { n: 0, at: 0, status, headers: { "content-type": contentType }, ...readOf(bytes), reads, end: { n: pieces.length + 1, at: 0, type: "end" } };
  return {
    format: FORMAT, version: VERSION, clew, model: { format, id }, startedAt,
    interactions: [{ type: "request", call: 0, at: 0, body: null, digest: null, response }],
    wakes: [],
  };
}
