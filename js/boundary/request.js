// The request object `model.request` gets (src/wasm/driver/model_stream.rs), and the request
// cache: each history message as a JS object, by history index, made once and sent by every
// later request (a clone of it: a `model.request` that changes its request cannot change the
// next one). This module is the cache's only writer: a request keeps the messages new to it
// (`clew_fresh`), a persist keeps the history entries it parsed (`keepHistory`, from
// calls.js), and a finished task forgets them all (`clew_forget`).

// `request` with `messages`, those at the indices `shared` lists (objects of the cache)
// replaced by a structured clone: one clone for all of them.
export function clew_request(request, messages, shared) {
  if (shared.length) {
    const kept = shared.map((i) => messages[i]);
    const copies = typeof structuredClone === 'function' ? structuredClone(kept) : JSON.parse(JSON.stringify(kept));
    for (let k = 0; k < shared.length; k++) messages[shared[k]] = copies[k];
  }
  request.messages = messages;
  return request;
}

// A history message new to a request, from its JSON `text`: one object kept in `cache` at
// `at`, and another for the request (two parses cost less than a parse and a clone).
export function clew_fresh(cache, at, text) {
  cache[at] = JSON.parse(text);
  return JSON.parse(text);
}

// The history entries a persist parsed, from history index `from` on: what the cache held
// from there is replaced by them.
export function keepHistory(cache, from, entries) {
  cache.length = from;
  for (const entry of entries) cache.push(entry);
}

// A finished task's cache emptied: it keeps none of the requests' messages alive.
export function clew_forget(cache) {
  cache.length = 0;
}
