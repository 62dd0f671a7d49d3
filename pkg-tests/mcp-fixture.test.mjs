// The MCP server fixture of the MCP tests (mcp-server.mjs) checked on its own with the SDK's
// client, so a failure in mcp*.test.mjs is clew's and not the fixture's.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { PNG_BASE64, startMcpServer } from "./support/mcp-server.mjs";
import { sleep, until } from "./support/mcp-helpers.mjs";

async function connect(url) {
  const client = new Client({ name: "fixture-check", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

test("the MCP fixture: tools, resource, isError, image, CORS", async () => {
  const server = await startMcpServer();
  const client = await connect(server.url);
  try {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), ["fail", "lookup", "picture", "slow", "write_note"]);
    const lookup = tools.find((t) => t.name === "lookup");
    assert.deepEqual(lookup.inputSchema.required, ["key"]);
    assert.equal(lookup.inputSchema.properties.key.type, "string");
    assert.equal(lookup.annotations.readOnlyHint, true);
    assert.deepEqual(tools.find((t) => t.name === "write_note").inputSchema.required, ["text"]);
    assert.equal(client.getServerCapabilities().tools.listChanged, true);

    assert.deepEqual((await client.callTool({ name: "lookup", arguments: { key: "a" } })).content, [{ type: "text", text: "value of a" }]);
    assert.deepEqual((await client.callTool({ name: "write_note", arguments: { text: "first" } })).content, [{ type: "text", text: "saved" }]);
    const failed = await client.callTool({ name: "fail", arguments: {} });
    assert.equal(failed.isError, true);
    assert.deepEqual(failed.content, [{ type: "text", text: "it failed" }]);
    const picture = await client.callTool({ name: "picture", arguments: {} });
    assert.deepEqual(picture.content, [{ type: "image", data: PNG_BASE64, mimeType: "image/png" }, { type: "text", text: "a red dot" }]);
    // The server's own validation (clew should never let it get this far).
    const missing = await client.callTool({ name: "lookup", arguments: {} });
    assert.equal(missing.isError, true);

    const { resources } = await client.listResources();
    assert.deepEqual(resources.map((r) => r.uri), ["notes://all"]);
    const read = await client.readResource({ uri: "notes://all" });
    assert.deepEqual(read.contents, [{ uri: "notes://all", mimeType: "text/plain", text: "first" }]);

    assert.deepEqual(server.calls, [
      { name: "lookup", arguments: { key: "a" } },
      { name: "write_note", arguments: { text: "first" } },
      { name: "fail", arguments: {} },
      { name: "picture", arguments: {} },
      { name: "lookup", arguments: {} },
    ]);

    const preflight = await fetch(server.url, { method: "OPTIONS", headers: { origin: "http://elsewhere", "access-control-request-method": "POST" } });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers.get("access-control-allow-origin"), "*");
    assert.match(preflight.headers.get("access-control-allow-headers"), /mcp-session-id/);
    assert.match(preflight.headers.get("access-control-expose-headers"), /mcp-session-id/);
  } finally {
    await client.close();
    await server.close();
  }
});

test("the MCP fixture: `slow` is cancelled server-side by an aborted request", async () => {
  const server = await startMcpServer();
  const client = await connect(server.url);
  try {
    const controller = new AbortController();
    const call = client.callTool({ name: "slow", arguments: {} }, undefined, { signal: controller.signal });
    await until("the call to reach the server", () => server.calls.length === 1);
    await sleep(20);
    controller.abort("enough");
    await assert.rejects(call);
    await until("the cancellation", () => server.cancelled.length === 1);
    assert.equal(server.cancelled[0].name, "slow");
    assert.equal(server.cancelNotices.length, 1);
    // and by a timeout
    const timedOut = client.callTool({ name: "slow", arguments: {} }, undefined, { timeout: 100 });
    await assert.rejects(timedOut, /timed out/i);
    await until("the second cancellation", () => server.cancelled.length === 2);
  } finally {
    await client.close();
    await server.close();
  }
});

test("the MCP fixture: addTool sends notifications/tools/list_changed", async () => {
  const server = await startMcpServer();
  const client = await connect(server.url);
  const other = await connect(server.url);
  try {
    let notified = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => { notified++; });
    await client.listTools();
    // The client opens its notification stream (GET) once initialised; wait for it.
    await sleep(100);
    server.addTool("extra");
    await until("the notification", () => notified === 1);
    assert.ok((await client.listTools()).tools.some((t) => t.name === "extra"));
    assert.ok((await other.listTools()).tools.some((t) => t.name === "extra"));
    const later = await connect(server.url);
    assert.ok((await later.listTools()).tools.some((t) => t.name === "extra"));
    assert.deepEqual((await later.callTool({ name: "extra", arguments: {} })).content, [{ type: "text", text: "extra ran" }]);
    await later.close();
  } finally {
    await client.close();
    await other.close();
    await server.close();
  }
});
