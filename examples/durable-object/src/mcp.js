// The task's MCP servers, from the `MCP_SERVERS` var (see wrangler.toml):
//
//   MCP_SERVERS = '[{ "name": "docs", "url": "https://…/mcp", "autoApprove": ["search"],
//                     "timeoutMs": 60000, "headers": { "authorization": "Bearer …" } }]'
//
// Each is connected (Streamable HTTP, with clew/mcp's `connectMcpServer`; in workerd it
// validates with the MCP SDK's Workers-safe JSON Schema validator) before the task is
// created or restored, since a task lists its servers' tools and a restored one may be in
// the middle of a call to one. A server that cannot be reached stays in the list with a
// stand-in client that fails (and an error in the log): the task reports it and goes on
// without its tools, and a task restored while it is down still knows the MCP tools.

import { connectMcpServer } from "clew/mcp";

/** How long connecting to one server may take before it counts as not connected. */
const CONNECT_MS = 10_000;

/** The servers `MCP_SERVERS` names (`[]` for none); throws a clear error for a bad value. */
export function mcpServerSettings(text) {
  if (!text) return [];
  const servers = typeof text === "string" ? JSON.parse(text) : text;
  if (!Array.isArray(servers)) throw new TypeError("MCP_SERVERS must be a JSON array");
  for (const server of servers) {
    if (typeof server?.name !== "string" || typeof server?.url !== "string") {
      throw new TypeError(`MCP_SERVERS: each server needs a string name and url, not ${JSON.stringify(server)}`);
    }
  }
  return servers;
}

/** Fails after `ms` with a message naming `what`. */
function deadline(ms, what) {
  let timer;
  const expired = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took over ${ms} ms`)), ms);
  });
  return { expired, clear: () => clearTimeout(timer) };
}

/** A client for a server that could not be connected: each call fails with `error`. */
function unreachable(error) {
  const fail = async () => { throw error; };
  return { listTools: fail, callTool: fail, close: async () => {} };
}

/**
 * Connects each server of `settings`: the `mcpServers` option of `new Task` and
 * `Task.restore` (`[{ name, client, autoApprove?, timeoutMs? }]`), a server that could not
 * be connected with a client that says why.
 */
export async function connectMcpServers(settings) {
  const connected = await Promise.all(settings.map(async ({ name, url, headers, autoApprove, timeoutMs }) => {
    const limit = deadline(CONNECT_MS, `connecting to ${url}`);
    const connecting = connectMcpServer(url, headers ? { headers } : {});
    const settings = { name, ...(autoApprove ? { autoApprove } : {}), ...(timeoutMs ? { timeoutMs } : {}) };
    try {
      return { ...settings, client: await Promise.race([connecting, limit.expired]) };
    } catch (error) {
      // NOTE: a connection that comes after the deadline is closed at once.
      connecting.then((client) => client.close(), () => {});
      console.error(`MCP server ${name} (${url}) is not connected: ${error?.message ?? error}`);
      return { ...settings, client: unreachable(new Error(`not connected (${error?.message ?? error})`)) };
    } finally {
      limit.clear();
    }
  }));
  return connected;
}

/** Closes the clients of `servers` (the task has ended). */
export function closeMcpServers(servers) {
  for (const { client } of servers) client.close().catch(() => {});
}
