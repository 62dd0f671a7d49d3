// The Durable Object example (examples/durable-object) with an MCP server (its `MCP_SERVERS`
// var), in workerd through miniflare as durable-object.test.mjs runs it. The object is gone
// while a read-only MCP tool runs (the server holds the first call): a new workerd over the
// same storage restores the task with its servers' listing from the stored head, so the call
// is known to be read-only and is run again, not reported as one whose outcome is unknown.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { here, packageDir } from "./support/package-dir.mjs";
import { bundleExample, exampleInstance, until } from "./support/durable-object-helpers.mjs";
import { assertNoPackageWarnings, esbuildWarnings } from "./support/bundler-warnings.mjs";
import { anthropicReply, startModelServer } from "./support/sse-server.mjs";
import { startMcpServer } from "./support/mcp-server.mjs";
import { useTool } from "./support/mcp-helpers.mjs";

/** The start of the core's text for a tool that was running when its task stopped (src/core/agent/texts.rs, TOOL_INTERRUPTED). */
const INTERRUPTED = /the task stopped while this tool ran/;

let workDir;
let bundleDir;

before(async () => {
  workDir = mkdtempSync(join(here, ".tmp-durable-object-mcp-"));
  bundleDir = join(workDir, "bundle");
  const result = await bundleExample(bundleDir);
  assertNoPackageWarnings("esbuild", esbuildWarnings(result));
  const inputs = Object.keys(result.metafile.inputs).map((p) => join(process.cwd(), p));
  assert.ok(inputs.includes(join(packageDir, "mcp-workerd.js")), "clew/mcp's workerd build is bundled");
});

after(() => {
  rmSync(workDir, { recursive: true, force: true });
});

/** The text blocks of the last user message of a model request. */
const lastUserTexts = (request) => {
  const content = request.body.messages.at(-1).content;
  return typeof content === "string" ? [content] : content.filter((b) => b.type === "text").map((b) => b.text);
};

test("the object is gone while a read-only MCP tool runs: a new workerd restores the task with its servers and runs the call again", async () => {
  const mcp = await startMcpServer({ held: true });
  const upstream = await startModelServer({
    "/v1/messages": [
      anthropicReply(useTool("xml", "notes", "held_lookup", '{"key":"a"}')),
      anthropicReply("Done.\n<attempt_completion>\n<result>looked a up</result>\n</attempt_completion>"),
    ],
  });
  const persistDir = mkdtempSync(join(workDir, "storage-"));
  // A second server that cannot be reached is left out; the task goes on with the first.
  const servers = [{ name: "notes", url: mcp.url }, { name: "gone", url: "http://127.0.0.1:1/mcp" }];
  const vars = { MCP_SERVERS: JSON.stringify(servers) };
  const heldCalls = () => mcp.calls.filter((call) => call.name === "held_lookup");
  let worker = await exampleInstance(bundleDir, persistDir, upstream.url, vars);
  try {
    const created = await worker.call("POST", "/tasks", { text: "Look a up" });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const { id } = created.body;
    // Read-only (readOnlyHint), so it runs without asking; the server never answers it.
    await until("the MCP server to receive the call", () => heldCalls().length === 1);
    assert.deepEqual(heldCalls()[0].arguments, { key: "a" });
    const running = await worker.status(id);
    assert.equal(running.stored, "tool");
    assert.equal(running.ask, null);
    await worker.dispose();
    assert.equal(upstream.received.length, 1);

    worker = await exampleInstance(bundleDir, persistDir, upstream.url, vars);
    // A request wakes the object: it restores the task and resumes it.
    assert.equal((await worker.status(id)).error, null);
    await until("the call to be made again", () => heldCalls().length === 2);
    const offered = await until("the completion", async () => {
      const status = await worker.status(id);
      return status.ask?.ask === "completion_result" && status;
    });
    const accepted = await worker.call("POST", `/tasks/${id}/answer`, { response: "yesButtonClicked", ts: offered.ask.ts });
    assert.equal(accepted.status, 200);
    const ended = await until("the outcome", async () => (await worker.status(id)).outcome);
    assert.deepEqual(ended, { status: "completed", result: "looked a up" });

    assert.equal(upstream.received.length, 2);
    const result = lastUserTexts(upstream.received[1]);
    assert.ok(result.some((t) => /^\[use_mcp_tool for 'notes'\] Result:\nvalue of a/.test(t)), JSON.stringify(result));
    assert.doesNotMatch(JSON.stringify(upstream.received[1].body.messages), INTERRUPTED);
    const transcript = (await worker.call("GET", `/tasks/${id}/messages`)).body;
    assert.doesNotMatch(JSON.stringify(transcript), INTERRUPTED);
    assert.equal(heldCalls().length, 2, "run once more, and only once");
  } finally {
    await worker.dispose();
    await upstream.close();
    await mcp.close();
  }
});
