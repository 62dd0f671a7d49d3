// Helpers of the MCP tests (mcp*.test.mjs): a scripted model in clew's "chunks" format, the
// model's calls of the two MCP tools in XML or native form, the result a request carries,
// waiting, and the scenarios the page and the Worker run (mcp-browser.test.mjs,
// mcp-workerd.test.mjs). A module without imports: Node imports it, Chromium loads it as it
// is, esbuild bundles it into the Worker.

/** Both tool-calling modes. */
export const MODES = ["xml", "native"];

const encoder = new TextEncoder();

/** A chunk of a native tool call. */
export function nativeCall(name, args, id) {
  return { type: "tool_calls", tool_call: { call_id: id, function: { id, name, arguments: typeof args === "string" ? args : JSON.stringify(args) } } };
}

/** The model's call of `tool` on `server` with `args` (JSON text), in `mode`. */
export function useTool(mode, server, tool, args, id = "call_1") {
  if (mode === "xml") {
    return `Calling ${tool}.\n<use_mcp_tool>\n<server_name>${server}</server_name>\n<tool_name>${tool}</tool_name>\n<arguments>${args}</arguments>\n</use_mcp_tool>`;
  }
  return [{ type: "text", text: `Calling ${tool}.` }, nativeCall(`${server}0mcp0${tool}`, args, id)];
}

/** The model's read of resource `uri` on `server`, in `mode`. */
export function readResource(mode, server, uri, id = "call_1") {
  if (mode === "xml") {
    return `Reading it.\n<access_mcp_resource>\n<server_name>${server}</server_name>\n<uri>${uri}</uri>\n</access_mcp_resource>`;
  }
  return [{ type: "text", text: "Reading it." }, nativeCall("access_mcp_resource", { server_name: server, uri }, id)];
}

/** The model's attempt_completion, in `mode`. */
export function complete(mode, result = "done") {
  if (mode === "xml") return `Finished.\n<attempt_completion>\n<result>${result}</result>\n</attempt_completion>`;
  return [{ type: "text", text: "Finished." }, nativeCall("attempt_completion", { result }, "call_done")];
}

/**
 * A scripted model: `replies[i]` answers the i-th request (a string of text, an array of
 * chunks, or a function of the request returning either); past the end it completes.
 * `requests` records each request.
 */
export function scriptedModel(mode, replies) {
  const requests = [];
  const model = {
    format: "chunks",
    request: (req) => {
      requests.push(req);
      const i = requests.length - 1;
      let reply = i < replies.length ? replies[i] : complete(mode);
      return new ReadableStream({
        async start(controller) {
          if (typeof reply === "function") reply = await reply(req, i);
          const chunks = typeof reply === "string" ? [{ type: "text", text: reply }] : reply;
          const lines = chunks.concat([{ type: "usage", inputTokens: 10, outputTokens: 5 }]).map((c) => JSON.stringify(c) + "\n").join("");
          controller.enqueue(encoder.encode(lines));
          controller.close();
        },
      });
    },
  };
  return { model, requests };
}

/**
 * The tool result that request `req` carries last: `{ text, images, isError }`. XML mode:
 * the last user message's text blocks and images; native mode: its tool_result for `id`.
 */
export function resultIn(req, mode, id = "call_1") {
  const last = req.messages[req.messages.length - 1];
  if (!last || last.role !== "user") throw new Error("the request does not end with a user message: " + JSON.stringify(last));
  const blocks = typeof last.content === "string" ? [{ type: "text", text: last.content }] : last.content;
  let inner = blocks;
  let isError;
  if (mode === "native") {
    const result = blocks.find((b) => b.type === "tool_result" && b.tool_use_id === id);
    if (!result) throw new Error(`no tool_result for ${id} in ${JSON.stringify(blocks)}`);
    inner = typeof result.content === "string" ? [{ type: "text", text: result.content }] : result.content;
    isError = result.is_error === true;
  }
  return {
    text: inner.filter((b) => b.type === "text").map((b) => b.text).join("\n"),
    images: inner.filter((b) => b.type === "image"),
    isError,
  };
}

/**
 * Runs a task of class `Task` with `options` (model, say and ask are filled in): `replies` script the model,
 * `answer(ask)` answers each complete ask that is not completion_result (yes by default),
 * `during(task)` runs beside the task. Resolves to `{ outcome, requests, asks, says, messages, task }`.
 */
export async function runTask(Task, { mode, replies, answer, during, text = "use the notes", ...options }) {
  const { model, requests } = scriptedModel(mode, replies);
  const finals = new Map();
  const asks = [];
  const task = new Task({
    ...options,
    model,
    toolCalling: mode,
    say: (m) => { finals.set(m.ts, m); },
    ask: async (m) => {
      finals.set(m.ts, m);
      if (m.partial) return undefined;
      asks.push(m);
      if (m.ask === "completion_result") return { response: "yesButtonClicked" };
      return { response: answer ? await answer(m, task) : "yesButtonClicked" };
    },
  });
  const started = task.start(text);
  const beside = during ? during(task) : undefined;
  const outcome = await started;
  if (beside) await beside;
  const messages = [...finals.values()];
  const says = messages.filter((m) => m.type === "say");
  return { outcome, requests, asks, says, messages, task };
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until `check()` is truthy (every 10 ms, `timeoutMs` at most). */
export async function until(what, check, timeoutMs = 5000) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

/**
 * A scenario of the page and the Worker, as JSON-safe facts for the test to check: `kind`
 * "call" (lookup, approved), "deny" (write_note, denied) or "abort" (slow, auto-approved,
 * aborted once the server reports the call at `stateUrl`), in `mode`, with the client that
 * `connect(url)` resolves to (closed at the end).
 */
export async function scenario(Task, connect, { kind, mode, url, stateUrl }) {
  const client = await connect(url);
  try {
    const replies = {
      call: [useTool(mode, "notes", "lookup", '{"key":"a"}')],
      deny: [useTool(mode, "notes", "write_note", '{"text":"secret"}')],
      abort: [useTool(mode, "notes", "slow", "{}")],
    }[kind];
    const { outcome, requests, asks, says } = await runTask(Task, {
      mode,
      replies,
      mcpServers: [{ name: "notes", client, autoApprove: kind === "abort" ? ["slow"] : [] }],
      answer: (m) => (kind === "deny" && m.ask === "use_mcp_server" ? "noButtonClicked" : "yesButtonClicked"),
      during: kind !== "abort" ? undefined : async (task) => {
        await until("the server to get the call", async () => (await (await fetch(stateUrl)).json()).calls.length > 0);
        task.abort("stop it");
      },
    });
    // NOTE: the client sends notifications/cancelled on its own time; closing it first could
    // cut that request.
    if (kind === "abort") await until("the server to see the cancellation", async () => (await (await fetch(stateUrl)).json()).cancelled.length > 0);
    return {
      outcome: outcome.status === "completed" ? outcome : { status: outcome.status, message: outcome.error && outcome.error.message },
      requests: requests.length,
      system: requests[0] ? requests[0].system : "",
      tools: requests[0] && requests[0].tools ? requests[0].tools.map((t) => ({ name: t.name, inputSchema: t.inputSchema })) : [],
      approvals: asks.filter((a) => a.ask === "use_mcp_server").map((a) => JSON.parse(a.text)),
      says: says.map((m) => ({ say: m.say, text: m.text })),
      result: requests.length > 1 ? resultIn(requests[1], mode) : null,
    };
  } finally {
    await client.close();
  }
}
