// Decoded chunks as JavaScript streams (src/wasm/stream.rs): the chunk objects of a push,
// a `TransformStream` and a body read into a stream of chunks.

// Waits until the readable side has handed out every chunk queued so far: erroring a
// stream drops what its queue still holds.
async function drained(controller) {
  while ((controller.desiredSize ?? 0) < 0) await new Promise((resolve) => setTimeout(resolve, 1));
}

// The kinds of chunk `clew_chunk` builds, by the number src/wasm/stream.rs `ChunkKind` sends
// for each (tests/seam.rs holds the two tables equal).
const TEXT = 0, REASONING = 1, TOOL_CALL = 2, STOP = 3, TEXT_END = 4, ITEM = 5, WHOLE_TOOL_CALL = 6, JSON_TEXT = 7;

// `object` with `key: value` added unless the value is absent.
function put(object, key, value) {
  if (value !== undefined) object[key] = value;
  return object;
}
// Appends the chunk object of a push (src/wasm/stream.rs `chunks_to_js`) to `out`, shaped as
// its JSON: members in the same order, an absent one left out. The fields `a` to `e` are
// those `ChunkKind` lists for `kind`.
export function clew_chunk(out, kind, a, b, c, d, e) {
  let chunk;
  switch (kind) {
    case TEXT: chunk = { type: "text", text: a }; break;
    case REASONING:
      chunk = put(put(put(put({ type: "reasoning", reasoning: a }, "signature", b), "redacted_data", c), "encrypted_content", d), "summary", e === undefined ? e : JSON.parse(e));
      break;
    case TOOL_CALL: case WHOLE_TOOL_CALL: {
      const call = put(put(put({}, "call_id", a), "function", put(put(put({}, "id", b), "name", c), "arguments", d)), "signature", e);
      if (kind === WHOLE_TOOL_CALL) call.whole = true;
      chunk = { type: "tool_calls", tool_call: call };
      break;
    }
    case STOP: chunk = put({ type: "stop", reason: a }, "raw", b); break;
    case TEXT_END: chunk = put(put({ type: "text_end" }, "signature", a), "phase", b); break;
    case ITEM: chunk = { type: "item", item: JSON.parse(a) }; break;
    case JSON_TEXT: chunk = JSON.parse(a); break;
    // NOTE: no other number is sent (tests/seam.rs); one would add nothing rather than a wrong chunk.
    default: return;
  }
  out.push(chunk);
}
export function clew_usage(out, input, output, write, read, reasoning, cost) {
  out.push(put(put(put(put({ type: "usage", inputTokens: input, outputTokens: output }, "cacheWriteTokens", write), "cacheReadTokens", read), "reasoningTokens", reasoning), "totalCost", cost));
}

const ROOM = 4294967296; // 2 ** 32: `push`'s answer is room * ROOM + address

// `feed(piece, out)`: a piece handed to a decoder's `push(length, value, out)` (src/wasm/
// decoding.rs `decoder_functions`), which appends the chunks it completed to `out` and answers
// where its inbox in the wasm's `memory` now is (`room * 2 ** 32 + address`; `inbox` before
// the first piece), or the error that ends the stream, which `feed` returns. A piece of bytes
// that fits is written at the inbox by one `set` on a view of the memory kept from piece to
// piece, and only its length crosses; another crosses as itself (`length` -1).
function feeder(push, memory, inbox) {
  let heap = new Uint8Array(memory.buffer), room = Math.floor(inbox / ROOM), at = inbox % ROOM;
  return (piece, out) => {
    let answer;
    if (piece instanceof Uint8Array && piece.length <= room) {
      // NOTE: a view on a buffer the memory outgrew is detached (length 0).
      if (heap.length === 0) heap = new Uint8Array(memory.buffer);
      heap.set(piece, at);
      answer = push(piece.length, undefined, out);
    } else {
      answer = push(-1, piece, out);
    }
    if (typeof answer !== 'number') return answer;
    room = Math.floor(answer / ROOM);
    at = answer % ROOM;
  };
}

export function clew_transform(push, finish, memory, inbox) {
  const feed = feeder(push, memory, inbox);
  // NOTE: no promise unless the push failed (one per event cost 1-4% of a stream of events).
  const deliver = (out, error, controller) => {
    for (const chunk of out) controller.enqueue(chunk);
    if (error !== undefined) return drained(controller).then(() => { throw error; });
  };
  return new TransformStream({
    transform: (piece, controller) => { const out = []; return deliver(out, feed(piece, out), controller); },
    flush: (controller) => { const out = []; return deliver(out, finish(out), controller); },
  });
}

export function clew_read_body(body, push, finish, memory, inbox) {
  const feed = feeder(push, memory, inbox);
  let reader;
  try { reader = body.getReader(); } catch { return null; }
  let failed;
  let ended = false;
  return new ReadableStream({
    async pull(controller) {
      if (failed !== undefined) { controller.error(failed); return; }
      for (;;) {
        const out = [];
        let error, bodyError, end = false;
        try {
          const { done, value } = await reader.read();
          end = done;
          error = done ? finish(out) : feed(value, out);
        } catch (thrown) {
          // The body failed: its last event may still be whole.
          bodyError = thrown;
          end = true;
          error = finish(out);
        }
        for (const chunk of out) controller.enqueue(chunk);
        if (error !== undefined) {
          if (bodyError !== undefined) try { error.cause = bodyError; } catch {}
          try { reader.cancel().catch(() => {}); } catch {}
          if (out.length) failed = error; else controller.error(error);
          return;
        }
        if (end) {
          ended = true;
          controller.close();
          return;
        }
        if (out.length) return;
      }
    },
    cancel(reason) {
      if (!ended) return reader.cancel(reason).catch(() => {});
    },
  }, { highWaterMark: 0 });
}
