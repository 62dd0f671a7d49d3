// The objects `say` and `ask` get (src/wasm/driver/messages.rs): a message's transcript entry
// parsed from the core's JSON, its text kept in `kept`. A partial message's next version,
// whose text only grew, crosses with "" for its text and `added`, what was added to the kept
// text: a long reply's partial updates cost what they add, not the whole text each time.
export function clew_message(json, kept, added) {
  const message = JSON.parse(json);
  if (added === undefined) kept.text = message.text;
  else message.text = kept.text += added;
  return message;
}
