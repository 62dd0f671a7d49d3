// The task's settings: the page's controls a task is made with (read, applied, locked while
// it runs), the model they describe (the offline model is the built-in tape, then its
// script), and where the model's replies come from (#modelSource).
import { tapeModel } from "clew/cassette";
import { $ } from "./dom.js";
import { offlineRequest, OFFLINE_MODEL_INFO } from "./offline-model.js";
import { state } from "./state.js";

const SETTINGS = ["provider", "baseUrl", "modelId", "readOnly", "yolo", "parallel", "maxMistakes", "strategy", "maxContextTokens", "taskText"];
/** The controls a task is made with: locked while it runs, so they show what it runs with. */
const TASK_SETTINGS = SETTINGS.filter((id) => id !== "taskText");

/** Each remote format's default API address (what an empty Base URL means). */
const BASE_URLS = {
  openai: "https://api.openai.com/v1",
  "openai-responses": "https://api.openai.com/v1",
  gemini: "https://generativelanguage.googleapis.com/v1beta",
};

/** Locks (or frees) the controls a task is made with. */
export function lockSettings(locked) {
  for (const id of TASK_SETTINGS) $(id).disabled = locked;
  // NOTE: the provider's change handler decides whether the base URL applies.
  if (!locked) $("provider").dispatchEvent(new Event("change"));
}

/** The controls' values, by id (what a kept task and a tape keep). */
export function readSettings() {
  return Object.fromEntries(SETTINGS.map((id) => [id, $(id).type === "checkbox" ? $(id).checked : $(id).value]));
}

/** Sets the controls to `settings` (from `readSettings`); ids it lacks keep their value. */
export function applySettings(settings) {
  for (const id of SETTINGS) {
    if (!(id in settings)) continue;
    if ($(id).type === "checkbox") $(id).checked = settings[id];
    else $(id).value = settings[id];
  }
  $("provider").dispatchEvent(new Event("change"));
}

/** Shows a remote model's fields when one is picked, with its default base URL. */
export function wireSettings() {
  $("provider").addEventListener("change", () => {
    const remote = $("provider").value !== "offline";
    document.querySelector(".remote").hidden = !remote;
    $("baseUrl").disabled = $("provider").value === "anthropic";
    $("baseUrl").placeholder = BASE_URLS[$("provider").value] ?? "";
  });
}

/**
 * `contextManagement` from the controls: the strategy, and the cap when one is given (a cap
 * that is not a positive whole number is the task's TypeError to report).
 */
export function contextOptions() {
  const cap = $("maxContextTokens").value.trim();
  return { strategy: $("strategy").value, ...(cap ? { maxContextTokens: Number(cap) } : {}) };
}

/**
 * The built-in tape (offline-tape.json), loaded once: a promise of the tape, or of null when
 * it could not be loaded (`state.builtinTapeError` says why; a later call tries again).
 */
export function loadBuiltinTape() {
  state.builtinTapeLoad ??= fetch(new URL("./offline-tape.json", import.meta.url))
    .then((response) => { if (!response.ok) throw new Error(`HTTP ${response.status}`); return response.json(); })
    .catch((error) => { state.builtinTapeLoad = null; state.builtinTapeError = error; return null; });
  return state.builtinTapeLoad;
}

/** Shows where the model's replies come from (`#modelSource`); `live` is tapeModel's onLive report. */
export function showModelSource(text, live) {
  const source = $("modelSource");
  source.hidden = !text;
  source.textContent = text ?? "";
  if (live) source.title = live.reason === "ended"
    ? "The built-in tape has no more requests: the offline script answers from here."
    : `This request is not the recorded one (at ${live.path}: recorded ${live.recorded}, now ${live.actual}): the offline script answers from here.`;
  else source.removeAttribute("title");
}

/**
 * The model settings from the page's controls. The offline model is the built-in tape
 * (`tape`, when it loaded) while the task follows it, paced like the script, and the
 * script (offline-model.js) from the first request the tape does not have: a task of your
 * own, a denial, another answer, other files or settings.
 */
export function modelOptions(tape) {
  const provider = $("provider").value;
  if (provider === "offline") {
    const delayMs = Number(document.body.dataset.delay ?? 15);
    const script = { format: "anthropic", id: "clew-offline", info: OFFLINE_MODEL_INFO, request: offlineRequest({ delayMs }) };
    if (!tape) return script;
    const onLive = (live) => {
      const where = live.reason === "ended" ? "past the tape's end" : `differs at ${live.path}`;
      showModelSource(`model: script from request ${live.call + 1} (${where})`, live);
    };
    return tapeModel(tape, script, { pace: delayMs, onLive });
  }
  const common = { id: $("modelId").value.trim(), apiKey: $("apiKey").value.trim() || undefined };
  if (provider === "anthropic") return { format: "anthropic", browser: true, promptCache: true, ...common };
  // OpenAI Chat, OpenAI Responses (store: false, the default: reasoning travels back as its
  // encrypted content) and Gemini (signatures go back where they came).
  return { format: provider, baseUrl: $("baseUrl").value.trim() || undefined, ...common };
}
