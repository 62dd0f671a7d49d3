// The objects `say` and `ask` get (src/wasm/driver/messages.rs), made from a message's
// fields in the order of its transcript entry: `{ ts, type, say | ask, text, images?,
// partial? }` (`partial`: 0 for none, 1 for true, 2 for false). Its text is kept in `kept`;
// a partial message's next version, whose text only grew, crosses with `grown` and `text`
// what was added to the kept text: a long reply's partial updates cost what they add, not
// the whole text each time.
export function clew_message(ts, ask, name, text, grown, partial, images, kept) {
  text = kept.text = grown ? kept.text + text : text;
  const message = ask ? { ts, type: 'ask', ask: name, text } : { ts, type: 'say', say: name, text };
  if (images !== undefined) message.images = images;
  if (partial !== 0) message.partial = partial === 1;
  return message;
}
