// The request object `model.request` gets (src/wasm/driver/model_stream.rs).

export function clew_request(request, messages) {
  request.messages = typeof structuredClone === 'function' ? structuredClone(messages) : JSON.parse(JSON.stringify(messages));
  return request;
}
