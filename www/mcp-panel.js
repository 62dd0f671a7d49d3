// The MCP panel: servers connected by URL, their tools (listed and watched with clew/mcp, as
// the tasks list them), and the servers a new task gets. Each connected server joins every
// task started (or restored) after it connected. clew/mcp and the SDK's client (mcp-sdk.js,
// which the import map gives) load with the first connection, so a page that connects none
// never downloads them. A server's name is checked by the core (`mcpServersError`: the error
// `new Task` would throw), never by a rule of the page's own.
import { ready } from "clew";
import { $, button } from "./dom.js";
import { mcpServers } from "./state.js";

/** `text` made a name suggestion: each run of other characters than letters, digits, _ and - made one _. */
const asName = (text) => text.replace(/[^A-Za-z0-9_-]+/g, "_").replace(/^_+|_+$/g, "");

/** The name of a server at `url` when none is given: its host's, made unique with _2, _3… */
function defaultServerName(url) {
  const base = asName(url.hostname) || "mcp";
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
    const mcp = await import("clew/mcp");
    await ready; // mcpServersError makes a Task: the browser entry's wasm must have loaded
    return mcp;
  } catch (error) {
    throw new Error(`The MCP client did not load (${error.message}). scripts/build makes www/mcp-sdk.js.`);
  }
}

/** Why the core refuses a server named `name` beside the connected ones (its TypeError's words), or "". */
function nameRefused(mcp, name) {
  const error = mcp.mcpServersError([...mcpServers.map((s) => ({ name: s.name })), { name }]);
  return error ? `The name "${name}" is refused: ${error.message}` : "";
}

/** Why connecting to `url` failed, in words. A failed fetch says nothing, so name its usual causes. */
function connectError(url, error) {
  const message = error?.message ?? String(error);
  const network = error instanceof TypeError && /fetch/i.test(message);
  const hint = network ? " (is the server running? Does it allow this page's origin with CORS headers?)" : "";
  return `Could not connect to ${url}: ${message}${hint}`;
}

/** Lists `server`'s tools into it (and which are read-only, as a task reads them). */
async function listInto(mcp, server) {
  const tools = await mcp.listMcpTools(server.client);
  server.tools = tools;
  server.readOnly = new Set(tools.filter(mcp.isReadOnlyMcpTool).map((t) => t.name));
}

/** Connects to the server at `url` as `name`, lists its tools, watches them and adds it to the panel. */
async function connectMcp(name, url) {
  const mcp = await loadMcp();
  const refused = nameRefused(mcp, name);
  if (refused) throw new Error(refused);
  let server;
  try {
    server = { name, url: url.href, client: await mcp.connectMcpServer(url), tools: [], readOnly: new Set() };
    await listInto(mcp, server);
  } catch (error) {
    server?.client.close().catch(() => {});
    throw new Error(connectError(url, error));
  }
  // NOTE: another connection may have taken the name while this one connected.
  const taken = nameRefused(mcp, name);
  if (taken) {
    server.client.close().catch(() => {});
    throw new Error(taken);
  }
  server.unwatch = mcp.watchMcpTools(server.client, () => listInto(mcp, server).then(renderServers,
    (error) => showMcpError(`Listing the tools of ${server.name} again failed: ${error.message}`)));
  mcpServers.push(server);
  renderServers();
  return server;
}

/** Closes the server's connection: a running task that has it gets error results from it. */
function disconnect(server) {
  const at = mcpServers.indexOf(server);
  if (at < 0) return;
  mcpServers.splice(at, 1);
  server.unwatch();
  renderServers();
  server.client.close().catch((error) => showMcpError(`Closing ${server.name} failed: ${error.message}`));
}

/** The Connect button: checks the URL, names the server, then connects (the core checks the name). */
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
  const name = typed ? asName(typed) : defaultServerName(url);
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

/** Wires the panel's form. */
export function wireMcpPanel() {
  $("mcpForm").addEventListener("submit", connectClicked);
}

/** Connects again the servers a kept task had (`[{ name, url }]`) that are not connected. */
export async function reconnect(servers) {
  const failures = [];
  for (const { name, url } of servers) {
    if (mcpServers.some((s) => s.name === name)) continue;
    await connectMcp(name, new URL(url)).catch((error) => failures.push(`The task's server "${name}": ${error.message}`));
  }
  if (failures.length) showMcpError(failures.join("\n"));
}

/** Whether the tool `toolName` of the connected server `serverName` is read-only (for its card's badge). */
export function isReadOnlyTool(serverName, toolName) {
  return mcpServers.find((s) => s.name === serverName)?.readOnly.has(toolName) ?? false;
}

function toolItem(server, tool) {
  const li = document.createElement("li");
  li.dataset.tool = tool.name;
  li.append(Object.assign(document.createElement("code"), { textContent: tool.name }));
  if (server.readOnly.has(tool.name)) li.append(" ", Object.assign(document.createElement("span"), { className: "badge", textContent: "read-only" }));
  const description = tool.description ?? tool.title ?? "";
  if (description) li.append(Object.assign(document.createElement("span"), { className: "description", textContent: description }));
  return li;
}

function serverItem(server) {
  const li = document.createElement("li");
  li.dataset.server = server.name;
  const head = document.createElement("div");
  head.className = "server";
  const url = Object.assign(document.createElement("span"), { className: "url", textContent: server.url });
  head.append(Object.assign(document.createElement("b"), { textContent: server.name }), url, button("Disconnect", "disconnect", () => disconnect(server)));
  const tools = document.createElement("ul");
  tools.className = "mcp-tools";
  tools.append(...server.tools.map((tool) => toolItem(server, tool)));
  if (server.tools.length === 0) tools.append(Object.assign(document.createElement("li"), { textContent: "(no tools)" }));
  li.append(head, tools);
  return li;
}

function renderServers() {
  $("mcpServers").replaceChildren(...mcpServers.map(serverItem));
  $("mcpNote").hidden = mcpServers.length === 0;
}
