// What the MCP tests in Chromium and workerd check of a scenario (mcp-helpers.mjs
// `scenario`): the facts the page or the Worker reported, and what the server saw.
import assert from "node:assert/strict";
import { until } from "./mcp-helpers.mjs";

const show = (value) => JSON.stringify(value, null, 1).slice(0, 4000);

/** Checks the facts of scenario `kind` in `mode` against `server` (mcp-server.mjs). */
export async function checkScenario(facts, { kind, mode, server }) {
  const kinds = facts.says.map((m) => m.say);
  if (kind === "call") {
    assert.deepEqual(facts.outcome, { status: "completed", result: "done" }, show(facts));
    assert.ok(facts.system.includes("lookup") && facts.system.includes("Looks a key up."), facts.system);
    if (mode === "xml") {
      assert.match(facts.system, /use_mcp_tool/);
    } else {
      const lookup = facts.tools.find((t) => t.name === "notes0mcp0lookup");
      assert.ok(lookup, show(facts.tools));
      assert.deepEqual(lookup.inputSchema.required, ["key"]);
    }
    assert.deepEqual(facts.approvals, [{ type: "use_mcp_tool", serverName: "notes", toolName: "lookup", arguments: '{"key":"a"}' }]);
    assert.deepEqual(server.calls, [{ name: "lookup", arguments: { key: "a" } }]);
    assert.ok(kinds.includes("mcp_server_request_started"), show(kinds));
    assert.ok(facts.says.some((m) => m.say === "mcp_server_response" && m.text === "value of a"), show(facts.says));
    assert.match(facts.result.text, /^\[use_mcp_tool for 'notes'\] Result:\nvalue of a/, facts.result.text);
  } else if (kind === "deny") {
    assert.deepEqual(facts.outcome, { status: "completed", result: "done" }, show(facts));
    assert.deepEqual(facts.approvals, [{ type: "use_mcp_tool", serverName: "notes", toolName: "write_note", arguments: '{"text":"secret"}' }]);
    assert.deepEqual(server.calls, []);
    assert.ok(!kinds.includes("mcp_server_request_started"), show(kinds));
    assert.match(facts.result.text, /The user denied this operation\./, facts.result.text);
  } else if (kind === "abort") {
    assert.equal(facts.outcome.status, "aborted", show(facts));
    assert.equal(facts.requests, 1);
    assert.deepEqual(server.calls, [{ name: "slow", arguments: {} }]);
    await until("the server to see the cancellation", () => server.cancelled.length === 1);
    assert.equal(server.cancelled[0].name, "slow");
  } else {
    throw new Error(`no scenario ${kind}`);
  }
}

/** The scenarios each runtime runs. */
export const SCENARIOS = ["call", "deny", "abort"];
