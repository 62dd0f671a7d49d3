// Declarations of `clew/mcp` (js/mcp.js, js/mcp-workerd.js).
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { McpClient, McpServerOption } from "clew";

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

/** A tool as an MCP server lists it (the members clew reads; the server's others are kept). */
export interface McpTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema?: object;
  annotations?: { readOnlyHint?: boolean; [hint: string]: unknown };
  [member: string]: unknown;
}

/** Every tool of a connected client, following the server's pages (`nextCursor`), as a task
 *  lists them. Rejects as `client.listTools` does (a TypeError for a client without it). */
export function listMcpTools(client: McpClient | Client): Promise<McpTool[]>;

/** Calls `onChange` each time the client's server says its tools changed
 *  (`notifications/tools/list_changed`), beside the tasks that use the client; list them
 *  again with `listMcpTools`. What `onChange` throws is ignored. Returns the function that
 *  stops it. @throws TypeError when `onChange` is not a function. */
export function watchMcpTools(client: McpClient | Client, onChange: () => unknown): () => void;

/** Whether a listed tool is read-only as a task reads it: `annotations.readOnlyHint` is
 *  `true` (such a tool runs without asking under `autoApprove.readOnly`, and a restored task
 *  that was running it runs it again). */
export function isReadOnlyMcpTool(tool: unknown): boolean;

/** The error `new Task({ mcpServers: servers })` would throw for the servers' settings (a
 *  `TypeError` with code `CLEW_INVALID_OPTIONS`: a name that is not 1 to 64 letters, digits,
 *  `_` or `-`, holds "0mcp0" or is taken; a bad `autoApprove` or `timeoutMs`), or null when a
 *  task takes them. The clients are not used (they may be left out). Synchronous; in the
 *  browser entry, call it after `await ready`. */
export function mcpServersError(servers: Array<Omit<McpServerOption, "client"> & { client?: unknown }>): (TypeError & { code: string }) | null;
