// A multi-round task for the cassette tests (issue 31), in each of the four provider formats,
// written here by hand: native calls with ids (a read-only tool that runs at once, a write
// that asks for approval, the completion), a 529 before a round, and a body that fails in the
// middle of a reply. `model.request` answers from memory, each body in several reads with a
// few real milliseconds between them. The texts have characters of 2 and 3 bytes, so a read
// may end inside one.
import { responsesReply, geminiReply } from "./providers-replies.mjs";

const data = (value) => `data: ${JSON.stringify(value)}\n\n`;
const pieces = (text, size) => text.match(new RegExp(`.{1,${size}}`, "gs"));

function anthropicReply({ round, text, call }) {
  const events = [
    ["message_start", { type: "message_start", message: { id: `msg_0${round}abc`, type: "message", role: "assistant", content: [], model: "claude-test", usage: { input_tokens: 100, output_tokens: 1 } } }],
    ["content_block_start", { type: "content_block_start", index: 0, content_block: { type: "thinking", thinking: "", signature: "" } }],
    ["content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: `Plan ${round}.` } }],
    ["content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "signature_delta", signature: `EqSig${round}xyz` } }],
    ["content_block_stop", { type: "content_block_stop", index: 0 }],
    ["content_block_start", { type: "content_block_start", index: 1, content_block: { type: "text", text: "" } }],
    ...pieces(text, 5).map((t) => ["content_block_delta", { type: "content_block_delta", index: 1, delta: { type: "text_delta", text: t } }]),
    ["content_block_stop", { type: "content_block_stop", index: 1 }],
  ];
  if (call) {
    events.push(["content_block_start", { type: "content_block_start", index: 2, content_block: { type: "tool_use", id: call.id, name: call.name, input: {} } }]);
    for (const p of pieces(JSON.stringify(call.args), 7)) events.push(["content_block_delta", { type: "content_block_delta", index: 2, delta: { type: "input_json_delta", partial_json: p } }]);
    events.push(["content_block_stop", { type: "content_block_stop", index: 2 }]);
  }
  events.push(["message_delta", { type: "message_delta", delta: { stop_reason: call ? "tool_use" : "end_turn" }, usage: { output_tokens: 30 } }]);
  events.push(["message_stop", { type: "message_stop" }]);
  return events.map(([name, value]) => `event: ${name}\n${data(value)}`).join("");
}

function openaiReply({ round, text, call }) {
  const id = `chatcmpl-${round}q`;
  const events = pieces(text, 5).map((t, i) => ({ id, choices: [{ index: 0, delta: i ? { content: t } : { role: "assistant", content: t } }] }));
  if (call) {
    events.push({ id, choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: call.id, type: "function", function: { name: call.name, arguments: "" } }] } }] });
    for (const p of pieces(JSON.stringify(call.args), 6)) events.push({ id, choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: p } }] } }] });
  }
  events.push({ id, choices: [{ index: 0, delta: {}, finish_reason: call ? "tool_calls" : "stop" }] });
  events.push({ id, choices: [], usage: { prompt_tokens: 100, completion_tokens: 20 } });
  return events.map(data).join("") + "data: [DONE]\n\n";
}

const REPLIES = { anthropic: anthropicReply, openai: openaiReply, "openai-responses": responsesReply, gemini: geminiReply };

/** One streamed reply in `format`: `{ round, text, call? }` (a call is `{ id, name, args }`). */
export const replyBody = (format, reply) => REPLIES[format](reply);

/** The rounds of the task: what each request gets. */
function rounds(format) {
  const reply = REPLIES[format];
  const call = (n, name, args) => ({ id: `call_${format.length}${n}Zq`, name, args });
  return [
    { body: reply({ round: 1, text: "Reading the notes first — café ✓.", call: call(1, "read_file", { path: "notes.md" }) }) },
    { status: 529, body: JSON.stringify({ type: "error", error: { type: "overloaded_error", message: "Overloaded" } }) },
    { body: reply({ round: 2, text: "Writing the summary (résumé) now.", call: call(2, "write_file", { path: "summary.md", content: "two notes" }) }) },
    { body: reply({ round: 3, text: "Almost there, checking one thing.", call: call(3, "read_file", { path: "summary.md" }) }), failAfter: 3 },
    { body: reply({ round: 4, text: "All done here.", call: call(4, "attempt_completion", { result: "The summary is written." }) }) },
  ];
}

/** A `model.request` that plays `rounds(format)` in order, each body in reads of 160 bytes. */
export function memoryModel(format, { readBytes = 160, pauseMs = 2 } = {}) {
  const plan = rounds(format);
  let n = 0;
  return async (_req, { signal }) => {
    const round = plan[Math.min(n++, plan.length - 1)];
    const bytes = new TextEncoder().encode(round.body);
    let at = 0, reads = 0;
    const body = new ReadableStream({
      async pull(controller) {
        await new Promise((r) => setTimeout(r, pauseMs));
        if (signal?.aborted) return controller.error(new Error("aborted"));
        if (round.failAfter !== undefined && reads === round.failAfter) return controller.error(new TypeError("terminated: other side closed"));
        if (at >= bytes.length) return controller.close();
        controller.enqueue(bytes.slice(at, at + readBytes));
        at += readBytes;
        reads++;
      },
    }, { highWaterMark: 0 });
    const contentType = round.status ? "application/json" : "text/event-stream";
    return new Response(body, { status: round.status ?? 200, headers: { "content-type": contentType } });
  };
}

/** The task's options: tools, approval, the retry policy, and logs of what it says and stores. */
export function taskOptions(format, log = { messages: [], stored: [] }) {
  const files = new Map([["notes.md", "one\ntwo"]]);
  return {
    model: { format, id: `${format}-model`, apiKey: "sk-test-SECRET-key-0123456789" },
    toolCalling: "native",
    systemPrompt: "You are a careful agent.",
    autoApprove: { readOnly: true },
    retry: { baseDelayMs: 300, maxDelayMs: 1000 },
    presentationIntervalMs: 20,
    tools: [
      { name: "read_file", description: "Read a file", readOnly: true, parameters: [{ name: "path", description: "Path", required: true }],
        execute: async ({ path }) => { await new Promise((r) => setTimeout(r, 3)); return files.get(path) ?? `no file at ${path}`; } },
      { name: "write_file", description: "Write a file", parameters: [{ name: "path", description: "Path", required: true }, { name: "content", description: "Text", required: true }],
        execute: async ({ path, content }) => { files.set(path, content); return `wrote ${path}`; } },
    ],
    say: (m) => log.messages.push(structuredClone(m)),
    ask: async (m) => {
      log.messages.push(structuredClone(m));
      if (m.partial) return undefined;
      await new Promise((r) => setTimeout(r, 4));
      return { response: "yesButtonClicked" };
    },
    persist: (changes, info) => { log.stored.push(JSON.stringify([changes, info])); },
  };
}
