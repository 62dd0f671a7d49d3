// Keeping the task in this browser: the "keep in this browser" box, and when a kept task and
// the workspace's files are written to the store (store.js, IndexedDB). A kept task's files
// are stored with it, in the same transaction: at every waiting point (options.persist) and,
// since a streaming reply reaches no waiting point, also 200 ms after a message arrived (a
// whole task.snapshot(), of which only what changed is written). While the task runs, its
// tools' changes wait for the next of those, so what is stored is always one moment of both;
// otherwise a change of the files is stored at once.
import { $ } from "./dom.js";
import { state, workspace } from "./state.js";
import { TaskStore } from "./store.js";

/** localStorage: "on" while the box is checked. */
const KEEP = "clew-playground:keep";

/** Reports a failed write (the page goes on without it). */
export function storeFailed(error) {
  console.warn("clew playground: keeping in this browser failed:", error);
}

const keptRunning = () => state.kept !== null && state.kept.task === state.task && state.task.outcome === undefined;

/** Stores `changes` (persist's, or a whole snapshot) of the kept `record` with the files. */
function keep(record, changes, reason) {
  if (!state.store || record !== state.kept) return undefined;
  const written = state.store.write(changes, { ...record.app }, workspace.snapshot());
  return written.then(() => { document.body.dataset.kept = reason; });
}

/** Stores the whole task now, unless a tool is changing the files (the next persist will). */
function keepWhole(record, reason = record.task.state) {
  if (!state.store || record !== state.kept) return;
  if (record.task.outcome === undefined && record.task.state === "tool") {
    record.whole = true;
    return;
  }
  record.whole = false;
  keep(record, record.task.snapshot(), reason)?.catch(storeFailed);
}

/** The `options.persist` of a kept task's `record`: stores what changed (or all, when asked). */
export function persistFor(record) {
  return (changes, { reason }) => {
    if (reason === "finished") record.app.finished = true;
    if (record.whole) {
      record.whole = false;
      return keep(record, record.task.snapshot(), reason);
    }
    return keep(record, changes, reason);
  };
}

/** A message arrived: store the task soon (what streamed, or a stream that ended during an ask). */
export function keepSoon(record) {
  if (!state.store || record !== state.kept || record.timer) return;
  record.timer = setTimeout(() => {
    record.timer = null;
    if (record.task.outcome === undefined) keepWhole(record);
  }, 200);
}

function showKeepNote() {
  $("keepNote").hidden = !$("persist").checked;
}

/** The box turned on: opens the store and keeps the task on screen; off: forgets all. */
async function boxChanged() {
  const on = $("persist").checked;
  localStorage.setItem(KEEP, on ? "on" : "off");
  showKeepNote();
  if (on && !state.store) {
    const opened = await TaskStore.open().catch((error) => { storeFailed(error); return null; });
    if (!opened || !$("persist").checked || state.store) return opened?.close();
    state.store = opened;
    state.store.clear().catch(storeFailed);
    state.store.writeFiles(workspace.snapshot()).then(() => { document.body.dataset.kept = "on"; }, storeFailed);
    if (state.kept) keepWhole(state.kept, "on");
  } else if (!on && state.store) {
    const closing = state.store;
    state.store = null;
    await closing.clear({ files: true }).catch(storeFailed);
    closing.close();
  }
}

/** Wires the box, and stores each change of the files made while no kept task runs. */
export function wireKeeping() {
  $("persist").addEventListener("change", boxChanged);
  workspace.addEventListener("change", () => {
    if (state.store && !keptRunning()) state.store.writeFiles(workspace.snapshot()).catch(storeFailed);
  });
}

/**
 * At boot: sets the box as it was left and, when it is on, opens the store and loads what it
 * holds (the files go back into the workspace). Resolves to what `TaskStore.load` gave, or null.
 */
export async function loadKept() {
  $("persist").checked = localStorage.getItem(KEEP) === "on";
  showKeepNote();
  if (!$("persist").checked) return null;
  let saved = null;
  try {
    state.store = await TaskStore.open();
    saved = await state.store.load();
  } catch (error) {
    storeFailed(error);
  }
  if (saved?.files) workspace.load(saved.files);
  return saved;
}
