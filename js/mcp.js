// clew/mcp: connects to an MCP server over Streamable HTTP with the official TypeScript SDK
// (`@modelcontextprotocol/sdk`, a peer dependency the application installs), for
// `new Task({ mcpServers: [{ name, client }] })`. The main entry never imports this module.
// In workerd the package's `workerd` condition picks mcp-workerd.js, which gives the client
// the SDK's Workers-safe JSON Schema validator (the default one compiles schemas with
// `new Function`, which Workers forbid).
import "./mcp-servers.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

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
