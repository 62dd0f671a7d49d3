// The request object `model.request` gets (src/wasm/driver/model_stream.rs).

// `request` with `messages`, those at the indices `shared` lists (objects the driver keeps
// for the next requests) replaced by a structured clone: one clone for all of them.
export function clew_request(request, messages, shared) {
  if (shared.length) {
    const kept = shared.map((i) => messages[i]);
    const copies = typeof structuredClone === 'function' ? structuredClone(kept) : JSON.parse(JSON.stringify(kept));
    for (let k = 0; k < shared.length; k++) messages[shared[k]] = copies[k];
  }
  request.messages = messages;
  return request;
}
