// clew/cassette's SSE events: where each event of a model's SSE body ends (each line, for a
// JSON-lines body), and the JSON values the events carry. `fromSse` cuts a body into one read
// per event; redaction looks in the values for the secrets it replaces.

/**
 * Where each event of `text` ends: after the blank line that closes it, or after each line
 * when `jsonLines`; the last end is `text.length` (a body need not close its last event).
 * `text` is a body's text, or its bytes as a binary string (one char per byte): the ends are
 * then byte offsets.
 */
export function eventEnds(text, jsonLines = false) {
  const ends = [];
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) !== 10) continue;
    const next = text.charCodeAt(i + 1);
    const blank = next === 10 || (next === 13 && text.charCodeAt(i + 2) === 10);
    if (!blank && !jsonLines) continue;
    const end = jsonLines ? i + 1 : next === 10 ? i + 2 : i + 3;
    ends.push(end);
    i = end - 1;
  }
  if ((ends.at(-1) ?? 0) < text.length) ends.push(text.length);
  return ends;
}

/** The JSON values of an SSE body's events (each `data:` line's), or of a JSON-lines body (each line's). */
export function eventValues(text) {
  const values = [];
  let from = 0;
  for (const end of eventEnds(text)) {
    for (const line of text.slice(from, end).split(/\r?\n/)) {
      const data = line.startsWith("data:") ? line.slice(5).trim() : line.trim();
      if (!data.startsWith("{") && !data.startsWith("[")) continue;
      try { values.push(JSON.parse(data)); } catch {}
    }
    from = end;
  }
  return values;
}
