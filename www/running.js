// Running a task: its options from the page (model, workspace tools, MCP servers, say/ask
// wired to the timeline and the asks, persist when it is kept), starting one (recording its
// tape, or replaying one), restoring a kept one, and running either to its outcome.
// Task from clew/cassette: clew's Task, which records the tape of every task started here.
import { Task } from "clew/cassette";
import { answerUi, showAnswer } from "./asks.js";
import { $ } from "./dom.js";
import { keepSoon, persistFor, storeFailed } from "./keeping.js";
import { reconnect } from "./mcp-panel.js";
import { applySettings, contextOptions, loadBuiltinTape, lockSettings, modelOptions, readSettings, showModelSource } from "./settings.js";
import { mcpServers, state, workspace } from "./state.js";
import { clearTimeline, show, showNote, showOutcome } from "./timeline.js";

/**
 * The task's options from the page's controls; `record` (a kept task) adds persist, and
 * `tape` is the built-in one for the offline model (null: the script alone).
 */
function taskOptions(environment, record, tape = null) {
  const shown = (message) => {
    show(message);
    if (record) keepSoon(record);
  };
  const options = {
    model: modelOptions(tape),
    tools: workspace.tools(),
    autoApprove: { readOnly: $("readOnly").checked },
    yolo: $("yolo").checked,
    parallelToolCalling: $("parallel").checked,
    maxConsecutiveMistakes: Math.max(1, Number($("maxMistakes").value) || 3),
    // The files a summary names as required come from the workspace.
    contextManagement: { ...contextOptions(), summarize: { readRequiredFiles: (paths) => paths
      .filter((path) => workspace.files.has(path)).map((path) => ({ path, content: workspace.files.get(path) })) } },
    environment,
    say: shown,
    // NOTE: replaying a tape, each ask comes with the tape's answer, to show.
    ask: (message, replayed) => {
      shown(message);
      if (replayed) return showAnswer(message, replayed.answer);
      return message.partial ? undefined : answerUi(message);
    },
  };
  if (mcpServers.length) options.mcpServers = mcpServers.map(({ name, client }) => ({ name, client }));
  if (record) {
    // NOTE: the files are stored with the task, so after a reload they are as they were before
    // the tool that was running began: running it again is exactly what is needed.
    options.tools = options.tools.map((tool) => tool.readOnly ? tool : { ...tool, idempotent: true });
    options.persist = persistFor(record);
    // The servers' addresses are kept with the task, to connect them again after a reload.
    record.app.mcp = mcpServers.map(({ name, url }) => ({ name, url }));
  }
  return options;
}

/** Enables (or not) the buttons that start a task. */
function startable(yes) {
  $("start").disabled = !yes;
  $("builtinTape").disabled = !yes;
}

/**
 * Starts a task, recording its tape (with what replaying it here needs: the settings, the
 * files before it and its text); with `tape`, replays that tape instead.
 */
export async function start(text, tape) {
  // NOTE: a second click while the built-in tape loads must not start a second task.
  startable(false);
  // NOTE: replaying a tape, the cassette answers the model: the built-in tape is not needed.
  const offline = !tape && $("provider").value === "offline";
  const builtin = offline ? await loadBuiltinTape() : null;
  clearTimeline();
  state.savedTask = null;
  $("resume").hidden = true;
  const environment = `The workspace holds: ${[...workspace.files.keys()].join(", ")}.`;
  const record = state.store && !tape ? { task: null, app: { settings: readSettings(), environment, finished: false } } : null;
  const meta = { app: "clew playground", settings: readSettings(), files: workspace.snapshot(), text };
  if (tape) showModelSource("model: the tape being replayed");
  else if (!offline) showModelSource(null);
  else if (builtin) showModelSource("model: the built-in tape");
  else showModelSource(`model: script (the built-in tape did not load: ${state.builtinTapeError?.message})`);
  let current;
  try {
    current = new Task({
      ...taskOptions(environment, record, builtin),
      cassette: tape ? { mode: "replay", data: tape, allowUnused: false } : { mode: "record", meta },
    });
  } catch (error) {
    alert(`${error.code ?? error.name}: ${error.message}`);
    startable(true);
    return;
  }
  $("tape").disabled = !!tape;
  if (record) {
    record.task = current;
    state.store.clear().catch(storeFailed);
  }
  state.kept = record;
  await run(current, () => current.start(text));
}

/**
 * Restores a stored task (`{ head, snapshot }` from the store: `head.app` is the page's data),
 * shows it and resumes it. A remote model's task waits for the Resume button (`clicked`),
 * since keys are not stored.
 */
export async function restore(saved, clicked = false) {
  const app = saved.head.app;
  applySettings(app.settings ?? {});
  clearTimeline();
  if ($("provider").value !== "offline" && !app.finished && !clicked) {
    for (const message of saved.snapshot.messages) show(message);
    state.savedTask = saved;
    $("resume").hidden = false;
    $("apiKey").focus();
    document.body.dataset.state = "ready";
    return;
  }
  state.savedTask = null;
  $("resume").hidden = true;
  if (!app.finished) await reconnect(app.mcp ?? []);
  const record = { task: null, app };
  // NOTE: a restored task is past the tape's first requests: the script answers it.
  showModelSource($("provider").value === "offline" ? "model: script (a restored task)" : null);
  let current;
  try {
    current = Task.restore(saved.snapshot, taskOptions(app.environment, record));
  } catch (error) {
    showNote("outcome failed", `The task kept in this browser could not be restored (${error.code ?? error.name}): ${error.message}`);
    await state.store?.clear().catch(storeFailed);
    document.body.dataset.state = "ready";
    return;
  }
  record.task = current;
  state.kept = record;
  state.task = current;
  // NOTE: a task restored from this browser has no tape (its start was recorded elsewhere).
  $("tape").disabled = true;
  for (const message of current.messages) show(message);
  await run(current, () => current.resume());
}

/** Runs `begin()` (a start or a resume) and shows the outcome. */
async function run(current, begin) {
  state.task = current;
  document.body.dataset.state = "running";
  startable(false);
  $("abort").disabled = false;
  lockSettings(true);
  const outcome = await begin();
  if (state.task !== current) return;
  lockSettings(false);
  state.lastOutcome = outcome;
  showOutcome(outcome);
  startable(true);
  $("abort").disabled = true;
  document.body.dataset.state = outcome.status;
}

/** Wires the composer's Start, Abort and Resume. */
export function wireRunning() {
  $("composer").addEventListener("submit", (event) => {
    event.preventDefault();
    const text = $("taskText").value.trim();
    if (text) start(text);
  });
  $("abort").addEventListener("click", () => state.task?.abort("stopped by the user"));
  $("resume").addEventListener("click", () => { if (state.savedTask) restore(state.savedTask, true); });
}
