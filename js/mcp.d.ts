// Declarations of `clew/mcp` (js/mcp.js, js/mcp-workerd.js).
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";

/** How `connectMcpServer` connects. */
export interface ConnectMcpServerOptions {
  /** Headers sent with every request (authorization, for example). */
  headers?: Record<string, string>;
  /** Used instead of the global `fetch`. */
  fetch?: typeof globalThis.fetch;
  /** How the client introduces itself to the server (default "clew"). */
  clientName?: string;
  /** Its version (default "1.0.0"). */
  clientVersion?: string;
  /** The SDK's JSON Schema validator for tools' output schemas (in workerd the default is the
   *  SDK's Workers-safe `CfWorkerJsonSchemaValidator`). */
  jsonSchemaValidator?: unknown;
}

/** A connected client of the official MCP SDK for the server at `url` (Streamable HTTP), for
 *  `new Task({ mcpServers: [{ name, client }] })`. */
export function connectMcpServer(url: string | URL, options?: ConnectMcpServerOptions): Promise<Client>;
