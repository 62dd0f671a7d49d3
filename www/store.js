// The playground's IndexedDB store of a durable task ("keep in this browser"). One record per
// history entry and per transcript entry (keyed by index), a head record with the rest of the
// task (the core's `head`, opaque here: `Task.snapshotParts` splits a snapshot or a persist's
// changes, `Task.joinSnapshot` makes them whole again), the counts and the page's own data,
// and the workspace's files: each write is one transaction, so what is stored is always one
// consistent moment of the task and of the files its tools change. Only entries that differ
// from what is stored are written.
import { Task, ready } from "clew";

const DB_NAME = "clew-playground";
const STORES = ["task", "history", "messages", "files"];

const done = (request) => new Promise((resolve, reject) => {
  request.onsuccess = () => resolve(request.result);
  request.onerror = () => reject(request.error);
});

/**
 * The task's head in a head record. An earlier page kept the task's members beside its own
 * (`historyCount`, `messagesCount`, `app`) instead of under `head`: everything else is the head.
 */
function taskHead(record) {
  if ("head" in record) return record.head;
  const { historyCount, messagesCount, app, ...head } = record;
  return head;
}

export class TaskStore {
  /** Opens (or creates) the database; version 1 held only the workspace's files. */
  static async open(name = DB_NAME) {
    const open = indexedDB.open(name, 2);
    open.onupgradeneeded = () => {
      for (const store of STORES) {
        if (!open.result.objectStoreNames.contains(store)) open.result.createObjectStore(store);
      }
    };
    return new TaskStore(await done(open));
  }

  constructor(db) {
    this.db = db;
    // The JSON text of each stored entry, to skip those that did not change; null when not
    // known (nothing loaded yet, or a write failed): the next write then puts every entry it
    // is given and drops any stored past them.
    this.history = null;
    this.messages = null;
    this.filesJson = null;
    this.pending = Promise.resolve();
  }

  /**
   * What is stored: `{ files, head, snapshot }`, where `head` (the head record: `app`, the
   * page's data) and `snapshot` (for `Task.restore`) are there only when a task is stored.
   */
  async load() {
    const tx = this.db.transaction(STORES, "readonly");
    const head = await done(tx.objectStore("task").get("head"));
    const files = await done(tx.objectStore("files").get("workspace"));
    this.filesJson = files ? JSON.stringify(files) : null;
    if (!head) {
      this.history = [];
      this.messages = [];
      return { files };
    }
    const history = await done(tx.objectStore("history").getAll(IDBKeyRange.upperBound(head.historyCount, true)));
    const messages = await done(tx.objectStore("messages").getAll(IDBKeyRange.upperBound(head.messagesCount, true)));
    // NOTE: a write failed after an earlier one had been counted on: not a task to go on with.
    if (history.length !== head.historyCount || messages.length !== head.messagesCount) {
      this.history = null;
      this.messages = null;
      return { files, broken: true };
    }
    this.history = history.map((entry) => JSON.stringify(entry));
    this.messages = messages.map((entry) => JSON.stringify(entry));
    await ready; // the browser entry's synchronous calls need its wasm
    const snapshot = Task.joinSnapshot({ head: taskHead(head), history: { entries: history }, messages: { entries: messages } });
    return { files, head, snapshot };
  }

  /**
   * Stores a task's changes (what `options.persist` got, or a whole `task.snapshot()`), the
   * page's data for it (`app`) and the workspace's `files`, in one transaction. Writes run
   * one after another, each compared with what the previous ones stored; resolves once this
   * one is committed.
   */
  write(changes, app, files) {
    return this.#queue(() => {
      const { head, history, messages } = Task.snapshotParts(changes);
      const tx = this.db.transaction(STORES, "readwrite");
      const historyCount = this.#entries(tx.objectStore("history"), "history", history.from, history.entries);
      const messagesCount = this.#entries(tx.objectStore("messages"), "messages", messages.from, messages.entries);
      tx.objectStore("task").put({ head, historyCount, messagesCount, app }, "head");
      this.#files(tx, files);
      return this.#commit(tx);
    });
  }

  /** Stores the workspace's files alone (no task is being kept). */
  writeFiles(files) {
    return this.#queue(() => {
      const tx = this.db.transaction(["files"], "readwrite");
      this.#files(tx, files);
      return this.#commit(tx);
    });
  }

  /** Forgets the stored task (and the files too with `{ files: true }`). */
  clear({ files = false } = {}) {
    return this.#queue(() => {
      const tx = this.db.transaction(STORES, "readwrite");
      for (const store of ["task", "history", "messages"]) tx.objectStore(store).clear();
      if (files) tx.objectStore("files").clear();
      this.history = [];
      this.messages = [];
      if (files) this.filesJson = null;
      return this.#commit(tx);
    });
  }

  /** Closes the database. */
  close() {
    this.db.close();
  }

  #queue(job) {
    const run = this.pending.then(job);
    this.pending = run.catch(() => {});
    return run;
  }

  /** Puts the entries from `from` on that changed; drops stored ones past the end. */
  #entries(store, which, from, entries) {
    const known = this[which];
    const cache = known ?? [];
    const count = from + entries.length;
    entries.forEach((entry, i) => {
      const json = JSON.stringify(entry);
      if (cache[from + i] !== json) {
        store.put(entry, from + i);
        cache[from + i] = json;
      }
    });
    if (!known || cache.length > count) store.delete(IDBKeyRange.lowerBound(count));
    cache.length = count;
    this[which] = cache;
    return count;
  }

  #files(tx, files) {
    const json = JSON.stringify(files);
    if (json === this.filesJson) return;
    tx.objectStore("files").put(files, "workspace");
    this.filesJson = json;
  }

  #commit(tx) {
    return new Promise((resolve, reject) => {
      tx.oncomplete = () => resolve();
      const failed = () => {
        // What is stored is no longer known: the next write writes everything.
        this.history = null;
        this.messages = null;
        this.filesJson = null;
        reject(tx.error ?? new Error("the IndexedDB transaction was aborted"));
      };
      tx.onabort = failed;
    });
  }
}
