// The timeline: one row per say/ask message of the task on screen (updated in place while it
// streams), the task's outcome, and the status bar's usage. How an ask is answered is
// asks.js's; this module only draws.
import { $, parseJson } from "./dom.js";
import { isReadOnlyTool } from "./mcp-panel.js";
import { rows, state, workspace } from "./state.js";

/** A workspace tool's message: its card, with the badge when the tool is read-only. */
function toolCard(message) {
  const data = parseJson(message.text) ?? {};
  const readOnly = workspace.tools().find((t) => t.name === data.tool)?.readOnly;
  // NOTE: a summary (summarizeTask) shows its text as its one parameter.
  return callCard(`${data.tool ?? "tool"}`, readOnly, data.params ?? (typeof data.content === "string" ? { summary: data.content } : {}));
}

/** A use_mcp_server message: `{ type, serverName, toolName, arguments }` or a resource's `uri`. */
function mcpCard(message) {
  const data = parseJson(message.text) ?? {};
  const server = data.serverName ?? "MCP server";
  if (data.type === "access_mcp_resource") return callCard(`${server} › resource`, true, { uri: data.uri ?? "" });
  const args = parseJson(data.arguments ?? ""); // a JSON text; shown as it is while it streams
  return callCard(`${server} › ${data.toolName ?? "tool"}`, isReadOnlyTool(data.serverName, data.toolName),
    { arguments: args ? JSON.stringify(args, null, 2) : data.arguments ?? "" });
}

/** A tool call's card: its name, a read-only badge, and one row per parameter. */
function callCard(name, readOnly, params) {
  const card = document.createElement("div");
  card.className = "tool-card";
  const title = document.createElement("div");
  title.className = "tool-name";
  title.textContent = name;
  card.append(title);
  if (readOnly) title.append(" ", Object.assign(document.createElement("span"), { className: "badge", textContent: "read-only" }));
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

/** Each kind's body, from the message's text (the others show their text as it is). */
const BODIES = {
  reasoning: (message, text) => {
    const details = document.createElement("details");
    details.open = !!message.partial;
    const summary = document.createElement("summary");
    summary.textContent = message.partial ? "Thinking…" : "Reasoning";
    const pre = document.createElement("pre");
    pre.textContent = text;
    details.append(summary, pre);
    return details;
  },
  tool: (message) => toolCard(message),
  use_mcp_server: (message) => mcpCard(message),
  api_req_started: (message, text) => {
    const info = parseJson(text) ?? {};
    return message.partial ? "Request…" :
      `Request: ${info.tokensIn ?? 0} in, ${info.tokensOut ?? 0} out, $${(info.cost ?? 0).toFixed(4)}${info.contextTokens === undefined ? "" : `, context ${info.contextTokens}`}${info.cancelReason ? ` (${info.cancelReason})` : ""}`;
  },
  compaction: (message, text) => {
    const info = parseJson(text) ?? {};
    const what = { truncate: "Truncated the conversation", edit: "Cleared old tool results", summary: "Summarized the conversation", native: `Compacted by ${info.provider ?? "the provider"}` }[info.kind] ?? "Compacted";
    // NOTE: the size after is measured by the next request when the say does not have it.
    const tokens = info.tokensBefore == null ? "" : `: ${info.tokensBefore} tokens${info.tokensAfter == null ? "" : ` → ${info.tokensAfter}`}`;
    return info.status === "failed" ? `${what} failed${info.reason ? `: ${info.reason}` : ""}` : `${what}${tokens}`;
  },
  error_retry: (message, text) => {
    const info = parseJson(text) ?? {};
    return info.failed ? `Failed after ${info.attempt} retries: ${info.errorMessage}` : `Retry ${info.attempt}/${info.maxAttempts} in ${info.delaySeconds} s: ${info.errorMessage}`;
  },
  followup: (message, text) => parseJson(text)?.question ?? text,
  task: (message, text) => `Task: ${text}`,
  completion_result: (message, text) => (message.type === "ask" && !text ? "Accept the result, or reply to ask for changes." : text),
};

function fillRow(li, message) {
  const kind = message.type === "say" ? message.say : message.ask;
  li.className = `${message.type} ${kind}${message.partial ? " partial" : ""}`;
  li.dataset.kind = `${message.type}:${kind}`;
  const body = li.querySelector(".body") ?? li.appendChild(Object.assign(document.createElement("div"), { className: "body" }));
  const text = message.text ?? "";
  body.replaceChildren(Object.hasOwn(BODIES, kind) ? BODIES[kind](message, text) : text);
}

/** Shows `message` in its row (a new one, or the row of its `ts` while it streams). */
export function show(message) {
  let row = rows.get(message.ts);
  if (!row) {
    const li = document.createElement("li");
    li.dataset.ts = String(message.ts);
    $("timeline").append(li);
    row = { li };
    rows.set(message.ts, row);
  }
  // NOTE: an ask asked again after a partial one may come without the text it streamed.
  if (message.type === "ask" && !message.partial && !message.text && row.message?.text) message = { ...message, text: row.message.text };
  row.message = message;
  fillRow(row.li, message);
  row.li.scrollIntoView({ block: "nearest" });
  updateStatus();
}

/** Adds a row that is no message: `kind` is `outcome:<status>`; `className` styles it. */
export function showNote(className, text, kind) {
  const li = document.createElement("li");
  li.className = className;
  if (kind) li.dataset.kind = kind;
  li.textContent = text;
  $("timeline").append(li);
}

/** Shows the task's outcome and takes the controls of any ask left unanswered away. */
export function showOutcome(outcome) {
  const text = outcome.status === "completed" ? `Completed: ${outcome.result}` : `${outcome.status}: ${outcome.error?.message ?? ""}`;
  showNote(`outcome ${outcome.status}`, text, `outcome:${outcome.status}`);
  for (const controls of document.querySelectorAll(".ask-controls")) controls.remove();
  updateStatus();
}

/** Empties the timeline for the next task. */
export function clearTimeline() {
  $("timeline").replaceChildren();
  rows.clear();
  state.lastOutcome = null;
}

/** The status bar: the task's state and usage. */
export function updateStatus() {
  const task = state.task;
  if (!task) return;
  const usage = task.usage;
  $("state").textContent = task.state;
  $("tokensIn").textContent = usage.inputTokens;
  $("tokensOut").textContent = usage.outputTokens;
  $("cache").textContent = `${usage.cacheReadTokens} read / ${usage.cacheWriteTokens} written`;
  $("cost").textContent = `$${usage.totalCost.toFixed(4)}`;
  $("requests").textContent = usage.requests;
}
