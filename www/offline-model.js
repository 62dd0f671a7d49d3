// The playground's built-in model past its tape: no key, no network. The offline model answers
// from the built-in tape (offline-tape.json, through clew/cassette's tapeModel) while a task
// follows the one recorded there, and from this script from the first request that differs
// (a task of your own, a denial, another answer). It reads the conversation it is sent
// (a ModelRequest) and streams a realistic Anthropic SSE reply through a real ReadableStream,
// delta by delta: reasoning, text and XML tool calls over the sample workspace, a follow-up
// question, and attempt_completion. Its first reply names the MCP servers' tools that the
// system prompt lists, if any (it does not call them). Plain ES module (runs in browsers,
// Workers and Node).

const PRICES = { contextWindow: 200000, inputPrice: 3, outputPrice: 15, cacheWritePrice: 3.75, cacheReadPrice: 0.3 };
export const OFFLINE_MODEL_INFO = PRICES;

function textOf(content) {
  if (typeof content === "string") return content;
  return content.map((b) => b.type === "text" ? b.text : b.type === "tool_result" ? textOf(b.content) : "").join("\n");
}

const tag = (name, params) => `<${name}>\n${Object.entries(params).map(([k, v]) => `<${k}>${v}</${k}>`).join("\n")}\n</${name}>`;

// What the loop puts in the history when a reply was cut by a failed stream (for instance a
// page reloaded mid-stream and the task restored): the cut reply ends with this notice, and
// the next user message asks to continue (alone, or after the results of the cut reply's
// tool call when that call was whole and ran).
const INTERRUPTED = "\n\n[Response interrupted by API Error]";
const CONTINUE = /^\[Your previous response was cut off by an API error\./;
const isCut = (message) => message?.role === "assistant" && textOf(message.content).endsWith(INTERRUPTED);
const isContinue = (message) => message?.role === "user" && CONTINUE.test(textOf(message.content).trim());
/** Whether `messages[i]` is a cut reply that the next request continues (so not a whole step). */
const continued = (messages, i) => isCut(messages[i]) && isContinue(messages[i + 1]);

function blocksOf(message, type) {
  const content = typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content;
  return content.filter((b) => b.type === type).map((b) => type === "thinking" ? b.thinking ?? "" : b.text ?? "").join("");
}

/**
 * The reply to a conversation: `{ reasoning?, text }`. The script's step is the number of
 * whole replies so far (a cut reply and its continuation make one). When the conversation
 * ends with cut replies and requests to continue, the reply is the rest of the cut one: what
 * was already delivered is left out, except that a tool call cut in the middle is sent again
 * whole.
 */
export function scriptedReply(request) {
  const messages = request.messages ?? [];
  let end = messages.length;
  while (end >= 2 && continued(messages, end - 2)) end -= 2;
  const reply = scriptedStep(messages.slice(0, end), mcpServersOf(request.system ?? ""));
  if (end === messages.length) return reply;
  const cut = messages.slice(end).filter((m) => m.role === "assistant");
  const reasoning = cut.map((m) => blocksOf(m, "thinking")).join("");
  const text = cut.map((m) => blocksOf(m, "text").replace(INTERRUPTED, "")).join("");
  const rest = {};
  if (!text && reply.reasoning?.startsWith(reasoning) && reply.reasoning.length > reasoning.length) {
    rest.reasoning = reply.reasoning.slice(reasoning.length);
  }
  let from = reply.text.startsWith(text) ? text.length : 0;
  const toolAt = reply.text.search(/<[a-z_]+>\n/);
  if (toolAt >= 0 && from > toolAt) from = toolAt;
  rest.text = reply.text.slice(from);
  return rest;
}

/**
 * The MCP servers the system prompt describes (its "# MCP servers" section), as
 * `[{ name, tools }]` with the names of each server's tools; none when there is no section.
 */
export function mcpServersOf(system = "") {
  const at = system.search(/^# MCP servers$/m);
  if (at < 0) return [];
  const body = system.slice(system.indexOf("\n", at) + 1);
  const next = body.search(/^# /m); // the next top-level heading ends the section
  const section = next < 0 ? body : body.slice(0, next);
  return section.split(/^## /m).slice(1).map((part) => {
    const name = part.split("\n", 1)[0];
    const tools = part.split(/^### /m).find((block) => block.startsWith("Tools\n")) ?? "";
    return { name: name.trim(), tools: [...tools.matchAll(/^- ([^:\s]+):/gm)].map((m) => m[1]) };
  });
}

/** A sentence naming the connected MCP servers and their tools (the script does not use them). */
function mcpSentence(servers) {
  if (servers.length === 0) return "";
  const each = servers.map((s) => `${s.name} (${s.tools.join(", ") || "no tools"})`).join(" and ");
  return ` I can also use the tools of the MCP ${servers.length === 1 ? "server" : "servers"} ${each}, but this task needs only the workspace's files.`;
}

function scriptedStep(messages, servers = []) {
  const step = messages.filter((m, i) => m.role === "assistant" && !continued(messages, i)).length;
  const last = textOf([...messages].reverse().find((m) => m.role === "user" && !isContinue(m))?.content ?? "");
  const task = textOf(messages[0]?.content ?? "").replace(/<\/?task>/g, "").trim();
  const denied = /denied this operation/.test(last);
  const lead = denied ? "Understood, I'll leave that as it is. " : "";
  switch (step) {
    case 0:
      return {
        reasoning: `The user asks: "${task}". I should look at the workspace before changing anything, starting with the file list.`,
        text: `I'll start by looking at the files in the workspace.${mcpSentence(servers)}\n\n${tag("list_files", { path: ".", recursive: "true" })}`,
      };
    case 1:
      return { text: `${lead}Let me read the README first.\n\n${tag("read_file", { path: "README.md" })}` };
    case 2:
      return {
        text: `${lead}The README has two typos on its greeting line. I'll fix them.\n\n` +
          tag("replace_in_file", { path: "README.md", diff: "\n------- SEARCH\nHelo wrold! This tiny project prints a greeting.\n=======\nHello world! This tiny project prints a greeting.\n+++++++ REPLACE\n" }),
      };
    case 3:
      return {
        text: `${lead}Next I'll write down what I changed in a notes file.\n\n` +
          tag("write_to_file", { path: "NOTES.md", content: "\n# Notes\n\n- Fixed the greeting typos in README.md (\"Helo wrold\" -> \"Hello world\").\n" }),
      };
    case 4:
      return {
        text: `${lead}One question before I finish.\n\n` +
          tag("ask_followup_question", { question: "Should I also add a CHANGELOG.md entry?", options: "[\"Yes, please\", \"No, that's all\"]" }),
      };
    case 5: {
      const yes = /<answer>\s*(yes|y|sure|ok)/i.test(last);
      if (yes) {
        return { text: `Adding the changelog entry.\n\n${tag("write_to_file", { path: "CHANGELOG.md", content: "\n# Changelog\n\n- README: fixed the greeting typos.\n" })}` };
      }
      return completion(`${lead}Everything is in place.`);
    }
    default: {
      const feedback = /<feedback>\n([\s\S]*?)\n<\/feedback>/.exec(last);
      const intro = feedback ? `Thanks, noted: "${feedback[1]}".` : `${lead}Done.`;
      return completion(intro);
    }
  }
}

function completion(intro) {
  return {
    text: `${intro}\n\n${tag("attempt_completion", { result: "I fixed the typos in README.md (\"Helo wrold\" is now \"Hello world\") and wrote down the change." })}`,
  };
}

/** Anthropic SSE events (as strings) that stream `reply`, in deltas of a few characters. */
export function sseEvents(reply, inputTokens) {
  const events = [];
  const ev = (name, data) => events.push(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`);
  ev("message_start", { type: "message_start", message: { id: `msg_offline_${inputTokens}`, type: "message", role: "assistant", model: "clew-offline", content: [], usage: { input_tokens: inputTokens, output_tokens: 1, cache_read_input_tokens: 0 } } });
  let index = 0;
  const deltas = (text) => text.match(/[\s\S]{1,6}/g) ?? [];
  if (reply.reasoning) {
    ev("content_block_start", { type: "content_block_start", index, content_block: { type: "thinking", thinking: "" } });
    for (const piece of deltas(reply.reasoning)) ev("content_block_delta", { type: "content_block_delta", index, delta: { type: "thinking_delta", thinking: piece } });
    ev("content_block_stop", { type: "content_block_stop", index });
    index++;
  }
  ev("content_block_start", { type: "content_block_start", index, content_block: { type: "text", text: "" } });
  ev("ping", { type: "ping" });
  for (const piece of deltas(reply.text)) ev("content_block_delta", { type: "content_block_delta", index, delta: { type: "text_delta", text: piece } });
  ev("content_block_stop", { type: "content_block_stop", index });
  const output = Math.ceil(((reply.reasoning ?? "").length + reply.text.length) / 4);
  ev("message_delta", { type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: output } });
  ev("message_stop", { type: "message_stop" });
  return events;
}

/**
 * A `model.request` function for the Task: streams the scripted reply as Anthropic SSE
 * through a ReadableStream, one event per `delayMs`; an aborted signal errors the stream.
 */
export function offlineRequest({ delayMs = 15 } = {}) {
  const encoder = new TextEncoder();
  return (request, { signal }) => {
    const inputTokens = Math.ceil(JSON.stringify(request.messages ?? []).length / 4) + Math.ceil((request.system ?? "").length / 4);
    const events = sseEvents(scriptedReply(request), inputTokens);
    let i = 0;
    let timer;
    return new ReadableStream({
      start(controller) {
        signal?.addEventListener("abort", () => {
          clearTimeout(timer);
          try { controller.error(new DOMException("aborted", "AbortError")); } catch { /* already closed */ }
        });
      },
      pull(controller) {
        return new Promise((resolve) => {
          timer = setTimeout(() => {
            if (signal?.aborted) return resolve();
            if (i < events.length) controller.enqueue(encoder.encode(events[i++]));
            else controller.close();
            resolve();
          }, i === 0 ? 0 : delayMs);
        });
      },
    });
  };
}
