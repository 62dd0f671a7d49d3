// clew/mcp: connects to an MCP server over Streamable HTTP with the official TypeScript SDK
// (`@modelcontextprotocol/sdk`, a peer dependency the application installs), for
// `new Task({ mcpServers: [{ name, client }] })`, and gives an application's own view of its
// servers what the tasks use (mcp-servers.js): the paged tool listing, the change watching,
// the read-only reading, and the check of the servers' settings (the core's, through `Task`).
// The main entry never imports this module. In workerd the package's `workerd` condition
// picks mcp-workerd.js, which gives the client the SDK's Workers-safe JSON Schema validator
// (the default one compiles schemas with `new Function`, which Workers forbid).
import { Task } from "clew";
import "./mcp-servers.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

export { listMcpTools, watchMcpTools, isReadOnlyMcpTool } from "./mcp-servers.js";

/**
 * A connected SDK `Client` for the MCP server at `url`. `options`: `headers` (sent with every
 * request, e.g. authorization), `fetch` (instead of the global one), `clientName` and
 * `clientVersion` (how the client introduces itself), `jsonSchemaValidator`.
 */
export async function connectMcpServer(url, options = {}) {
  return connectWith(url, options, options.jsonSchemaValidator);
}

/** Connects with `validator` (the SDK's default when undefined). */
export async function connectWith(url, options, validator) {
  const client = new Client(
    { name: options.clientName ?? "clew", version: options.clientVersion ?? "1.0.0" },
    validator === undefined ? {} : { jsonSchemaValidator: validator },
  );
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    ...(options.headers ? { requestInit: { headers: options.headers } } : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  await client.connect(transport);
  return client;
}

/** A model for a task that is made only to check its options, and never started. */
const CHECK_MODEL = { format: "anthropic", id: "clew-check" };

/**
 * The error `new Task({ mcpServers: servers })` throws for `servers`' settings (a TypeError
 * with code `CLEW_INVALID_OPTIONS` naming the first bad one: a name that is not 1 to 64
 * letters, digits, _ or -, holds "0mcp0" or is taken, a bad `autoApprove` or `timeoutMs`),
 * or null when a task would take them. The clients are not used: a stand-in takes each
 * one's place. Synchronous; in the browser entry, after `await ready`.
 */
export function mcpServersError(servers) {
  const client = { listTools: async () => ({ tools: [] }), callTool: async () => ({ content: [] }) };
  const mcpServers = Array.isArray(servers)
    ? servers.map((server) => (server && typeof server === "object" ? { ...server, client } : server))
    : servers;
  let task;
  try {
    task = new Task({ model: CHECK_MODEL, mcpServers });
  } catch (error) {
    return error;
  }
  task.free();
  return null;
}
