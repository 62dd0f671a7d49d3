// The scripted model and network of the README examples' harness (front-door-examples.mjs):
// what an example reaches over HTTP is answered here, offline.
//
// The script, whatever the example: the first request of a task whose prompt offers a
// `read_file` tool reads README.md with it; any other request ends the task with
// `attempt_completion`, whose result repeats the task's text ("Done: Fix the typo in
// README.md"). Replies are Anthropic Messages SSE (pkg-tests/support/sse-server.mjs's
// `anthropicReply`), with XML tool calls.
import { anthropicReply } from "./sse-server.mjs";
import { startMcpServer } from "./mcp-server.mjs";

const textOf = (content) => typeof content === "string" ? content
  : Array.isArray(content) ? content.map((block) => block?.text ?? textOf(block?.content)).join("\n") : "";

/** The model text that answers a request `{ system, messages }` (Anthropic or ModelRequest shape). */
export function scriptedText({ system, messages = [] }) {
  const task = /<task>\s*([\s\S]*?)\s*<\/task>/.exec(textOf(messages[0]?.content))?.[1] ?? "the task";
  if (messages.length === 1 && /\bread_file\b/.test(textOf(system))) {
    return "I will read the file first.\n<read_file>\n<path>README.md</path>\n</read_file>";
  }
  return `It is done.\n<attempt_completion>\n<result>\nDone: ${task}\n</result>\n</attempt_completion>`;
}

/** The scripted reply to a request, as an Anthropic SSE body. */
export const scriptedSse = (request) => anthropicReply(scriptedText(request));

const sseResponse = (body) => new Response(body, { status: 200, headers: { "content-type": "text/event-stream" } });

/** Model settings whose `request` answers from the script (for files that stand for "your app"). */
export function scriptedModel(settings = {}) {
  return {
    format: "anthropic", id: "claude-sonnet-4-5",
    info: { contextWindow: 200000, inputPrice: 3, outputPrice: 15 },
    ...settings,
    request: async (req) => sseResponse(scriptedSse(req)),
  };
}

let mcp;
/**
 * A `fetch` for the examples' process: a POST to api.anthropic.com is answered from the
 * script; a request to a host under example.com (the reserved example domain, the examples'
 * MCP server) goes to the MCP test server of support/mcp-server.mjs, started on first use;
 * anything else is refused, so an example never reaches the network.
 */
export function offlineFetch(realFetch) {
  return async function fetch(input, init = {}) {
    const request = new Request(input, init);
    const url = new URL(request.url);
    if (url.hostname === "api.anthropic.com") {
      const body = JSON.parse(await request.text());
      return sseResponse(scriptedSse(body));
    }
    if (url.hostname === "example.com" || url.hostname.endsWith(".example.com")) {
      mcp ??= startMcpServer();
      const local = new URL((await mcp).url);
      url.protocol = local.protocol;
      url.host = local.host;
      return realFetch(new Request(url, request));
    }
    throw new TypeError(`front-door harness: no network in the examples (${request.method} ${request.url})`);
  };
}

/** Closes the MCP test server if an example started it. */
export async function closeOffline() {
  if (mcp) await (await mcp).close();
}
