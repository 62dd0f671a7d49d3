// What leaves the page and comes back: the transcript's export, the tape of the task on
// screen (every task started here is recorded), and replaying a tape recorded here (a file,
// or the built-in offline-tape.json) with the settings and files it was recorded with.
import { ready } from "clew";
import { $, download } from "./dom.js";
import { renderFiles } from "./files.js";
import { start } from "./running.js";
import { applySettings, loadBuiltinTape } from "./settings.js";
import { state, workspace } from "./state.js";

/**
 * Replays a tape recorded here: the settings and files it was recorded with come back, and
 * the task replays from it (the model, the tools and the answers as recorded) in a moment.
 */
async function replayTape(tape) {
  const meta = tape?.meta;
  if (meta?.app !== "clew playground" || typeof meta.text !== "string") {
    alert("This tape was not recorded by the playground: replay it in a test (clew/cassette) instead.");
    return;
  }
  applySettings(meta.settings ?? {});
  workspace.load(meta.files ?? []);
  renderFiles();
  $("taskText").value = meta.text;
  await ready;
  await start(meta.text, tape);
}

/** A tape file chosen with "Replay a tape": read and replayed. */
async function replayChosen() {
  const file = $("replay").files[0];
  $("replay").value = "";
  if (!file) return;
  let tape;
  try {
    tape = JSON.parse(await file.text());
  } catch (error) {
    alert(`Not a tape: ${error.message}`);
    return;
  }
  await replayTape(tape);
}

/**
 * The built-in tape: the offline task, recorded in this page with its approvals given
 * (pkg-tests/support/make-offline-tape.mjs records it again). The offline model answers from
 * it too, while a task follows it.
 */
async function replayBuiltin() {
  const tape = await loadBuiltinTape();
  if (!tape) {
    alert(`The built-in tape could not be loaded: ${state.builtinTapeError?.message}`);
    return;
  }
  await replayTape(tape);
}

/** Wires Export transcript, Download tape, Replay a tape and Replay the built-in tape. */
export function wireTapes() {
  $("export").addEventListener("click", () => {
    const task = state.task;
    download("clew-transcript.json", {
      exportedAt: new Date().toISOString(), outcome: state.lastOutcome, messages: task?.messages ?? [],
      history: task?.history ?? [], usage: task?.usage ?? null, files: workspace.snapshot(),
    }, 2);
  });
  $("tape").addEventListener("click", async () => {
    if (typeof state.task?.cassette === "function") download("clew-tape.json", await state.task.cassette(), 1);
  });
  $("replay").addEventListener("change", replayChosen);
  $("builtinTape").addEventListener("click", replayBuiltin);
}
