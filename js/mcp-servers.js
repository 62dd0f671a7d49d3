// options.mcpServers at work: lists each server's tools and resources as the servers give them
// (the task makes its catalog of them: src/core/agent/mcp.rs `McpCatalog::read`), notices
// when a server's tools change, and runs the two reference tools, use_mcp_tool and
// access_mcp_resource, on the servers (the task checks their arguments, approves them and
// times them: it aborts a call's signal when it gives up), handing back each answer as the
// server gave it (the task reads it). Loaded on demand
// (js/boundary/options.js `clew_mcp`), or by an application's `import "clew/mcp-servers"` (or
// "clew/mcp"); it registers `mcpServers` under the global symbol `clew.mcpServers`. Every
// call of a client is guarded: a client that throws, rejects, hangs or disconnects makes a
// failed listing or an error result, never a crash. clew/mcp re-exports what an application's
// own view of its servers needs from here, so it reads them as the tasks do: the paged tool
// listing (`listMcpTools`), the change watching (`watchMcpTools`) and `isReadOnlyMcpTool`.

/** How long a server may take to list its tools before the task goes on without it. */
const LIST_TIMEOUT_MS = 10_000;
/** The SDK's own request timeout for calls: the longest a timer can wait (the task times them). */
const NO_SDK_TIMEOUT = 2_147_483_647;
/** Most items read from one paginated listing. */
const MOST_ITEMS = 10_000;
const TOOLS_CHANGED = "notifications/tools/list_changed";

/**
 * The glue for `servers` ([{ name, client }], checked by the core): `list()` (the listing's
 * JSON once the servers whose tools changed are listed again, or "" when nothing changed; each
 * failure is reported once), `call(params, { signal })` and `read(params, { signal })`.
 */
export function mcpServers(servers) {
  const states = servers.map(({ name, client }) => ({
    name, client, stale: true, connected: false, tools: [], resources: [], templates: [],
  }));
  let listing = null;
  let failures = [];
  // A listing finished since the last catalog (a call may list a server first).
  let changed = false;
  for (const state of states) watch(state.client, state);

  function pending() {
    if (listing) return listing;
    const stale = states.filter((s) => s.stale);
    if (stale.length === 0) return null;
    listing = Promise.all(stale.map(async (state) => {
      state.stale = false;
      try {
        await withTimeout(listServer(state), LIST_TIMEOUT_MS, `it did not list its tools within ${LIST_TIMEOUT_MS / 1000} s`);
        state.connected = true;
      } catch (error) {
        state.connected = false;
        failures.push({ name: state.name, message: messageOf(error) });
      }
    })).then(() => { listing = null; changed = true; });
    return listing;
  }

  function catalog() {
    const text = JSON.stringify({
      servers: states.filter((s) => s.connected).map(({ name, tools, resources, templates }) => ({ name, tools, resources, templates })),
      errors: failures.map((f) => ({ server: f.name, message: f.message })),
    });
    failures = [];
    changed = false;
    return text;
  }

  async function call(params, context) {
    const state = await serverOf(params.server_name);
    if (!state) throw Error(`no connected MCP server is named '${params.server_name}'`);
    let args;
    try { args = JSON.parse(params.arguments || "{}"); } catch (error) { throw Error(`the arguments are not valid JSON: ${messageOf(error)}`); }
    return state.client.callTool({ name: params.tool_name, arguments: args }, undefined, options(context)).then(raw);
  }

  async function read(params, context) {
    const state = await serverOf(params.server_name);
    if (!state) throw Error(`no connected MCP server is named '${params.server_name}'`);
    if (typeof state.client.readResource !== "function") throw Error(`the MCP server '${state.name}' cannot read resources`);
    return state.client.readResource({ uri: params.uri }, options(context)).then(raw);
  }

  function list() {
    const listing = pending();
    return listing ? listing.then(catalog) : changed ? catalog() : "";
  }

  /** The server of a call, listed at least once (a restored task may call before a request). */
  async function serverOf(name) {
    const state = states.find((s) => s.name === name);
    if (state && state.stale) await pending();
    return state && state.connected ? state : undefined;
  }

  return { list, call, read };
}

/**
 * For each client, who is told when its tools change: the states of the tasks that use it
 * (held weakly: a finished task's go) and the applications' callbacks (`watchMcpTools`).
 */
const watchers = new WeakMap();

/** Marks `state` stale when its server says its tools changed, so it is listed again before the next request. */
function watch(client, state) {
  subscribe(client, new WeakRef(state));
}

/**
 * Adds `watcher` (a task state's WeakRef, or a function) to those told when `client`'s server
 * says its tools changed; gives the function that removes it, or undefined when the client
 * cannot be watched. The official SDK's Client calls `fallbackNotificationHandler` for a
 * notification it has no handler of its own for; a handler the application set for this one
 * (its own, or the SDK's `listChanged` option) is wrapped instead. Each client is wrapped
 * once, however many tasks and callbacks watch it.
 */
function subscribe(client, watcher) {
  let set = watchers.get(client);
  if (!set) {
    try {
      const notify = () => {
        for (const entry of set) {
          if (typeof entry === "function") {
            tell(entry);
            continue;
          }
          const s = entry.deref();
          if (!s) set.delete(entry);
          else if (s.connected) s.stale = true;
        }
      };
      const handlers = client._notificationHandlers;
      const own = handlers instanceof Map ? handlers.get(TOOLS_CHANGED) : undefined;
      if (typeof own === "function") {
        handlers.set(TOOLS_CHANGED, (notification) => { notify(); return own(notification); });
      } else if ("fallbackNotificationHandler" in client || typeof client.setNotificationHandler === "function") {
        const fallback = client.fallbackNotificationHandler;
        client.fallbackNotificationHandler = async (notification) => {
          if (notification && notification.method === TOOLS_CHANGED) notify();
          if (typeof fallback === "function") return fallback.call(client, notification);
        };
      }
      set = new Set();
      watchers.set(client, set);
    } catch {
      // NOTE: a client that refuses this only misses the refresh.
      return undefined;
    }
  }
  set.add(watcher);
  return () => { set.delete(watcher); };
}

/** Calls an application's `onChange`; what it throws or rejects with is not the client's problem. */
function tell(onChange) {
  try {
    Promise.resolve(onChange()).catch(() => {});
  } catch {
    // NOTE: a throwing callback must not stop the others, nor the SDK's handler.
  }
}

/**
 * Every tool of a connected MCP client, following the server's pages (`nextCursor`), as the
 * server lists them. Rejects as `client.listTools` does; a client without it is a TypeError.
 */
export function listMcpTools(client) {
  if (!client || typeof client.listTools !== "function") {
    return Promise.reject(new TypeError("listMcpTools(client): client must be a connected MCP client (with a listTools method)"));
  }
  return paged(client, "listTools", "tools");
}

/**
 * Calls `onChange()` each time the server of `client` says its tools changed
 * (`notifications/tools/list_changed`), beside the tasks that use the client (they list the
 * server again before their next request). Gives the function that stops it.
 */
export function watchMcpTools(client, onChange) {
  if (!client || typeof client !== "object") throw new TypeError("watchMcpTools(client, onChange): client must be a connected MCP client");
  if (typeof onChange !== "function") throw new TypeError("watchMcpTools(client, onChange): onChange must be a function");
  // NOTE: a wrapper of its own, so the same function watched twice is stopped once at a time.
  const watcher = () => onChange();
  return subscribe(client, watcher) ?? (() => {});
}

/**
 * Whether a listed MCP tool is read-only as the task reads it: its `annotations.readOnlyHint`
 * is `true` (src/core/agent/mcp.rs `McpCatalog::read`). Such a tool runs without asking
 * under `autoApprove.readOnly`, and runs again when a restored task was running it.
 */
export function isReadOnlyMcpTool(tool) {
  return !!tool && typeof tool === "object" && !!tool.annotations && tool.annotations.readOnlyHint === true;
}

/** The request options of a call: the task's signal (the SDK tells the server to cancel when it aborts). */
function options(context) {
  return { signal: context && context.signal, timeout: NO_SDK_TIMEOUT, maxTotalTimeout: NO_SDK_TIMEOUT };
}

/**
 * Lists a server's tools, resources and resource templates (the last two when it has them),
 * as the server gives them: the task reads them (and leaves out what it cannot offer).
 */
async function listServer(state) {
  const client = state.client;
  if (!client || typeof client.listTools !== "function") throw new TypeError("its client has no listTools method");
  state.tools = await paged(client, "listTools", "tools");
  let capabilities;
  try { capabilities = typeof client.getServerCapabilities === "function" ? client.getServerCapabilities() : undefined; } catch {}
  const offers = (method) => typeof client[method] === "function" && (capabilities === undefined || !!capabilities.resources);
  // NOTE: resources are optional: a server that fails to list them still gives its tools.
  state.resources = offers("listResources")
    ? await paged(client, "listResources", "resources").catch(() => [])
    : [];
  state.templates = offers("listResourceTemplates")
    ? await paged(client, "listResourceTemplates", "resourceTemplates").catch(() => [])
    : [];
}

/** Every item of a paginated listing. */
async function paged(client, method, key) {
  const items = [];
  let cursor;
  do {
    const page = await client[method](cursor === undefined ? undefined : { cursor });
    const got = page && Array.isArray(page[key]) ? page[key] : [];
    items.push(...got);
    cursor = page && typeof page.nextCursor === "string" && page.nextCursor !== "" ? page.nextCursor : undefined;
  } while (cursor !== undefined && items.length < MOST_ITEMS);
  return items;
}

/**
 * A server's answer for the task, as the server sent it (JSON text): the task makes what the
 * model reads of it (src/core/agent/texts/mcp_result.rs).
 */
function raw(result) {
  return JSON.stringify(result) ?? "";
}

function messageOf(error) {
  return String((error && error.message) || error);
}

function withTimeout(promise, ms, message) {
  let timer;
  const timeout = new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(message)), ms); });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

globalThis[Symbol.for("clew.mcpServers")] = mcpServers;
