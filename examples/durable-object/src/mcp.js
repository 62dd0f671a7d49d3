// The task's MCP servers, from the `MCP_SERVERS` var (see wrangler.toml):
//
//   MCP_SERVERS = '[{ "name": "docs", "url": "https://…/mcp", "autoApprove": ["search"],
//                     "timeoutMs": 60000, "headers": { "authorization": "Bearer …" } }]'
//
// Each is connected (Streamable HTTP, with clew/mcp's `connectMcpServer`; in workerd it
// validates with the MCP SDK's Workers-safe JSON Schema validator) before the task is
// created or restored, since a task lists its servers' tools and a restored one may be in
// the middle of a call to one. A server that cannot be reached is left out, with an error in
// the log: the task goes on without it, and clew tells the model the server is missing when
// it calls it.

import { connectMcpServer } from "clew/mcp";

/** How long connecting to one server may take before it is left out. */
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

/**
 * Connects each server of `settings`: the `mcpServers` option of `new Task` and
 * `Task.restore` (`[{ name, client, autoApprove?, timeoutMs? }]`), without the ones that
 * could not be connected.
 */
export async function connectMcpServers(settings) {
  const connected = await Promise.all(settings.map(async ({ name, url, headers, autoApprove, timeoutMs }) => {
    const limit = deadline(CONNECT_MS, `connecting to ${url}`);
    const connecting = connectMcpServer(url, headers ? { headers } : {});
    try {
      const client = await Promise.race([connecting, limit.expired]);
      return { name, client, ...(autoApprove ? { autoApprove } : {}), ...(timeoutMs ? { timeoutMs } : {}) };
    } catch (error) {
      // NOTE: a connection that comes after the deadline is closed at once.
      connecting.then((client) => client.close(), () => {});
      console.error(`MCP server ${name} (${url}) left out: ${error?.message ?? error}`);
      return null;
    } finally {
      limit.clear();
    }
  }));
  return connected.filter(Boolean);
}

/** Closes the clients of `servers` (the task has ended). */
export function closeMcpServers(servers) {
  for (const { client } of servers) client.close().catch(() => {});
}
