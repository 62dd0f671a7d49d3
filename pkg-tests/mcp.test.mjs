// MCP servers as tools (issue 19) in Node: tasks of the installed package whose
// `mcpServers` hold a real SDK `Client` connected over Streamable HTTP to a real SDK
// `McpServer` (mcp-server.mjs), in XML and native tool calling, with a scripted model.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Task } from "clew";
import { connectMcpServer } from "clew/mcp";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { PNG_BASE64, startMcpServer } from "./support/mcp-server.mjs";
import { MODES, complete, readResource, resultIn, runTask, scriptedModel, sleep, until, useTool } from "./support/mcp-helpers.mjs";

/** A connected SDK client; `seen` lists the methods of the messages the server sent it. */
async function connect(url) {
  const client = new Client({ name: "clew-tests", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(url));
  await client.connect(transport);
  const seen = [];
  const onmessage = transport.onmessage;
  transport.onmessage = (message, extra) => {
    if (message && message.method) seen.push(message.method);
    return onmessage.call(transport, message, extra);
  };
  return { client, seen };
}

/** Runs `fn({ server, client, seen })` with a fresh server and a client connected to it. */
async function withServer(fn) {
  const server = await startMcpServer();
  const { client, seen } = await connect(server.url);
  try {
    return await fn({ server, client, seen });
  } finally {
    await client.close().catch(() => {});
    await server.close();
  }
}

const run = (options) => runTask(Task, options);
const mcpAsks = (asks) => asks.filter((a) => a.ask === "use_mcp_server");
const saysOf = (says, kind) => says.filter((m) => m.say === kind);
const useText = (tool, args, serverName = "notes") => ({ type: "use_mcp_tool", serverName, toolName: tool, arguments: args });
const json = (text) => { try { return JSON.parse(text); } catch { assert.fail(`not JSON: ${text}`); } };
const show = (value) => JSON.stringify(value, null, 1).slice(0, 4000);

for (const mode of MODES) {
  test(`${mode}: the servers' tools are described, an approved call reaches the server and its result the next request`, async () => {
    await withServer(async ({ server, client }) => {
      const { outcome, requests, asks, says } = await run({
        mode,
        mcpServers: [{ name: "notes", client }],
        replies: [useTool(mode, "notes", "lookup", '{"key":"a"}')],
      });
      assert.deepEqual(outcome, { status: "completed", result: "done" }, show(says));
      assert.equal(requests.length, 2);
      const first = requests[0];
      // The system prompt describes the server (both modes), its tools and its resource.
      for (const part of ["notes", "lookup", "Looks a key up.", "write_note", "Saves a note.", "slow", "notes://all", "Every note written"]) {
        assert.ok(first.system.includes(part), `the system prompt names ${part}:\n${first.system}`);
      }
      if (mode === "xml") {
        assert.match(first.system, /use_mcp_tool/);
        assert.match(first.system, /access_mcp_resource/);
        assert.match(first.system, /"key"/, "the input schema is in the prompt");
      } else {
        const names = (first.tools ?? []).map((t) => t.name);
        for (const tool of ["lookup", "write_note", "fail", "picture", "slow"]) {
          assert.ok(names.includes(`notes0mcp0${tool}`), `req.tools has notes0mcp0${tool}: ${names}`);
        }
        assert.ok(names.includes("access_mcp_resource"), `the server has a resource: ${names}`);
        const lookup = first.tools.find((t) => t.name === "notes0mcp0lookup");
        assert.equal(lookup.description, "Looks a key up.");
        assert.deepEqual(lookup.inputSchema.required, ["key"]);
        assert.equal(lookup.inputSchema.properties.key.type, "string");
      }
      // Approval: the reference's ask, then the call with the model's arguments.
      const approvals = mcpAsks(asks);
      assert.equal(approvals.length, 1, show(asks));
      assert.deepEqual(json(approvals[0].text), useText("lookup", '{"key":"a"}'));
      assert.deepEqual(server.calls, [{ name: "lookup", arguments: { key: "a" } }]);
      assert.equal(saysOf(says, "mcp_server_request_started").length, 1, show(says));
      const responses = saysOf(says, "mcp_server_response");
      assert.equal(responses.length, 1, show(says));
      assert.equal(responses[0].text, "value of a");
      const result = resultIn(requests[1], mode);
      assert.match(result.text, /^\[use_mcp_tool for 'notes'\] Result:\nvalue of a/, result.text);
      if (mode === "native") assert.equal(result.isError, false);
    });
  });

  test(`${mode}: a denied call never reaches the server and the model is told`, async () => {
    await withServer(async ({ server, client }) => {
      const { outcome, requests, asks, says } = await run({
        mode,
        mcpServers: [{ name: "notes", client }],
        replies: [useTool(mode, "notes", "write_note", '{"text":"secret"}')],
        answer: (m) => (m.ask === "use_mcp_server" ? "noButtonClicked" : "yesButtonClicked"),
      });
      assert.equal(outcome.status, "completed", show(outcome));
      assert.deepEqual(json(mcpAsks(asks)[0].text), useText("write_note", '{"text":"secret"}'));
      assert.deepEqual(server.calls, []);
      assert.deepEqual(server.notes, []);
      assert.equal(saysOf(says, "mcp_server_request_started").length, 0);
      const result = resultIn(requests[1], mode);
      assert.match(result.text, /The user denied this operation\./, result.text);
    });
  });

  test(`${mode}: a tool in the server's autoApprove list runs without asking`, async () => {
    await withServer(async ({ server, client }) => {
      const { outcome, requests, asks, says } = await run({
        mode,
        mcpServers: [{ name: "notes", client, autoApprove: ["write_note"] }],
        replies: [useTool(mode, "notes", "write_note", '{"text":"hello"}')],
      });
      assert.equal(outcome.status, "completed", show(outcome));
      assert.deepEqual(mcpAsks(asks), []);
      const said = saysOf(says, "use_mcp_server");
      assert.equal(said.length, 1, show(says));
      assert.deepEqual(json(said[0].text), useText("write_note", '{"text":"hello"}'));
      assert.deepEqual(server.calls, [{ name: "write_note", arguments: { text: "hello" } }]);
      assert.deepEqual(server.notes, ["hello"]);
      assert.match(resultIn(requests[1], mode).text, /^\[use_mcp_tool for 'notes'\] Result:\nsaved/);
    });
  });

  test(`${mode}: autoApprove.readOnly runs a tool that declares readOnlyHint and a resource read without asking, and still asks for the others`, async () => {
    await withServer(async ({ server, client }) => {
      const { outcome, requests, asks, says } = await run({
        mode,
        mcpServers: [{ name: "notes", client }],
        autoApprove: { readOnly: true },
        replies: [
          useTool(mode, "notes", "lookup", '{"key":"b"}'),
          useTool(mode, "notes", "write_note", '{"text":"x"}', "call_2"),
          readResource(mode, "notes", "notes://all", "call_3"),
        ],
      });
      assert.equal(outcome.status, "completed", show(outcome));
      const approvals = mcpAsks(asks);
      assert.equal(approvals.length, 1, show(asks));
      assert.equal(json(approvals[0].text).toolName, "write_note");
      const said = saysOf(says, "use_mcp_server").map((m) => json(m.text));
      assert.deepEqual(said, [useText("lookup", '{"key":"b"}'), { type: "access_mcp_resource", serverName: "notes", uri: "notes://all" }]);
      assert.deepEqual(server.calls, [{ name: "lookup", arguments: { key: "b" } }, { name: "write_note", arguments: { text: "x" } }]);
      assert.match(resultIn(requests[1], mode).text, /value of b/);
      assert.match(resultIn(requests[2], mode, "call_2").text, /saved/);
      assert.match(resultIn(requests[3], mode, "call_3").text, /^\[access_mcp_resource for 'notes'\] Result:\nx/);
    });
  });

  test(`${mode}: access_mcp_resource reads a resource, after approval`, async () => {
    await withServer(async ({ server, client }) => {
      const { outcome, requests, asks } = await run({
        mode,
        mcpServers: [{ name: "notes", client, autoApprove: ["write_note"] }],
        replies: [useTool(mode, "notes", "write_note", '{"text":"first note"}'), readResource(mode, "notes", "notes://all", "call_2")],
      });
      assert.equal(outcome.status, "completed", show(outcome));
      const approvals = mcpAsks(asks);
      assert.equal(approvals.length, 1, show(asks));
      assert.deepEqual(json(approvals[0].text), { type: "access_mcp_resource", serverName: "notes", uri: "notes://all" });
      assert.deepEqual(server.notes, ["first note"]);
      const result = resultIn(requests[2], mode, "call_2");
      assert.match(result.text, /^\[access_mcp_resource for 'notes'\] Result:\nfirst note/, result.text);
    });
  });

  test(`${mode}: an isError result is an error result for the model`, async () => {
    await withServer(async ({ server, client }) => {
      const { outcome, requests, says } = await run({
        mode,
        mcpServers: [{ name: "notes", client, autoApprove: ["fail"] }],
        replies: [useTool(mode, "notes", "fail", "{}")],
      });
      assert.equal(outcome.status, "completed", show(outcome));
      assert.deepEqual(server.calls, [{ name: "fail", arguments: {} }]);
      const errors = saysOf(says, "error");
      assert.ok(errors.some((m) => m.text === "Error executing use_mcp_tool: it failed"), show(says));
      assert.equal(saysOf(says, "mcp_server_response").length, 0);
      const result = resultIn(requests[1], mode);
      assert.match(result.text, /Error executing use_mcp_tool: it failed/, result.text);
      if (mode === "native") assert.equal(result.isError, true);
    });
  });

  test(`${mode}: an image result reaches the next request as an image block`, async () => {
    await withServer(async ({ server, client }) => {
      const { outcome, requests, says } = await run({
        mode,
        mcpServers: [{ name: "notes", client }],
        autoApprove: { readOnly: true },
        replies: [useTool(mode, "notes", "picture", "{}")],
      });
      assert.equal(outcome.status, "completed", show(outcome));
      assert.deepEqual(server.calls, [{ name: "picture", arguments: {} }]);
      const result = resultIn(requests[1], mode);
      assert.match(result.text, /a red dot/);
      assert.deepEqual(result.images, [{ type: "image", source: { type: "base64", media_type: "image/png", data: PNG_BASE64 } }]);
      const response = saysOf(says, "mcp_server_response")[0];
      assert.ok(response && JSON.stringify(response.images ?? []).includes(PNG_BASE64), `the response say shows the image: ${show(response)}`);
    });
  });

  const badCalls = [
    ["arguments that are not JSON", ["notes", "lookup", "{key: a}"], /'lookup' on the MCP server 'notes' cannot run: its arguments are not a valid JSON object/],
    ["an unknown tool", ["notes", "nothing", "{}"], /'nothing' on the MCP server 'notes' cannot run: the server has no tool of that name/],
    ["an unknown server", ["elsewhere", "lookup", '{"key":"a"}'], /the MCP server 'elsewhere' cannot run: no connected MCP server has that name/],
    ["a missing required argument", ["notes", "lookup", "{}"], /the tool needs the argument 'key'/],
  ];
  for (const [what, [serverName, tool, args], problem] of badCalls) {
    test(`${mode}: ${what}: an error result and an error say, the server never called`, async () => {
      await withServer(async ({ server, client }) => {
        const { outcome, requests, asks, says } = await run({
          mode,
          mcpServers: [{ name: "notes", client }],
          autoApprove: { all: true },
          replies: [useTool(mode, serverName, tool, args)],
        });
        assert.equal(outcome.status, "completed", show(outcome));
        assert.deepEqual(server.calls, []);
        assert.deepEqual(mcpAsks(asks), []);
        assert.equal(saysOf(says, "mcp_server_request_started").length, 0);
        assert.ok(saysOf(says, "error").some((m) => problem.test(m.text)), show(says));
        const result = resultIn(requests[1], mode);
        assert.match(result.text, problem, result.text);
        if (mode === "native") assert.equal(result.isError, true);
      });
    });
  }

  test(`${mode}: abort during a slow call cancels it on the server`, async () => {
    await withServer(async ({ server, client }) => {
      const { outcome, requests, says } = await run({
        mode,
        mcpServers: [{ name: "notes", client, autoApprove: ["slow"] }],
        replies: [useTool(mode, "notes", "slow", "{}")],
        during: async (task) => {
          await until("the call to reach the server", () => server.calls.length === 1);
          await sleep(20);
          task.abort("stop it");
        },
      });
      assert.equal(outcome.status, "aborted", show(outcome));
      assert.equal(requests.length, 1);
      await until("the server to see the cancellation", () => server.cancelled.length === 1);
      assert.equal(server.cancelled[0].name, "slow");
      assert.equal(server.cancelNotices.length, 1);
      assert.equal(saysOf(says, "mcp_server_response").length, 0);
    });
  });

  test(`${mode}: a call past the server's timeoutMs is cancelled on the server and fails`, async () => {
    await withServer(async ({ server, client }) => {
      const started = Date.now();
      const { outcome, requests, says } = await run({
        mode,
        mcpServers: [{ name: "notes", client, autoApprove: ["slow"], timeoutMs: 300 }],
        replies: [useTool(mode, "notes", "slow", "{}")],
      });
      assert.equal(outcome.status, "completed", show(outcome));
      assert.ok(Date.now() - started < 5000);
      await until("the server to see the cancellation", () => server.cancelled.length === 1);
      const result = resultIn(requests[1], mode);
      const late = /Error executing use_mcp_tool: the MCP server 'notes' did not answer within 300 ms/;
      assert.match(result.text, late, result.text);
      if (mode === "native") assert.equal(result.isError, true);
      assert.ok(saysOf(says, "error").some((m) => late.test(m.text)), show(says));
    });
  });

  test(`${mode}: a client that disconnects mid-call gives an error result, and the task goes on`, async () => {
    await withServer(async ({ server, client }) => {
      const { outcome, requests } = await run({
        mode,
        mcpServers: [{ name: "notes", client, autoApprove: ["slow"] }],
        replies: [useTool(mode, "notes", "slow", "{}")],
        during: async () => {
          await until("the call to reach the server", () => server.calls.length === 1);
          await client.close();
        },
      });
      assert.equal(outcome.status, "completed", show(outcome));
      const result = resultIn(requests[1], mode);
      assert.match(result.text, /Error executing use_mcp_tool: /, result.text);
      if (mode === "native") assert.equal(result.isError, true);
    });
  });

  test(`${mode}: servers that fail to list are reported and left out, the others work`, async () => {
    await withServer(async ({ server, client }) => {
      const broken = { listTools: async () => { throw new Error("no listing today"); }, callTool: async () => assert.fail("called") };
      const gone = await startMcpServer();
      const goneClient = (await connect(gone.url)).client;
      await gone.close();
      try {
        const { outcome, requests, says } = await run({
          mode,
          mcpServers: [{ name: "broken", client: broken }, { name: "gone", client: goneClient }, { name: "notes", client }],
          autoApprove: { readOnly: true },
          replies: [useTool(mode, "notes", "lookup", '{"key":"c"}')],
        });
        assert.equal(outcome.status, "completed", show(outcome));
        const errors = saysOf(says, "error").map((m) => m.text);
        assert.ok(errors.some((t) => t.includes('The MCP server "broken" is left out') && t.includes("no listing today")), show(errors));
        assert.ok(errors.some((t) => t.includes('The MCP server "gone" is left out')), show(errors));
        assert.equal(errors.length, 2, show(errors));
        assert.ok(!/broken|## gone/.test(requests[0].system), requests[0].system);
        if (mode === "native") assert.ok(!requests[0].tools.some((t) => /^(broken|gone)0mcp0/.test(t.name)));
        assert.deepEqual(server.calls, [{ name: "lookup", arguments: { key: "c" } }]);
        assert.match(resultIn(requests[1], mode).text, /value of c/);
      } finally {
        await goneClient.close().catch(() => {});
      }
    });
  });

  test(`${mode}: a tool added while an approval waits (notifications/tools/list_changed) is in the next request, after a call of that server`, async () => {
    await withServer(async ({ server, client, seen }) => {
      const { outcome, requests, asks } = await run({
        mode,
        mcpServers: [{ name: "notes", client }],
        replies: [useTool(mode, "notes", "lookup", '{"key":"a"}'), useTool(mode, "notes", "added_tool", '{"text":"t"}', "call_2")],
        answer: async (m) => {
          if (m.ask === "use_mcp_server" && json(m.text).toolName === "lookup") {
            server.addTool("added_tool");
            await until("the client to get notifications/tools/list_changed", () => seen.includes("notifications/tools/list_changed"));
          }
          return "yesButtonClicked";
        },
      });
      assert.equal(outcome.status, "completed", show(outcome));
      assert.equal(requests.length, 3);
      assert.ok(!requests[0].system.includes("added_tool"));
      assert.ok(requests[1].system.includes("added_tool"), requests[1].system);
      if (mode === "native") {
        assert.ok(!requests[0].tools.some((t) => t.name === "notes0mcp0added_tool"));
        assert.ok(requests[1].tools.some((t) => t.name === "notes0mcp0added_tool"), show(requests[1].tools.map((t) => t.name)));
      }
      assert.equal(mcpAsks(asks).length, 2);
      assert.deepEqual(server.calls, [{ name: "lookup", arguments: { key: "a" } }, { name: "added_tool", arguments: { text: "t" } }]);
      assert.match(resultIn(requests[2], mode, "call_2").text, /added_tool ran/);
    });
  });

  test(`${mode}: a tool added while a call of the server runs is in the next request`, async () => {
    await withServer(async ({ server, client, seen }) => {
      const callTool = client.callTool.bind(client);
      client.callTool = async (...args) => {
        if (args[0].name === "lookup") {
          server.addTool("added_tool");
          await until("the client to get notifications/tools/list_changed", () => seen.includes("notifications/tools/list_changed"));
        }
        return callTool(...args);
      };
      const { outcome, requests } = await run({
        mode,
        mcpServers: [{ name: "notes", client }],
        autoApprove: { all: true },
        replies: [useTool(mode, "notes", "lookup", '{"key":"a"}'), useTool(mode, "notes", "added_tool", "{}", "call_2")],
      });
      assert.equal(outcome.status, "completed", show(outcome));
      assert.ok(!requests[0].system.includes("added_tool"));
      assert.ok(requests[1].system.includes("added_tool"), requests[1].system);
      if (mode === "native") assert.ok(requests[1].tools.some((t) => t.name === "notes0mcp0added_tool"));
      assert.deepEqual(server.calls.map((c) => c.name), ["lookup", "added_tool"]);
      assert.match(resultIn(requests[2], mode, "call_2").text, /added_tool ran/);
    });
  });

  test(`${mode}: a duck-typed client (a plain object with listTools and callTool), and one that throws`, async () => {
    const received = [];
    const duck = {
      listTools: async () => ({
        tools: [
          { name: "echo", description: "Echoes its text.", inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] } },
          { name: "explode", description: "Throws.", inputSchema: { type: "object", properties: {} } },
        ],
      }),
      callTool: async (params, resultSchema, options) => {
        received.push({ params, signal: options && options.signal });
        if (params.name === "explode") throw new Error("kaboom");
        return { content: [{ type: "text", text: `echo: ${params.arguments.text}` }] };
      },
    };
    const { outcome, requests } = await run({
      mode,
      mcpServers: [{ name: "duck", client: duck, autoApprove: ["echo", "explode"] }],
      replies: [useTool(mode, "duck", "echo", '{"text":"hi"}'), useTool(mode, "duck", "explode", "{}", "call_2")],
    });
    assert.equal(outcome.status, "completed", show(outcome));
    assert.deepEqual(received.map((r) => r.params), [{ name: "echo", arguments: { text: "hi" } }, { name: "explode", arguments: {} }]);
    assert.ok(received[0].signal instanceof AbortSignal, "callTool gets the task's signal");
    if (mode === "native") {
      assert.deepEqual(requests[0].tools.filter((t) => t.name.startsWith("duck0mcp0")).map((t) => t.name), ["duck0mcp0echo", "duck0mcp0explode"]);
    }
    assert.match(resultIn(requests[1], mode).text, /^\[use_mcp_tool for 'duck'\] Result:\necho: hi/);
    const failed = resultIn(requests[2], mode, "call_2");
    assert.match(failed.text, /Error executing use_mcp_tool: .*kaboom/, failed.text);
  });

  test(`${mode}: a tool that requires task-based execution (execution.taskSupport "required") is not offered; "optional", "forbidden" and none are`, async () => {
    const called = [];
    const tool = (name, execution) => ({ name, description: `The ${name} tool.`, inputSchema: { type: "object", properties: {} }, ...(execution && { execution }) });
    const client = {
      listTools: async () => ({
        tools: [tool("plain"), tool("optional_task", { taskSupport: "optional" }), tool("forbidden_task", { taskSupport: "forbidden" }), tool("task_only", { taskSupport: "required" })],
      }),
      callTool: async (params) => { called.push(params.name); return { content: [{ type: "text", text: `${params.name} ran` }] }; },
    };
    const { outcome, requests } = await run({
      mode,
      mcpServers: [{ name: "jobs", client, autoApprove: ["plain", "task_only"] }],
      replies: [useTool(mode, "jobs", "task_only", "{}"), useTool(mode, "jobs", "plain", "{}", "call_2")],
    });
    assert.equal(outcome.status, "completed", show(outcome));
    const first = requests[0];
    for (const name of ["plain", "optional_task", "forbidden_task"]) {
      assert.ok(first.system.includes(`- ${name}: The ${name} tool.`), `the system prompt offers ${name}:\n${first.system}`);
    }
    assert.ok(!first.system.includes("task_only"), `the system prompt does not name task_only:\n${first.system}`);
    if (mode === "native") {
      const names = first.tools.map((t) => t.name).filter((name) => name.startsWith("jobs0mcp0"));
      assert.deepEqual(names, ["jobs0mcp0plain", "jobs0mcp0optional_task", "jobs0mcp0forbidden_task"]);
    }
    // Called anyway, it never reaches the client: the model is told it is not there.
    const refused = resultIn(requests[1], mode);
    assert.match(refused.text, /task_only/, refused.text);
    assert.doesNotMatch(refused.text, /task_only ran/, refused.text);
    assert.match(resultIn(requests[2], mode, "call_2").text, /plain ran/);
    assert.deepEqual(called, ["plain"]);
  });
}

test("clew/mcp: connectMcpServer gives a client a task can use", async () => {
  const server = await startMcpServer();
  const client = await connectMcpServer(server.url, { clientName: "clew-mcp-test" });
  try {
    const { outcome, requests } = await run({
      mode: "xml",
      mcpServers: [{ name: "notes", client }],
      autoApprove: { readOnly: true },
      replies: [useTool("xml", "notes", "lookup", '{"key":"z"}')],
    });
    assert.equal(outcome.status, "completed", show(outcome));
    assert.deepEqual(server.calls, [{ name: "lookup", arguments: { key: "z" } }]);
    assert.match(resultIn(requests[1], "xml").text, /value of z/);
  } finally {
    await client.close();
    await server.close();
  }
});

test("options.mcpServers is checked: a bad name or a missing client is a TypeError naming it", () => {
  const model = { format: "chunks", request: () => new ReadableStream() };
  const client = { listTools: async () => ({ tools: [] }), callTool: async () => ({ content: [] }) };
  for (const [servers, field] of [
    [[{ name: "has space", client }], /mcpServers\[0\]\.name/],
    [[{ name: "a0mcp0b", client }], /mcpServers\[0\]\.name/],
    [[{ name: "x", client }, { name: "x", client }], /mcpServers\[1\]\.name/],
    [[{ name: "x" }], /mcpServers\[0\]\.client/],
  ]) {
    assert.throws(() => new Task({ model, mcpServers: servers }), (e) => e instanceof TypeError && e.code === "CLEW_INVALID_OPTIONS" && field.test(e.message), JSON.stringify(servers));
  }
});

test("a task without mcpServers has no MCP tools", async () => {
  const { outcome, requests } = await run({ mode: "xml", replies: [complete("xml")] });
  assert.equal(outcome.status, "completed");
  assert.ok(!/use_mcp_tool|access_mcp_resource/.test(requests[0].system));
});

for (const mode of MODES) {
  test(`${mode}: a task snapshotted at an MCP approval, restored with mcpServers, calls the server once approved`, async () => {
    await withServer(async ({ server, client }) => {
      const { model } = scriptedModel(mode, [useTool(mode, "notes", "write_note", '{"text":"kept"}')]);
      let snapshot;
      const first = new Task({
        model, toolCalling: mode, mcpServers: [{ name: "notes", client }],
        ask: (m) => { if (!m.partial && m.ask === "use_mcp_server") snapshot = JSON.stringify(first.snapshot()); return undefined; },
      });
      void first.start("keep a note");
      await until("the approval", () => snapshot);
      first.abort();
      assert.deepEqual(server.calls, [], "nothing ran before the approval");
      assert.throws(() => Task.restore(snapshot, { model }), (e) => e.code === "CLEW_SNAPSHOT_TOOL_MISSING");
      const asks = [];
      const { model: rest, requests } = scriptedModel(mode, []);
      const restored = Task.restore(snapshot, {
        model: rest, toolCalling: mode, mcpServers: [{ name: "notes", client }],
        ask: (m) => { if (m.partial) return undefined; asks.push(m); return { response: "yesButtonClicked" }; },
      });
      const outcome = await restored.resume();
      assert.equal(outcome.status, "completed");
      assert.equal(asks[0].ask, "use_mcp_server", "the same ask, asked again");
      assert.deepEqual(server.calls, [{ name: "write_note", arguments: { text: "kept" } }]);
      assert.match(resultIn(requests[0], mode).text, /saved/);
      assert.ok(requests[0].system.includes("write_note"), "listed again before the next request");
    });
  });
}

// Issue 46: the glue is transport only; the core owns the listing's deadline, the checks and
// what the model reads of a result.

test("a server that never lists its tools is left out at timeouts.mcpListingMs, once, and the others work", async () => {
  let listings = 0;
  const hanging = { listTools: () => { listings++; return new Promise(() => {}); }, callTool: async () => assert.fail("called") };
  const duck = {
    listTools: async () => ({ tools: [{ name: "echo", description: "Echoes.", inputSchema: { type: "object", properties: { text: { type: "string" } } } }] }),
    callTool: async ({ arguments: args }) => ({ content: [{ type: "text", text: `echo: ${args.text}` }] }),
  };
  const started = Date.now();
  const { outcome, requests, says } = await run({
    mode: "xml",
    timeouts: { mcpListingMs: 300 },
    mcpServers: [{ name: "hangs", client: hanging }, { name: "duck", client: duck, autoApprove: ["echo"] }],
    replies: [useTool("xml", "duck", "echo", '{"text":"hi"}'), useTool("xml", "duck", "echo", '{"text":"again"}', "call_2")],
  });
  assert.equal(outcome.status, "completed", show(outcome));
  assert.ok(Date.now() - started < 5000);
  assert.deepEqual(saysOf(says, "error").map((m) => m.text), ['The MCP server "hangs" is left out: it did not list its tools within 300 ms']);
  assert.equal(requests.length, 3);
  for (const request of requests) assert.ok(request.system.includes("## duck") && !request.system.includes("## hangs"), request.system);
  assert.equal(listings, 1, "listed once, never again");
  assert.match(resultIn(requests[1], "xml").text, /echo: hi/);
});

test("a client without readResource: access_mcp_resource is refused by the task, the client never asked", async () => {
  const duck = {
    listTools: async () => ({ tools: [{ name: "echo", inputSchema: { type: "object" } }] }),
    callTool: async () => assert.fail("called"),
  };
  const { outcome, requests, says } = await run({
    mode: "xml",
    mcpServers: [{ name: "duck", client: duck }],
    autoApprove: { all: true },
    replies: [readResource("xml", "duck", "duck://x")],
  });
  assert.equal(outcome.status, "completed", show(outcome));
  const refused = /the MCP server 'duck' cannot run: its client cannot read resources/;
  assert.ok(saysOf(says, "error").some((m) => refused.test(m.text)), show(says));
  assert.match(resultIn(requests[1], "xml").text, refused);
});

test("a result's content of every kind reaches the model as the task reads it", async () => {
  const duck = {
    listTools: async () => ({ tools: [{ name: "all", inputSchema: { type: "object" } }] }),
    callTool: async () => ({
      content: [
        { type: "text", text: "first" },
        { type: "image", data: PNG_BASE64, mimeType: "image/png" },
        { type: "audio", data: "AAAA", mimeType: "audio/wav" },
        { type: "resource_link", uri: "notes://a", name: "a", description: "the note" },
        { type: "resource", resource: { uri: "notes://b", text: "inside" } },
        { type: "resource", resource: { uri: "notes://c", blob: "QUJDRA==", mimeType: "application/pdf" } },
      ],
    }),
  };
  const { outcome, requests, says } = await run({
    mode: "native",
    mcpServers: [{ name: "duck", client: duck, autoApprove: ["all"] }],
    replies: [useTool("native", "duck", "all", "{}")],
  });
  assert.equal(outcome.status, "completed", show(outcome));
  const result = resultIn(requests[1], "native");
  assert.equal(result.text, "[use_mcp_tool for 'duck'] Result:\nfirst\n\n[audio: audio/wav]\n\n[resource: notes://a (a): the note]\n\ninside\n\n[binary resource notes://c (application/pdf), 6 bytes]");
  assert.deepEqual(result.images, [{ type: "image", source: { type: "base64", media_type: "image/png", data: PNG_BASE64 } }]);
  assert.equal(saysOf(says, "mcp_server_response")[0].images.length, 1);
});

test("an MCP client anywhere in the options is kept, not copied", () => {
  const model = { format: "chunks", request: () => new ReadableStream() };
  let read = 0;
  const client = { listTools: async () => ({ tools: [] }), callTool: async () => ({ content: [] }), get secret() { read++; return 1; } };
  const task = new Task({ model, mcpServers: [{ name: "a", client }], rules: "x", environment: "y" });
  assert.equal(read, 0, "the options copy does not walk a client");
  task.free();
});
