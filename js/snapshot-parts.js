// Task.snapshotParts and Task.joinSnapshot: a snapshot (or a persist's changes) cut into the
// parts an application stores entry by entry, and put back together. The rule is the core's
// (src/core/agent/snapshot/parts.rs, SNAPSHOT_LISTS): the head is every member but the two
// lists, which a persist gives from an index on. It is written here once more, in JavaScript,
// so the entries stay the objects the task gave (no copy, no JSON) and the browser entry stays
// small; pkg-tests/snapshot.test.mjs checks the two agree. The build bundles this module into
// clew.js and gives the bindings' Task these statics (scripts/package.mjs).

/** Each list, with the member that says where a persist's entries of it begin. */
const LISTS = [["history", "historyFrom"], ["messages", "messagesFrom"]];

function invalid(what) {
  throw Object.assign(new TypeError(`${what} is not as Task.snapshotParts gives it`), { code: "CLEW_INVALID_SNAPSHOT" });
}

/** `value` if it is an object, else the error naming `what`. */
const object = (value, what) => value && typeof value == "object" ? value : invalid(what);

/** A list's part, `{ from, entries }` (absent: 0 and []), else the error naming `what`. */
function part(from = 0, entries = [], what) {
  return from >= 0 && Number.isInteger(from) && Array.isArray(entries) ? { from, entries } : invalid(what);
}

const statics = {
  /**
   * `{ head, history: { from, entries }, messages: { from, entries } }` from a snapshot or a
   * persist's changes: `head` is every other member (opaque: store it whole), `entries` the
   * list's entries (the same objects) from index `from` on.
   */
  snapshotParts(changes) {
    const head = { ...object(changes, "changes") };
    const parts = { head };
    for (const [name, from] of LISTS) {
      parts[name] = part(head[from], head[name], name);
      delete head[name];
      delete head[from];
    }
    return parts;
  },

  /**
   * The snapshot whose parts are given (what `snapshotParts` gave, each list's entries from 0
   * on): what `Task.restore` takes. A `from` above 0 gives those changes instead
   * (`historyFrom`/`messagesFrom` set), for `Task.mergeSnapshot`.
   */
  joinSnapshot(parts) {
    const snapshot = { ...object(object(parts, "parts").head, "head") };
    for (const [name, from] of LISTS) {
      const list = part(parts[name]?.from, parts[name]?.entries, name);
      if (list.from) snapshot[from] = list.from;
      snapshot[name] = list.entries;
    }
    return snapshot;
  },
};

/** Gives `Task` (the bindings' class) the statics above. */
export const withSnapshotParts = (Task) => Object.assign(Task, statics);
