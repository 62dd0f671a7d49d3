// A real MCP server for the MCP tests (issue 19): the official SDK's `McpServer` over
// Streamable HTTP on 127.0.0.1, one stateful session per client (so server notifications and
// cancellations reach the right client), with CORS so a page of another origin can reach it.
//
// Tools: `lookup` {key} (readOnlyHint) → "value of <key>"; `write_note` {text} → "saved";
// `fail` → an isError result "it failed"; `picture` → a PNG image and a text; `slow` → waits
// until the client cancels it (or 30 s), and records the cancellation. Resource
// `notes://all`: the notes written, one a line. `calls` records every `tools/call` request
// that reaches the server, as it arrived (before the SDK validates it); `cancelled` every
// call whose handler saw its signal abort; `cancelNotices` every `notifications/cancelled`.
// `addTool(name)` registers a tool at runtime: each connected client gets
// `notifications/tools/list_changed`. `GET /state` answers all of these as JSON (for a page
// or a Worker that waits until the server saw a call). With `{ held: true }` there is also
// `held_lookup` {key} (readOnlyHint): its first call is held, never answered (a test reloads
// the page that made it while it runs); later calls answer "value of <key>" at once.
import { createServer } from "node:http";
import { randomUUID } from "node:crypto";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";

/** A 1×1 red PNG. */
export const PNG_BASE64 =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC";

const CORS = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "GET, POST, DELETE, OPTIONS",
  "access-control-allow-headers": "content-type, accept, authorization, mcp-session-id, mcp-protocol-version, last-event-id",
  "access-control-expose-headers": "mcp-session-id, mcp-protocol-version",
  "access-control-max-age": "600",
};

/**
 * Starts the server. Resolves to `{ url, stateUrl, calls, cancelled, cancelNotices, notes,
 * sessions, addTool(name), close() }`; `url` is the MCP endpoint
 * (`http://127.0.0.1:<port>/mcp`), `stateUrl` the `/state` one.
 */
export async function startMcpServer({ slowMs = 30_000, held = false } = {}) {
  const calls = [];
  const cancelled = [];
  const cancelNotices = [];
  const notes = [];
  const added = [];
  const sessions = new Map(); // session id → { server, transport }
  const timers = new Set();
  let heldCalls = 0; // held_lookup's calls so far, over every session

  function addedTool(server, name) {
    server.registerTool(name, { description: `The tool ${name}, added while the server ran.`, inputSchema: { text: z.string().optional() } }, async () => ({
      content: [{ type: "text", text: `${name} ran` }],
    }));
  }

  function mcpServer() {
    const server = new McpServer({ name: "notes", version: "1.0.0" }, { capabilities: { tools: { listChanged: true }, resources: {} } });
    server.registerTool("lookup", {
      description: "Looks a key up.",
      inputSchema: { key: z.string().describe("The key to look up") },
      annotations: { readOnlyHint: true },
    }, async ({ key }) => ({ content: [{ type: "text", text: `value of ${key}` }] }));
    server.registerTool("write_note", {
      description: "Saves a note.",
      inputSchema: { text: z.string().describe("The note") },
    }, async ({ text }) => {
      notes.push(text);
      return { content: [{ type: "text", text: "saved" }] };
    });
    server.registerTool("fail", { description: "Always fails." }, async () => ({
      isError: true,
      content: [{ type: "text", text: "it failed" }],
    }));
    server.registerTool("picture", { description: "Draws a picture.", annotations: { readOnlyHint: true } }, async () => ({
      content: [{ type: "image", data: PNG_BASE64, mimeType: "image/png" }, { type: "text", text: "a red dot" }],
    }));
    // A tool without an input schema gets only `extra`.
    server.registerTool("slow", { description: "Takes its time." }, (extra) => new Promise((resolve) => {
      const timer = setTimeout(() => { timers.delete(timer); resolve({ content: [{ type: "text", text: "slow done" }] }); }, slowMs);
      timers.add(timer);
      const onAbort = () => {
        clearTimeout(timer);
        timers.delete(timer);
        cancelled.push({ name: "slow", requestId: extra.requestId, reason: String(extra.signal.reason ?? "") });
        resolve({ content: [{ type: "text", text: "cancelled" }] });
      };
      if (extra.signal.aborted) onAbort();
      else extra.signal.addEventListener("abort", onAbort, { once: true });
    }));
    server.registerResource("notes", "notes://all", { description: "Every note written, one a line.", mimeType: "text/plain" }, async (uri) => ({
      contents: [{ uri: uri.href, mimeType: "text/plain", text: notes.length ? notes.join("\n") : "(no notes)" }],
    }));
    if (held) {
      server.registerTool("held_lookup", {
        description: "Looks a key up, in its own time.",
        inputSchema: { key: z.string().describe("The key to look up") },
        annotations: { readOnlyHint: true },
      }, ({ key }) => (heldCalls++ === 0 ? new Promise(() => {}) : Promise.resolve({ content: [{ type: "text", text: `value of ${key}` }] })));
    }
    for (const name of added) addedTool(server, name);
    return server;
  }

  function record(message) {
    for (const m of Array.isArray(message) ? message : [message]) {
      if (m?.method === "tools/call") calls.push({ name: m.params?.name, arguments: m.params?.arguments });
      if (m?.method === "notifications/cancelled") cancelNotices.push(m.params ?? {});
    }
  }

  async function readBody(req) {
    const parts = [];
    for await (const part of req) parts.push(part);
    const text = Buffer.concat(parts).toString("utf8");
    return text ? JSON.parse(text) : undefined;
  }

  const http = createServer(async (req, res) => {
    for (const [k, v] of Object.entries(CORS)) res.setHeader(k, v);
    try {
      if (req.method === "OPTIONS") {
        res.writeHead(204).end();
        return;
      }
      const path = new URL(req.url, "http://x").pathname;
      if (path === "/state") {
        // What the server saw, for a page or a Worker that waits for it.
        res.writeHead(200, { "content-type": "application/json", "cache-control": "no-store" }).end(JSON.stringify({ calls, cancelled, cancelNotices, notes }));
        return;
      }
      if (path !== "/mcp") {
        res.writeHead(404, { "content-type": "text/plain" }).end("not found");
        return;
      }
      const body = req.method === "POST" ? await readBody(req) : undefined;
      if (body !== undefined) record(body);
      const id = req.headers["mcp-session-id"];
      if (id !== undefined) {
        const session = sessions.get(id);
        if (!session) {
          res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32001, message: "Session not found" }, id: null }));
          return;
        }
        await session.transport.handleRequest(req, res, body);
        return;
      }
      if (req.method !== "POST" || !isInitializeRequest(body)) {
        res.writeHead(400, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message: "No session: initialize first" }, id: null }));
        return;
      }
      const server = mcpServer();
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sid) => { sessions.set(sid, { server, transport }); },
        onsessionclosed: (sid) => { sessions.delete(sid); },
      });
      transport.onclose = () => { if (transport.sessionId) sessions.delete(transport.sessionId); };
      await server.connect(transport);
      await transport.handleRequest(req, res, body);
    } catch (error) {
      if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" });
      res.end(String(error?.stack ?? error));
    }
  });
  await new Promise((resolve) => http.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${http.address().port}/mcp`;

  return {
    url,
    stateUrl: url.replace(/\/mcp$/, "/state"),
    calls,
    cancelled,
    cancelNotices,
    notes,
    sessions,
    /** Registers tool `name` on every session (each connected client is notified) and on later ones. */
    addTool(name) {
      added.push(name);
      for (const { server } of sessions.values()) addedTool(server, name);
    },
    async close() {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      for (const { server } of [...sessions.values()]) await server.close().catch(() => {});
      sessions.clear();
      await new Promise((resolve) => { http.close(resolve); http.closeAllConnections(); });
    },
  };
}
