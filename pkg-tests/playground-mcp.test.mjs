// The playground's MCP panel and its kept tasks with MCP servers (issue 43): a server's name
// is judged by the core (the TypeError `new Task` would throw, surfaced in the panel), and a
// task kept in this browser, reloaded while a read-only MCP call runs, restores with the
// servers' catalog (the stored head holds it) and runs that call again instead of reporting
// its outcome as unknown. First, in Node, the clew/mcp functions the panel reads its servers
// with.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { serve } from "./support/static-server.mjs";
import { connectMcp, openPlayground, scriptedModel, startWithModel, stored, until } from "./support/playground.mjs";
import { packageDir, repoRoot } from "./support/package-dir.mjs";
import { bundleMcpSdk } from "../scripts/mcp-sdk-bundle.mjs";
import { startMcpServer } from "./support/mcp-server.mjs";

/** What the core tells the model of a tool that was running when the task stopped. */
const UNKNOWN = /stopped while this tool ran|is unknown/;

test("clew/mcp reads servers as the tasks do: listMcpTools (every page), watchMcpTools (stopped by what it returns), isReadOnlyMcpTool, mcpServersError", async () => {
  const { connectMcpServer, listMcpTools, watchMcpTools, isReadOnlyMcpTool, mcpServersError } = await import("clew/mcp");
  const pages = { first: { tools: [{ name: "a" }], nextCursor: "2" }, 2: { tools: [{ name: "b", annotations: { readOnlyHint: true } }], nextCursor: "3" }, 3: { tools: [{ name: "c" }] } };
  const paged = { listTools: async (params) => pages[params?.cursor ?? "first"], callTool: async () => ({}) };
  assert.deepEqual((await listMcpTools(paged)).map((t) => t.name), ["a", "b", "c"]);
  await assert.rejects(listMcpTools({}), TypeError);
  assert.throws(() => watchMcpTools(paged, "not a function"), TypeError);

  const refused = mcpServersError([{ name: "a0mcp0b" }]);
  assert.ok(refused instanceof TypeError);
  assert.equal(refused.code, "CLEW_INVALID_OPTIONS");
  assert.match(refused.message, /^options\.mcpServers\[0\]\.name must be .*"0mcp0"/);
  assert.match(mcpServersError([{ name: "x" }, { name: "x" }]).message, /^options\.mcpServers\[1\]\.name .*unique/);
  assert.match(mcpServersError([{ name: "x", timeoutMs: -1 }]).message, /^options\.mcpServers\[0\]\.timeoutMs/);
  assert.equal(mcpServersError([{ name: "notes", autoApprove: ["lookup"] }, { name: "other-2" }]), null);

  const mcp = await startMcpServer();
  const client = await connectMcpServer(mcp.url);
  try {
    const tools = await listMcpTools(client);
    assert.deepEqual(tools.map((t) => t.name), ["lookup", "write_note", "fail", "picture", "slow"]);
    assert.deepEqual(tools.filter(isReadOnlyMcpTool).map((t) => t.name), ["lookup", "picture"]);
    let told = 0;
    let throwing = 0;
    const stop = watchMcpTools(client, () => { told++; });
    watchMcpTools(client, () => { throwing++; throw new Error("a callback's throw is ignored"); });
    mcp.addTool("one");
    await until(() => told === 1 && throwing === 1, "both callbacks are told");
    stop();
    mcp.addTool("two");
    await until(() => throwing === 2, "the other callback is told again");
    assert.equal(told, 1, "a stopped callback is not told");
    assert.deepEqual((await listMcpTools(client)).map((t) => t.name).slice(-2), ["one", "two"]);
  } finally {
    await client.close();
    await mcp.close();
  }
});

/** Fills the MCP panel's form and connects; resolves once the button is free again. */
test("the MCP panel refuses a server name the core refuses (a0mcp0b), with the core's error, and adds no server", async () => {
  await bundleMcpSdk();
  const mcp = await startMcpServer();
  const server = await serve({ "/pkg/": packageDir, "/": join(repoRoot, "www") });
  const browser = await openPlayground(server.url);
  try {
    const { page, errors } = browser;
    await connectMcp(page, mcp.url, "a0mcp0b");
    const error = await page.$eval("#mcpError", (n) => (n.hidden ? "" : n.textContent));
    assert.match(error, /^The name "a0mcp0b" is refused: options\.mcpServers\[0\]\.name must be .*\(without "0mcp0"\)/);
    assert.equal(await page.$$eval("#mcpServers > li", (n) => n.length), 0, "no server is added");
    assert.equal(mcp.sessions.size, 0, "nothing connected to the server");
    // The same server under a name the core takes is added.
    await connectMcp(page, mcp.url, "a0mcp1b");
    await page.waitForSelector('#mcpServers > li[data-server="a0mcp1b"] li[data-tool="lookup"]');
    assert.equal(await page.$eval("#mcpError", (n) => n.hidden), true);
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
    await server.close();
    await mcp.close();
  }
});

test("kept in this browser, a task reloaded while a read-only MCP call runs restores and runs that call again (no outcome unknown)", async () => {
  await bundleMcpSdk();
  const mcp = await startMcpServer({ held: true });
  const call = `\n\n<use_mcp_tool>\n<server_name>notes</server_name>\n<tool_name>held_lookup</tool_name>\n<arguments>{"key":"colour"}</arguments>\n</use_mcp_tool>`;
  const model = await scriptedModel([
    `I'll look the key up.${call}`,
    "Done.\n\n<attempt_completion>\n<result>The colour is known.</result>\n</attempt_completion>",
  ]);
  const server = await serve({ "/pkg/": packageDir, "/": join(repoRoot, "www") });
  const browser = await openPlayground(server.url);
  try {
    const { page, errors } = browser;
    await connectMcp(page, mcp.url, "notes");
    await page.waitForSelector('#mcpServers > li[data-server="notes"] li[data-tool="held_lookup"]');
    await page.check("#persist");
    await page.waitForSelector("body[data-kept=on]");
    await startWithModel(page, model.url, "What is the colour?");

    // held_lookup is read-only: it runs at once, and the server holds it. The task was stored
    // before the call began (persist is awaited before each wait), with the servers' catalog.
    await until(() => mcp.calls.length === 1, "the server got the call");
    await page.waitForSelector('li[data-kind="say:use_mcp_server"] .badge');
    assert.match(JSON.stringify((await stored(page)).head), /held_lookup/, "the stored head holds the servers' catalog");
    assert.equal(await page.textContent("#state"), "tool");

    // Reloaded while the call runs: a remote model's task waits for its key and Resume. The
    // server is connected again, and the restored task runs the call before any request.
    await page.reload();
    await page.waitForSelector("#resume:not([hidden])");
    await page.fill("#apiKey", "sk-test");
    await page.click("#resume");
    await page.waitForSelector(".ask-controls button.accept");
    await page.click(".ask-controls button.accept");
    await page.waitForSelector("body[data-state=completed]");

    const held = { name: "held_lookup", arguments: { key: "colour" } };
    assert.deepEqual(mcp.calls, [held, held], "the read-only call ran again after the reload");
    assert.equal(model.received.length, 2);
    const result = JSON.stringify(model.received[1].messages.at(-1));
    assert.match(result, /value of colour/);
    assert.doesNotMatch(result, UNKNOWN);
    assert.doesNotMatch(await page.textContent("#timeline"), UNKNOWN);
    const kept = await stored(page);
    assert.doesNotMatch(JSON.stringify(kept.history), UNKNOWN, "nor in the history");
    assert.match(JSON.stringify(kept.history), /value of colour/);
    const responses = await page.$$eval('li[data-kind="say:mcp_server_response"]', (nodes) => nodes.map((n) => n.textContent));
    assert.deepEqual(responses, ["value of colour"]);
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
    await server.close();
    await model.close();
    await mcp.close();
  }
});
