// options.mcpServers at work, transport only: lists each server's tools and resources as the
// servers give them (the task makes its catalog of them: src/core/agent/mcp.rs
// `McpCatalog::read`, and decides how long it waits for them), notices when a server's tools
// change, and calls the two reference tools, use_mcp_tool and access_mcp_resource, on the
// servers (the task checks their parameters, approves them and times them: it aborts a
// call's signal when it gives up), handing back each answer as the server gave it (the task
// reads it: src/core/agent/texts/mcp_result.rs). Loaded on demand (js/boundary/options.js
// `clew_mcp`), or by an application's `import "clew/mcp-servers"` (or "clew/mcp"); it
// registers `mcpServers` under the global symbol `clew.mcpServers`. Every call of a client is
// guarded: a client that throws, rejects or disconnects makes a failed listing or an error
// result, never a crash. clew/mcp re-exports what an application's own view of its servers
// needs from here, so it reads them as the tasks do: the paged tool listing
// (`listMcpTools`), the change watching (`watchMcpTools`) and `isReadOnlyMcpTool`.

import { watch } from "./mcp-watch.js";

export { watchMcpTools } from "./mcp-watch.js";

/** The SDK's own request timeout for calls: the longest a timer can wait (the task times them). */
const NO_SDK_TIMEOUT = 2_147_483_647;
/** Most items read from one paginated listing. */
const MOST_ITEMS = 10_000;

/**
 * The glue for `servers` ([name, client, name, client, …], as the core read the options):
 * `list(id)`, `call(params, { signal })` and `read(params, { signal })` (the task checked
 * their parameters). `list(id)` starts listing the servers not listed yet or whose tools
 * changed, and gives the listing's JSON as it is (each failure in it once, and under
 * `listing` the servers still being listed), or "" when nothing changed; asked again with the
 * same `id` while servers are being listed, it answers once one of them ends. A new `id` is
 * the task's next listing: what it stopped waiting for (its deadline came) is left out, and
 * what those servers answer later is dropped.
 */
export function mcpServers(servers) {
  const states = [];
  for (let i = 0; i + 1 < servers.length; i += 2) {
    states.push({ name: servers[i], client: servers[i + 1], stale: true, connected: false, listing: null, tools: [], resources: [], templates: [] });
  }
  let failures = [];
  // Something to tell since the last answer: a listing started, ended or was dropped.
  let changed = false;
  // The task's listing being answered, and the answer that waits for a listing to end.
  let current;
  let waiting = null;
  for (const state of states) watch(state.client, state);

  function list(id) {
    if (id !== current) {
      current = id;
      waiting?.("");
      waiting = null;
      for (const state of states) {
        if (!state.listing) continue;
        state.listing = null;
        state.connected = false;
        changed = true;
      }
    }
    for (const state of states) {
      if (state.stale && !state.listing) start(state);
    }
    if (changed) return answer();
    if (!states.some((s) => s.listing)) return "";
    return new Promise((resolve) => { waiting = resolve; });
  }

  /** Lists `state`'s server; once it ends (unless dropped meanwhile), the answer that waits gets it. */
  function start(state) {
    state.stale = false;
    changed = true;
    const listing = state.listing = listServer(state.client).then(
      (listed) => { if (state.listing === listing) Object.assign(state, listed, { connected: true }); },
      (error) => {
        if (state.listing !== listing) return;
        state.connected = false;
        failures.push({ server: state.name, message: messageOf(error) });
      },
    ).then(() => {
      if (state.listing !== listing) return;
      state.listing = null;
      changed = true;
      const resolve = waiting;
      waiting = null;
      resolve?.(answer());
    });
  }

  /**
   * The listing as it is: the connected servers (one whose listing cannot be written as JSON
   * fails), the failures since the last answer, and the servers being listed.
   */
  function answer() {
    const servers = [];
    for (const state of states) {
      if (!state.connected) continue;
      const { name, client, tools, resources, templates } = state;
      try {
        servers.push(JSON.stringify({ name, tools, resources, templates, ...(typeof client.readResource !== "function" && { readResource: false }) }));
      } catch (error) {
        state.connected = false;
        failures.push({ server: name, message: messageOf(error) });
      }
    }
    const listing = states.filter((s) => s.listing).map((s) => s.name);
    const more = listing.length ? `,"listing":${JSON.stringify(listing)}` : "";
    const text = `{"servers":[${servers.join(",")}],"errors":${JSON.stringify(failures)}${more}}`;
    failures = [];
    changed = false;
    return text;
  }

  async function call(params, context) {
    const { client } = serverOf(params.server_name);
    return client.callTool({ name: params.tool_name, arguments: JSON.parse(params.arguments) }, undefined, options(context)).then(raw);
  }

  async function read(params, context) {
    return serverOf(params.server_name).client.readResource({ uri: params.uri }, options(context)).then(raw);
  }

  /** The server a call names (the task calls only the servers it knows). */
  function serverOf(name) {
    return states.find((s) => s.name === name);
  }

  return { list, call, read };
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
 * A server's tools, resources and resource templates (the last two when it has them), as the
 * server gives them: the task reads them (and leaves out what it cannot offer).
 */
async function listServer(client) {
  if (!client || typeof client.listTools !== "function") throw new TypeError("its client has no listTools method");
  const tools = await paged(client, "listTools", "tools");
  let capabilities;
  try { capabilities = typeof client.getServerCapabilities === "function" ? client.getServerCapabilities() : undefined; } catch {}
  const offers = (method) => typeof client[method] === "function" && (capabilities === undefined || !!capabilities.resources);
  // NOTE: resources are optional: a server that fails to list them still gives its tools.
  const resources = offers("listResources") ? await paged(client, "listResources", "resources").catch(() => []) : [];
  const templates = offers("listResourceTemplates")
    ? await paged(client, "listResourceTemplates", "resourceTemplates").catch(() => [])
    : [];
  return { tools, resources, templates };
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

/** What a failure says; "unknown error" when reading it throws too. */
function messageOf(error) {
  try {
    return String((error && error.message) || error);
  } catch {
    return "unknown error";
  }
}

globalThis[Symbol.for("clew.mcpServers")] = mcpServers;
