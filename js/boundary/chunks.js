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

export function clew_transform(push, finish) {
  // NOTE: no promise unless the push failed (one per event cost 1-4% of a stream of events).
  const deliver = (result, controller) => {
    for (const chunk of result.chunks) controller.enqueue(chunk);
    if (result.error !== undefined) return drained(controller).then(() => { throw result.error; });
  };
  return new TransformStream({
    transform: (piece, controller) => deliver(push(piece), controller),
    flush: (controller) => deliver(finish(), controller),
  });
}

export function clew_read_body(body, push, finish) {
  let reader;
  try { reader = body.getReader(); } catch { return null; }
  let failed;
  let ended = false;
  return new ReadableStream({
    async pull(controller) {
      if (failed !== undefined) { controller.error(failed); return; }
      for (;;) {
        let result, bodyError, end = false;
        try {
          const { done, value } = await reader.read();
          end = done;
          result = done ? finish() : push(value);
        } catch (error) {
          // The body failed: its last event may still be whole.
          bodyError = error;
          end = true;
          result = finish();
        }
        for (const chunk of result.chunks) controller.enqueue(chunk);
        const error = result.error;
        if (error !== undefined) {
          if (bodyError !== undefined) try { error.cause = bodyError; } catch {}
          try { reader.cancel().catch(() => {}); } catch {}
          if (result.chunks.length) failed = error; else controller.error(error);
          return;
        }
        if (end) {
          ended = true;
          controller.close();
          return;
        }
        if (result.chunks.length) return;
      }
    },
    cancel(reason) {
      if (!ended) return reader.cancel(reason).catch(() => {});
    },
  }, { highWaterMark: 0 });
}
