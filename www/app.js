// The playground: a Task from the package, a workspace of files with tools over it, and a
// timeline of the task's say/ask messages with real UI for every ask. The page holds no
// loop logic: it renders messages and answers asks. With "keep in this browser" on, the task
// and the files are stored in IndexedDB (store.js) and a reload restores and resumes them.
// MCP servers connected by URL give the next task their tools too.
import { ready } from "clew";
// Task from clew/cassette: clew's Task, which records the tape of every task started here;
// tapeModel: the offline model is the built-in tape, with the script past it.
import { Task, tapeModel } from "clew/cassette";
import { Workspace, SAMPLE_FILES } from "./workspace.js";
import { offlineRequest, OFFLINE_MODEL_INFO } from "./offline-model.js";
import { TaskStore } from "./store.js";

const $ = (id) => document.getElementById(id);
const workspace = new Workspace();
let task = null;
let lastOutcome = null;
const rows = new Map(); // ts -> { li, message }
const KEEP = "clew-playground:keep"; // localStorage: "on" when the box is checked
let store = null; // the TaskStore while the box is on
let kept = null; // the task being kept: { task, app: { settings, environment, finished } }
let savedTask = null; // a stored remote model's task, waiting for the Resume button

// Workspace panel -----------------------------------------------------------------------
let shown = "README.md";
function renderFiles(changedPath) {
  const list = $("files");
  list.replaceChildren();
  for (const path of [...workspace.files.keys()].sort()) {
    const li = document.createElement("li");
    const button = document.createElement("button");
    button.type = "button";
    button.textContent = path;
    button.dataset.path = path;
    if (path === shown) button.classList.add("shown");
    if (path === changedPath) li.classList.add("changed");
    button.addEventListener("click", () => { shown = path; renderFiles(); });
    li.append(button);
    list.append(li);
  }
  $("file").textContent = workspace.files.get(shown) ?? "";
  $("file").dataset.path = shown;
}
workspace.addEventListener("change", (event) => {
  if (event.path) shown = event.path;
  renderFiles(event.path);
});
$("reset").addEventListener("click", () => workspace.load(SAMPLE_FILES));

// Keeping the task in this browser ------------------------------------------------------
// A kept task's files are stored with it, in the same transaction: at every waiting point
// (options.persist) and, since a streaming reply reaches no waiting point, also 200 ms after
// a message arrived (a whole task.snapshot(), of which only what changed is written). While
// the task runs its tools' changes wait for the next of those, so what is stored is always
// one moment of both; otherwise a change of the files is stored at once.
const keptRunning = () => kept !== null && kept.task === task && task.outcome === undefined;
workspace.addEventListener("change", () => {
  if (store && !keptRunning()) store.writeFiles(workspace.snapshot()).catch(storeFailed);
});

function storeFailed(error) {
  console.warn("clew playground: keeping in this browser failed:", error);
}

/** Stores `changes` (persist's, or a whole snapshot) of the kept `record` with the files. */
function keep(record, changes, reason) {
  if (!store || record !== kept) return undefined;
  const written = store.write(changes, { ...record.app }, workspace.snapshot());
  return written.then(() => { document.body.dataset.kept = reason; });
}

/** Stores the whole task now, unless a tool is changing the files (the next persist will). */
function keepWhole(record, reason = record.task.state) {
  if (!store || record !== kept) return;
  if (record.task.outcome === undefined && record.task.state === "tool") {
    record.whole = true;
    return;
  }
  record.whole = false;
  keep(record, { ...record.task.snapshot(), historyFrom: 0, messagesFrom: 0 }, reason)?.catch(storeFailed);
}

function persistFor(record) {
  return (changes, { reason }) => {
    if (reason === "finished") record.app.finished = true;
    if (record.whole) {
      record.whole = false;
      return keep(record, { ...record.task.snapshot(), historyFrom: 0, messagesFrom: 0 }, reason);
    }
    return keep(record, changes, reason);
  };
}

/** A message arrived: store the task soon (what streamed, or a stream that ended during an ask). */
function keepSoon(record) {
  if (!store || record !== kept || record.timer) return;
  record.timer = setTimeout(() => {
    record.timer = null;
    if (record.task.outcome === undefined) keepWhole(record);
  }, 200);
}

function showKeepNote() {
  $("keepNote").hidden = !$("persist").checked;
}

$("persist").addEventListener("change", async () => {
  const on = $("persist").checked;
  localStorage.setItem(KEEP, on ? "on" : "off");
  showKeepNote();
  if (on && !store) {
    const opened = await TaskStore.open().catch((error) => { storeFailed(error); return null; });
    if (!opened || !$("persist").checked || store) return opened?.close();
    store = opened;
    store.clear().catch(storeFailed);
    store.writeFiles(workspace.snapshot()).then(() => { document.body.dataset.kept = "on"; }, storeFailed);
    if (kept) keepWhole(kept, "on");
  } else if (!on && store) {
    const closing = store;
    store = null;
    await closing.clear({ files: true }).catch(storeFailed);
    closing.close();
  }
});

const SETTINGS = ["provider", "baseUrl", "modelId", "readOnly", "yolo", "parallel", "maxMistakes", "taskText"];
/** The controls a task is made with: locked while it runs, so they show what it runs with. */
const TASK_SETTINGS = SETTINGS.filter((id) => id !== "taskText");
function lockSettings(locked) {
  for (const id of TASK_SETTINGS) $(id).disabled = locked;
  // NOTE: the provider's change handler decides whether the base URL applies.
  if (!locked) $("provider").dispatchEvent(new Event("change"));
}
function readSettings() {
  return Object.fromEntries(SETTINGS.map((id) => [id, $(id).type === "checkbox" ? $(id).checked : $(id).value]));
}
function applySettings(settings) {
  for (const id of SETTINGS) {
    if (!(id in settings)) continue;
    if ($(id).type === "checkbox") $(id).checked = settings[id];
    else $(id).value = settings[id];
  }
  $("provider").dispatchEvent(new Event("change"));
}

// Model settings ------------------------------------------------------------------------
$("provider").addEventListener("change", () => {
  const remote = $("provider").value !== "offline";
  document.querySelector(".remote").hidden = !remote;
  $("baseUrl").disabled = $("provider").value === "anthropic";
  $("baseUrl").placeholder = BASE_URLS[$("provider").value] ?? "";
});

/** Each remote format's default API address (what an empty Base URL means). */
const BASE_URLS = {
  openai: "https://api.openai.com/v1",
  "openai-responses": "https://api.openai.com/v1",
  gemini: "https://generativelanguage.googleapis.com/v1beta",
};

/**
 * The built-in tape (offline-tape.json), loaded once: a promise of the tape, or of null when
 * it could not be loaded (a later call tries again).
 */
let builtinTapeLoad = null;
let builtinTapeError = null; // why it last failed to load
function loadBuiltinTape() {
  builtinTapeLoad ??= fetch(new URL("./offline-tape.json", import.meta.url))
    .then((response) => { if (!response.ok) throw new Error(`HTTP ${response.status}`); return response.json(); })
    .catch((error) => { builtinTapeLoad = null; builtinTapeError = error; return null; });
  return builtinTapeLoad;
}

/** Shows where the model's replies come from (`#modelSource`); `live` is tapeModel's onLive report. */
function showModelSource(text, live) {
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
function modelOptions(tape) {
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

// MCP servers ---------------------------------------------------------------------------
// Each connected server joins every task started (or restored) after it connected: clew lists
// its tools before each request and describes them to the model. The panel shows them too.
// clew/mcp and the SDK's client (mcp-sdk.js, which the import map gives) load with the first
// connection, so a page that connects none never downloads them.
const mcpServers = []; // { name, url, client, tools }, in the order they connected

/** `text` as a server name: letters, digits, _ and - only, at most 64 (what clew accepts). */
function serverName(text) {
  return text.replace(/[^A-Za-z0-9_-]+/g, "_").replace(/^_+|_+$/g, "").slice(0, 64);
}

/** The name of a server at `url` when none is given: its host's, made unique with _2, _3… */
function defaultServerName(url) {
  const base = serverName(url.hostname).slice(0, 60) || "mcp";
  let name = base;
  for (let n = 2; mcpServers.some((s) => s.name === name); n++) name = `${base}_${n}`;
  return name;
}

function showMcpError(text) {
  $("mcpError").textContent = text;
  $("mcpError").hidden = !text;
}

async function loadMcp() {
  try {
    return await import("clew/mcp");
  } catch (error) {
    throw new Error(`The MCP client did not load (${error.message}). scripts/build makes www/mcp-sdk.js.`);
  }
}

/** Every tool of a connected client, following the server's pages (100 at most). */
async function listTools(client) {
  const tools = [];
  let cursor;
  for (let pages = 0; pages < 100 && (pages === 0 || cursor); pages++) {
    const page = await client.listTools(cursor ? { cursor } : undefined);
    tools.push(...(page.tools ?? []));
    cursor = page.nextCursor;
  }
  return tools;
}

/** Why connecting to `url` failed, in words. A failed fetch says nothing, so name its usual causes. */
function connectError(url, error) {
  const message = error?.message ?? String(error);
  const network = error instanceof TypeError && /fetch/i.test(message);
  const hint = network ? " (is the server running? Does it allow this page's origin with CORS headers?)" : "";
  return `Could not connect to ${url}: ${message}${hint}`;
}

/** Connects to the server at `url` as `name`, lists its tools and adds it to the panel. */
async function connectMcp(name, url) {
  const { connectMcpServer } = await loadMcp();
  let server;
  try {
    const client = await connectMcpServer(url);
    server = { name, url: url.href, client, tools: [] };
    server.tools = await listTools(client);
  } catch (error) {
    server?.client.close().catch(() => {});
    throw new Error(connectError(url, error));
  }
  if (mcpServers.some((s) => s.name === name)) {
    // Another connection took the name while this one connected.
    server.client.close().catch(() => {});
    throw new Error(`A server named "${name}" is connected already: give this one another name.`);
  }
  watchTools(server);
  mcpServers.push(server);
  renderServers();
  return server;
}

/**
 * Lists the server's tools again when it says they changed. NOTE: the SDK's fallback handler,
 * not a handler of that notification: clew chains its own to the fallback one it finds.
 */
function watchTools(server) {
  const previous = server.client.fallbackNotificationHandler;
  server.client.fallbackNotificationHandler = async (notification) => {
    if (notification.method === "notifications/tools/list_changed") {
      listTools(server.client).then((tools) => {
        server.tools = tools;
        renderServers();
      }, (error) => showMcpError(`Listing the tools of ${server.name} again failed: ${error.message}`));
    }
    return previous?.call(server.client, notification);
  };
}

/** Closes the server's connection: a running task that has it gets error results from it. */
function disconnect(server) {
  const at = mcpServers.indexOf(server);
  if (at < 0) return;
  mcpServers.splice(at, 1);
  renderServers();
  server.client.close().catch((error) => showMcpError(`Closing ${server.name} failed: ${error.message}`));
}

/** The Connect button: checks the URL and the name, then connects. */
async function connectClicked(event) {
  event.preventDefault();
  showMcpError("");
  const text = $("mcpUrl").value.trim();
  let url;
  try {
    url = new URL(text);
  } catch {
    showMcpError(`"${text}" is not a URL: write it whole, like https://example.com/mcp.`);
    return;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    showMcpError(`${url.protocol} is not a protocol of MCP over HTTP: the URL starts with https:// (or http://).`);
    return;
  }
  const typed = $("mcpName").value.trim();
  const name = typed ? serverName(typed) : defaultServerName(url);
  if (!name) {
    showMcpError(`"${typed}" has no letter or digit: a server's name is made of letters, digits, _ and -.`);
    return;
  }
  if (mcpServers.some((s) => s.name === name)) {
    showMcpError(`A server named "${name}" is connected already: give this one another name.`);
    return;
  }
  $("mcpConnect").disabled = true;
  $("mcpConnect").textContent = "Connecting…";
  try {
    await connectMcp(name, url);
    $("mcpUrl").value = "";
    $("mcpName").value = "";
  } catch (error) {
    showMcpError(error.message);
  } finally {
    $("mcpConnect").disabled = false;
    $("mcpConnect").textContent = "Connect";
  }
}
$("mcpForm").addEventListener("submit", connectClicked);

/** Connects again the servers a kept task had (`[{ name, url }]`) that are not connected. */
async function reconnect(servers) {
  const failures = [];
  for (const { name, url } of servers) {
    if (mcpServers.some((s) => s.name === name)) continue;
    await connectMcp(name, new URL(url)).catch((error) => failures.push(`The task's server "${name}": ${error.message}`));
  }
  if (failures.length) showMcpError(failures.join("\n"));
}

const isReadOnly = (tool) => tool?.annotations?.readOnlyHint === true;

function toolItem(tool) {
  const li = document.createElement("li");
  li.dataset.tool = tool.name;
  const name = document.createElement("code");
  name.textContent = tool.name;
  li.append(name);
  if (isReadOnly(tool)) li.append(" ", Object.assign(document.createElement("span"), { className: "badge", textContent: "read-only" }));
  const description = tool.description ?? tool.title ?? "";
  if (description) li.append(Object.assign(document.createElement("span"), { className: "description", textContent: description }));
  return li;
}

function serverItem(server) {
  const li = document.createElement("li");
  li.dataset.server = server.name;
  const head = document.createElement("div");
  head.className = "server";
  const name = document.createElement("b");
  name.textContent = server.name;
  const url = document.createElement("span");
  url.className = "url";
  url.textContent = server.url;
  head.append(name, url, button("Disconnect", "disconnect", () => disconnect(server)));
  const tools = document.createElement("ul");
  tools.className = "mcp-tools";
  tools.append(...server.tools.map(toolItem));
  if (server.tools.length === 0) tools.append(Object.assign(document.createElement("li"), { textContent: "(no tools)" }));
  li.append(head, tools);
  return li;
}

function renderServers() {
  $("mcpServers").replaceChildren(...mcpServers.map(serverItem));
  $("mcpNote").hidden = mcpServers.length === 0;
}

// Timeline ------------------------------------------------------------------------------
function parseJson(text) {
  try { return JSON.parse(text); } catch { return null; }
}

function toolCard(message) {
  const data = parseJson(message.text) ?? {};
  const readOnly = workspace.tools().find((t) => t.name === data.tool)?.readOnly;
  return callCard(`${data.tool ?? "tool"}`, readOnly, data.params ?? {});
}

/** A use_mcp_server message: `{ type, serverName, toolName, arguments }` or a resource's `uri`. */
function mcpCard(message) {
  const data = parseJson(message.text) ?? {};
  const server = data.serverName ?? "MCP server";
  if (data.type === "access_mcp_resource") return callCard(`${server} › resource`, true, { uri: data.uri ?? "" });
  const tool = mcpServers.find((s) => s.name === data.serverName)?.tools.find((t) => t.name === data.toolName);
  const args = parseJson(data.arguments ?? ""); // a JSON text; shown as it is while it streams
  return callCard(`${server} › ${data.toolName ?? "tool"}`, isReadOnly(tool), { arguments: args ? JSON.stringify(args, null, 2) : data.arguments ?? "" });
}

/** A tool call's card: its name, a read-only badge, and one row per parameter. */
function callCard(name, readOnly, params) {
  const card = document.createElement("div");
  card.className = "tool-card";
  const title = document.createElement("div");
  title.className = "tool-name";
  title.textContent = name;
  card.append(title);
  if (readOnly) {
    const badge = document.createElement("span");
    badge.className = "badge";
    badge.textContent = "read-only";
    title.append(" ", badge);
  }
  for (const [param, value] of Object.entries(params)) {
    const row = document.createElement("div");
    row.className = "param";
    const key = document.createElement("span");
    key.textContent = param;
    const pre = document.createElement("pre");
    pre.textContent = value;
    row.append(key, pre);
    card.append(row);
  }
  return card;
}

function fillRow(li, message) {
  const kind = message.type === "say" ? message.say : message.ask;
  li.className = `${message.type} ${kind}${message.partial ? " partial" : ""}`;
  li.dataset.kind = `${message.type}:${kind}`;
  const body = li.querySelector(".body") ?? li.appendChild(Object.assign(document.createElement("div"), { className: "body" }));
  body.replaceChildren();
  const text = message.text ?? "";
  switch (kind) {
    case "reasoning": {
      const details = document.createElement("details");
      details.open = !!message.partial;
      const summary = document.createElement("summary");
      summary.textContent = message.partial ? "Thinking…" : "Reasoning";
      const pre = document.createElement("pre");
      pre.textContent = text;
      details.append(summary, pre);
      body.append(details);
      break;
    }
    case "tool":
      body.append(toolCard(message));
      break;
    case "use_mcp_server":
      body.append(mcpCard(message));
      break;
    case "api_req_started": {
      const info = parseJson(text) ?? {};
      body.textContent = message.partial ? "Request…" :
        `Request: ${info.tokensIn ?? 0} in, ${info.tokensOut ?? 0} out, $${(info.cost ?? 0).toFixed(4)}${info.cancelReason ? ` (${info.cancelReason})` : ""}`;
      break;
    }
    case "error_retry": {
      const info = parseJson(text) ?? {};
      body.textContent = info.failed ? `Failed after ${info.attempt} retries: ${info.errorMessage}` : `Retry ${info.attempt}/${info.maxAttempts} in ${info.delaySeconds} s: ${info.errorMessage}`;
      break;
    }
    case "followup": {
      const info = parseJson(text) ?? {};
      body.textContent = info.question ?? text;
      break;
    }
    case "task":
      body.textContent = `Task: ${text}`;
      break;
    case "completion_result":
      body.textContent = message.type === "ask" && !text ? "Accept the result, or reply to ask for changes." : text;
      break;
    default:
      body.textContent = text;
  }
}

function show(message) {
  let row = rows.get(message.ts);
  if (!row) {
    const li = document.createElement("li");
    li.dataset.ts = String(message.ts);
    $("timeline").append(li);
    row = { li };
    rows.set(message.ts, row);
  }
  if (message.type === "ask" && !message.partial && !message.text && row.message?.text) message = { ...message, text: row.message.text };
  row.message = message;
  fillRow(row.li, message);
  row.li.scrollIntoView({ block: "nearest" });
  updateStatus();
}

function button(label, className, onClick) {
  const b = document.createElement("button");
  b.type = "button";
  b.textContent = label;
  b.className = className;
  b.addEventListener("click", onClick);
  return b;
}

/** Shows the ask's controls and resolves with the user's answer. */
/** Marks an ask's row with its answer. */
function showAnswer(message, answer) {
  const row = rows.get(message.ts);
  row.li.classList.add("answered");
  const verdict = document.createElement("div");
  verdict.className = "verdict";
  verdict.textContent = answer?.response === "yesButtonClicked" ? "✓ approved" : answer?.response === "noButtonClicked" ? "✗ declined" : `↳ ${answer?.text || "answered"}`;
  row.li.append(verdict);
}

function answerUi(message) {
  return new Promise((resolve) => {
    const row = rows.get(message.ts);
    const controls = document.createElement("div");
    controls.className = "ask-controls";
    const input = document.createElement("input");
    input.placeholder = "optional feedback";
    const done = (answer) => {
      controls.remove();
      showAnswer(message, answer);
      resolve(answer);
    };
    const text = () => input.value.trim();
    switch (message.ask) {
      case "tool":
      case "use_mcp_server":
        controls.append(input,
          button("Approve", "approve", () => done({ response: "yesButtonClicked", text: text() || undefined })),
          button("Deny", "deny", () => done(text() ? { response: "messageResponse", text: text() } : { response: "noButtonClicked" })));
        break;
      case "followup": {
        input.placeholder = "your answer";
        const options = parseJson(parseJson(message.text)?.options ?? "") ?? [];
        for (const option of Array.isArray(options) ? options : []) {
          controls.append(button(String(option), "option", () => done({ response: "messageResponse", text: String(option) })));
        }
        controls.append(input, button("Answer", "answer", () => done({ response: "messageResponse", text: text() })));
        break;
      }
      case "completion_result":
        input.placeholder = "reply to ask for changes";
        controls.append(input,
          button("Accept", "accept", () => done({ response: "yesButtonClicked" })),
          button("Reply", "reply", () => done({ response: "messageResponse", text: text() })));
        break;
      case "api_req_failed":
        controls.append(button("Retry", "retry", () => done({ response: "yesButtonClicked" })), button("End", "end", () => done({ response: "noButtonClicked" })));
        break;
      case "mistake_limit_reached":
        input.placeholder = "guidance for the model";
        controls.append(input,
          button("Continue", "continue", () => done(text() ? { response: "messageResponse", text: text() } : { response: "yesButtonClicked" })),
          button("Stop", "end", () => done({ response: "noButtonClicked" })));
        break;
      default:
        controls.append(button("OK", "approve", () => done({ response: "yesButtonClicked" })));
    }
    row.li.append(controls);
    input.addEventListener("keydown", (event) => { if (event.key === "Enter") controls.querySelector("button:last-of-type")?.click(); });
  });
}

function updateStatus() {
  if (!task) return;
  const usage = task.usage;
  $("state").textContent = task.state;
  $("tokensIn").textContent = usage.inputTokens;
  $("tokensOut").textContent = usage.outputTokens;
  $("cache").textContent = `${usage.cacheReadTokens} read / ${usage.cacheWriteTokens} written`;
  $("cost").textContent = `$${usage.totalCost.toFixed(4)}`;
  $("requests").textContent = usage.requests;
}

// Running a task -------------------------------------------------------------------------
/**
 * The task's options from the page's controls; `record` (a kept task) adds persist, and
 * `tape` is the built-in one for the offline model (null: the script alone).
 */
function taskOptions(environment, record, tape = null) {
  const options = {
    model: modelOptions(tape),
    tools: workspace.tools(),
    autoApprove: { readOnly: $("readOnly").checked },
    yolo: $("yolo").checked,
    parallelToolCalling: $("parallel").checked,
    maxConsecutiveMistakes: Math.max(1, Number($("maxMistakes").value) || 3),
    environment,
    say: (message) => {
      show(message);
      if (record) keepSoon(record);
    },
    // NOTE: replaying a tape, each ask comes with the tape's answer, to show.
    ask: (message, replayed) => {
      show(message);
      if (record) keepSoon(record);
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

function clearTimeline() {
  $("timeline").replaceChildren();
  rows.clear();
  lastOutcome = null;
}

/**
 * Starts a task, recording its tape (with what replaying it here needs: the settings, the
 * files before it and its text); with `tape`, replays that tape instead.
 */
async function start(text, tape) {
  // NOTE: a second click while the built-in tape loads must not start a second task.
  $("start").disabled = true;
  $("builtinTape").disabled = true;
  // NOTE: replaying a tape, the cassette answers the model: the built-in tape is not needed.
  const offline = !tape && $("provider").value === "offline";
  const builtin = offline ? await loadBuiltinTape() : null;
  clearTimeline();
  savedTask = null;
  $("resume").hidden = true;
  const environment = `The workspace holds: ${[...workspace.files.keys()].join(", ")}.`;
  const record = store && !tape ? { task: null, app: { settings: readSettings(), environment, finished: false } } : null;
  const meta = { app: "clew playground", settings: readSettings(), files: workspace.snapshot(), text };
  if (tape) showModelSource("model: the tape being replayed");
  else if (!offline) showModelSource(null);
  else if (builtin) showModelSource("model: the built-in tape");
  else showModelSource(`model: script (the built-in tape did not load: ${builtinTapeError?.message})`);
  let current;
  try {
    current = new Task({
      ...taskOptions(environment, record, builtin),
      cassette: tape ? { mode: "replay", data: tape, allowUnused: false } : { mode: "record", meta },
    });
  } catch (error) {
    alert(`${error.code ?? error.name}: ${error.message}`);
    $("start").disabled = false;
    $("builtinTape").disabled = false;
    return;
  }
  $("tape").disabled = !!tape;
  if (record) {
    record.task = current;
    store.clear().catch(storeFailed);
  }
  kept = record;
  await run(current, () => current.start(text));
}

/**
 * Restores a stored task (`{ head, snapshot }` from the store), shows it and resumes it. A
 * remote model's task waits for the Resume button (`clicked`), since keys are not stored.
 */
async function restore(saved, clicked = false) {
  applySettings(saved.head.app.settings ?? {});
  clearTimeline();
  if ($("provider").value !== "offline" && !saved.head.app.finished && !clicked) {
    for (const message of saved.snapshot.messages) show(message);
    savedTask = saved;
    $("resume").hidden = false;
    $("apiKey").focus();
    document.body.dataset.state = "ready";
    return;
  }
  savedTask = null;
  $("resume").hidden = true;
  if (!saved.head.app.finished) await reconnect(saved.head.app.mcp ?? []);
  const record = { task: null, app: saved.head.app };
  // NOTE: a restored task is past the tape's first requests: the script answers it.
  showModelSource($("provider").value === "offline" ? "model: script (a restored task)" : null);
  let current;
  try {
    current = Task.restore(saved.snapshot, taskOptions(saved.head.app.environment, record));
  } catch (error) {
    const li = document.createElement("li");
    li.className = "outcome failed";
    li.textContent = `The task kept in this browser could not be restored (${error.code ?? error.name}): ${error.message}`;
    $("timeline").append(li);
    await store?.clear().catch(storeFailed);
    document.body.dataset.state = "ready";
    return;
  }
  record.task = current;
  kept = record;
  task = current;
  // NOTE: a task restored from this browser has no tape (its start was recorded elsewhere).
  $("tape").disabled = true;
  for (const message of current.messages) show(message);
  await run(current, () => current.resume());
}

/** Runs `begin()` (a start or a resume) and shows the outcome. */
async function run(current, begin) {
  task = current;
  document.body.dataset.state = "running";
  $("start").disabled = true;
  $("builtinTape").disabled = true;
  $("abort").disabled = false;
  lockSettings(true);
  const outcome = await begin();
  if (task !== current) return;
  lockSettings(false);
  lastOutcome = outcome;
  const li = document.createElement("li");
  li.className = `outcome ${outcome.status}`;
  li.dataset.kind = `outcome:${outcome.status}`;
  li.textContent = outcome.status === "completed" ? `Completed: ${outcome.result}` : `${outcome.status}: ${outcome.error?.message ?? ""}`;
  $("timeline").append(li);
  for (const controls of document.querySelectorAll(".ask-controls")) controls.remove();
  updateStatus();
  $("start").disabled = false;
  $("builtinTape").disabled = false;
  $("abort").disabled = true;
  document.body.dataset.state = outcome.status;
}

$("composer").addEventListener("submit", (event) => {
  event.preventDefault();
  const text = $("taskText").value.trim();
  if (text) start(text);
});
$("abort").addEventListener("click", () => task?.abort("stopped by the user"));
$("resume").addEventListener("click", () => { if (savedTask) restore(savedTask, true); });
$("export").addEventListener("click", () => {
  const transcript = { exportedAt: new Date().toISOString(), outcome: lastOutcome, messages: task?.messages ?? [], history: task?.history ?? [], usage: task?.usage ?? null, files: workspace.snapshot() };
  const url = URL.createObjectURL(new Blob([JSON.stringify(transcript, null, 2)], { type: "application/json" }));
  const a = Object.assign(document.createElement("a"), { href: url, download: "clew-transcript.json" });
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
});

$("tape").addEventListener("click", async () => {
  if (typeof task?.cassette !== "function") return;
  const tape = await task.cassette();
  const url = URL.createObjectURL(new Blob([JSON.stringify(tape, null, 1)], { type: "application/json" }));
  const a = Object.assign(document.createElement("a"), { href: url, download: "clew-tape.json" });
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
});
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

$("replay").addEventListener("change", async () => {
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
});
// The built-in tape (offline-tape.json): the offline task, recorded in this page with its
// approvals given (pkg-tests/support/make-offline-tape.mjs records it again). The offline
// model answers from it too, while a task follows it.
$("builtinTape").addEventListener("click", async () => {
  const tape = await loadBuiltinTape();
  if (!tape) {
    alert(`The built-in tape could not be loaded: ${builtinTapeError?.message}`);
    return;
  }
  await replayTape(tape);
});

async function boot() {
  loadBuiltinTape();
  renderFiles();
  $("persist").checked = localStorage.getItem(KEEP) === "on";
  showKeepNote();
  let saved = null;
  if ($("persist").checked) {
    try {
      store = await TaskStore.open();
      saved = await store.load();
    } catch (error) {
      storeFailed(error);
    }
    if (saved?.files) workspace.load(saved.files);
  }
  if (saved?.snapshot) {
    // NOTE: Task.restore is synchronous: the browser entry's wasm must have loaded.
    await ready;
    await restore(saved);
  } else {
    document.body.dataset.state = "ready";
  }
}
boot();
