// clew/cassette's request bodies: a tape keeps each request as the items it adds to the
// previous one's arrays; this writes that form, reads it back into whole bodies, and checks
// a request's JSON text against its recording quickly.

import { tapeError } from "./format.js";

/**
 * What a tape keeps of a request body: each top-level array (the conversation: `messages`,
 * `input`, `contents`) whose first items are the previous request's starts with
 * `{ "$previous": n }` in their place, so a task's tape grows with its conversation, not with
 * its square. The digest is of the whole body.
 */
export function shareWith(previous, body) {
  if (!previous || !body || typeof body !== "object" || Array.isArray(body)) return body;
  const out = { ...body };
  for (const [key, items] of Object.entries(body)) {
    const before = previous[key];
    if (!Array.isArray(items) || !Array.isArray(before)) continue;
    let same = 0;
    while (same < items.length && same < before.length && JSON.stringify(items[same]) === JSON.stringify(before[same])) same++;
    if (same > 0) out[key] = [{ $previous: same }, ...items.slice(same)];
  }
  return out;
}

const isShared = (items) => Array.isArray(items) && items[0] && typeof items[0] === "object" && Number.isInteger(items[0].$previous);

/**
 * The requests' whole bodies, in order, from their kept form; and, for the replay's quick
 * check, each body's JSON text as clew writes it, made from its items' texts (an item kept
 * from the previous request keeps its text).
 */
export class RequestBodies {
  constructor(entries) {
    this.bodies = [];
    this.texts = [];
    let previous = null;
    for (const [i, entry] of entries.entries()) {
      let body = entry?.body ?? null;
      if (body && typeof body === "object" && !Array.isArray(body)) {
        const whole = { ...body };
        for (const [key, items] of Object.entries(body)) {
          // NOTE: a member the same as the last request's is that very value (see `matches`).
          if (!Array.isArray(items) && previous && key in previous && typeof items === "object" && JSON.stringify(items) === JSON.stringify(previous[key])) {
            whole[key] = previous[key];
          }
          if (!isShared(items)) continue;
          const before = previous?.[key];
          if (!Array.isArray(before) || items[0].$previous > before.length) {
            throw tapeError("CLEW_INVALID_CASSETTE", `the cassette's request ${i} keeps ${items[0].$previous} items of ${key} from a request that has fewer`);
          }
          whole[key] = [...before.slice(0, items[0].$previous), ...items.slice(1)];
        }
        body = whole;
      }
      this.bodies.push(body);
      if (body && typeof body === "object" && !Array.isArray(body)) previous = body;
    }
  }

  /** Request `i`'s whole body. */
  body(i) {
    return this.bodies[i] ?? null;
  }

  /**
   * Whether `text` is request `i`'s JSON text as `JSON.stringify` writes it, compared piece
   * by piece without making the whole text: each array item's text is written once across
   * requests (call in order: each request reuses the last one's items).
   */
  matches(i, text) {
    const body = this.bodies[i];
    if (body === null || typeof body !== "object" || Array.isArray(body)) return text === JSON.stringify(body);
    const last = this.lastItems ?? {};
    const items = {};
    const replaced = {};
    const arrays = [];
    const members = [];
    for (const [key, value] of Object.entries(body)) {
      members.push(key, value);
      if (!Array.isArray(value)) { replaced[key] = value; continue; }
      const before = last[key] ?? { values: [], texts: [], at: -1 };
      // NOTE: the first items the last request had too (the same objects) are one run.
      let shared = 0;
      while (shared < value.length && before.values[shared] === value[shared]) shared++;
      const texts = value.map((item, j) => (j < shared ? before.texts[j] : JSON.stringify(item)));
      const entry = { values: value, texts, at: -1, before, shared };
      items[key] = entry;
      arrays.push(entry);
      replaced[key] = MARK;
    }
    this.lastItems = items;
    // NOTE: the members around the arrays are written again only when one of them changed.
    const cached = this.lastParts;
    const same = cached && cached.members.length === members.length &&
      cached.members.every((m, j) => m === members[j] || (j % 2 === 1 && Array.isArray(m) && Array.isArray(members[j])));
    const parts = same ? cached.parts : JSON.stringify(replaced).split(MARK_TEXT);
    this.lastParts = { members, parts };
    const lastText = this.lastText;
    this.lastText = text;
    // NOTE: a slice compared with `===` is several times quicker in V8 than `startsWith` at an
    // offset. The items shared with the last request are compared in one slice with where
    // they were in its text (which matched its recording); the rest one by one.
    let at = 0;
    for (let j = 0; j < parts.length; j++) {
      const part = parts[j];
      if (text.slice(at, at + part.length) !== part) return false;
      at += part.length;
      if (j === parts.length - 1) break;
      const entry = arrays[j];
      const texts = entry.texts;
      if (text[at] !== "[") return false;
      at++;
      entry.at = at;
      let k = 0;
      if (entry.shared > 1 && lastText !== undefined && entry.before.at >= 0) {
        let length = entry.shared - 1;
        for (let m = 0; m < entry.shared; m++) length += texts[m].length;
        const from = entry.before.at;
        if (text.slice(at, at + length) !== lastText.slice(from, from + length)) return false;
        at += length;
        k = entry.shared;
      }
      for (; k < texts.length; k++) {
        if (k > 0) {
          if (text[at] !== ",") return false;
          at++;
        }
        const item = texts[k];
        if (text.slice(at, at + item.length) !== item) return false;
        at += item.length;
      }
      if (text[at] !== "]") return false;
      at++;
    }
    return at === text.length;
  }
}

/** What stands for an array while a body's other members are written (see `matches`). */
const MARK = "\u0000clew-items\u0000";
const MARK_TEXT = JSON.stringify(MARK);
