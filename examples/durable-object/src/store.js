// How a task is laid out in a Durable Object's storage.
//
// A value in Durable Object storage is limited: 2 MB for a key and its value together on
// the SQLite backend, 128 KiB on the older key-value backend. A task outgrows that: its
// history is sent whole with every model request and keeps growing, and a single tool
// result (a file read) can be megabytes. So nothing is stored as one big value:
//
//   head          the snapshot's head (Task.snapshotParts), lengths, event sequence, outcome
//   h:00000012    history entry 12, as JSON text
//   m:00000012    transcript entry 12, as JSON text `{"rev":…,"message":…}`
//   f:<path>      a file of the task's workspace (the path URI-encoded)
//   start         what the task was started with, until its first persist
//   answer        an answer received but not yet stored as part of the task
//
// and any text longer than CHUNK_CHARS (the head included: a reply that is streaming lives
// in the state) is split: its key then holds `{ parts: n }` and the text is in
// `<key>#0000` … `<key>#<n-1>`. 60,000 characters stay under 128 KiB even as UTF-16, so the
// layout fits both backends.
//
// Writes are gathered in a Batch and issued with no `await` between them: the runtime
// commits such writes atomically, and holds back every outgoing message of the object
// (responses, Server-Sent Events, fetches) until they are on disk.

export const CHUNK_CHARS = 60_000;

/** How many keys one put or delete may name. */
const KEYS_PER_CALL = 128;

const pad = (n, width) => String(n).padStart(width, "0");

export const historyKey = (index) => `h:${pad(index, 8)}`;
export const messageKey = (index) => `m:${pad(index, 8)}`;
export const fileKey = (path) => `f:${encodeURIComponent(path)}`;
const partKey = (key, part) => `${key}#${pad(part, 4)}`;

/** Puts and deletes gathered to be committed together. */
export class Batch {
  constructor() {
    this.puts = new Map();
    this.deletes = new Set();
  }

  put(key, value) {
    this.deletes.delete(key);
    this.puts.set(key, value);
  }

  delete(key) {
    this.puts.delete(key);
    this.deletes.add(key);
  }

  /**
   * Stores `text` under `key`, in parts when it is long. `oldParts` is how many parts the
   * key had (0 for a plain value); the ones no longer used are deleted. Returns the number
   * of parts now (0: a plain value).
   */
  text(key, text, oldParts = 0) {
    let parts = 0;
    if (text.length <= CHUNK_CHARS) {
      this.put(key, text);
    } else {
      parts = Math.ceil(text.length / CHUNK_CHARS);
      this.put(key, { parts, length: text.length });
      for (let part = 0; part < parts; part++) {
        this.put(partKey(key, part), text.slice(part * CHUNK_CHARS, (part + 1) * CHUNK_CHARS));
      }
    }
    for (let part = parts; part < oldParts; part++) this.delete(partKey(key, part));
    return parts;
  }

  /** Deletes `key` and its parts. */
  drop(key, oldParts = 0) {
    this.delete(key);
    for (let part = 0; part < oldParts; part++) this.delete(partKey(key, part));
  }

  get empty() {
    return this.puts.size === 0 && this.deletes.size === 0;
  }

  /** Issues every write at once (atomic); the promise settles when the runtime took them. */
  commit(storage) {
    const calls = [];
    const puts = [...this.puts];
    for (let at = 0; at < puts.length; at += KEYS_PER_CALL) {
      calls.push(storage.put(Object.fromEntries(puts.slice(at, at + KEYS_PER_CALL))));
    }
    const deletes = [...this.deletes];
    for (let at = 0; at < deletes.length; at += KEYS_PER_CALL) {
      calls.push(storage.delete(deletes.slice(at, at + KEYS_PER_CALL)));
    }
    this.puts.clear();
    this.deletes.clear();
    return Promise.all(calls);
  }
}

/** The text a stored value and its parts make, or `undefined`. */
function assemble(key, value, partOf) {
  if (value === undefined) return undefined;
  if (typeof value === "string") return { text: value, parts: 0 };
  const pieces = [];
  for (let part = 0; part < value.parts; part++) {
    const piece = partOf(partKey(key, part));
    if (typeof piece !== "string") throw new Error(`storage is damaged: ${partKey(key, part)} is missing`);
    pieces.push(piece);
  }
  return { text: pieces.join(""), parts: value.parts };
}

/** The text stored under `key` (`{ text, parts }`), or `undefined`. */
export async function readText(storage, key) {
  const value = await storage.get(key);
  if (value === undefined || typeof value === "string") return assemble(key, value);
  const keys = Array.from({ length: value.parts }, (_, part) => partKey(key, part));
  const found = new Map();
  for (let at = 0; at < keys.length; at += KEYS_PER_CALL) {
    for (const [k, v] of await storage.get(keys.slice(at, at + KEYS_PER_CALL))) found.set(k, v);
  }
  return assemble(key, value, (k) => found.get(k));
}

/** Every text stored under a key starting with `prefix`: Map of key to `{ text, parts }`. */
export async function readTexts(storage, prefix) {
  const values = await storage.list({ prefix });
  const texts = new Map();
  for (const [key, value] of values) {
    if (key.includes("#")) continue;
    texts.set(key, assemble(key, value, (k) => values.get(k)));
  }
  return texts;
}

/** How many parts the value stored under `key` has (0 for a plain value or none). */
export async function partsOf(storage, key) {
  const value = await storage.get(key);
  return value && typeof value === "object" ? value.parts : 0;
}
