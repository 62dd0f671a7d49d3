// The task benchmarks' workloads: each format's 5,000-delta body as one SSE event per read,
// and the one-event reply that completes the task, in each tool-calling mode.
import { readFileSync } from "node:fs";

/** The four wire formats and their bodies in benches/fixtures/. */
export const FORMATS = [
  ["anthropic", "sse-anthropic-5000"],
  ["openai", "sse-openai-5000"],
  ["openai-responses", "sse-responses-5000"],
  ["gemini", "sse-gemini-5000"],
];

const sse = (events) => events.map(([event, data]) => (event ? `event: ${event}\n` : "") + `data: ${JSON.stringify(data)}\n\n`).join("");
const XML = "<attempt_completion><result>ok</result></attempt_completion>";
const ARGS = JSON.stringify({ result: "ok" });

/** The reply that ends the task with attempt_completion, as `format` streams it in `mode`. */
export function completion(format, mode) {
  const native = mode === "native";
  switch (format) {
    case "anthropic":
      return sse([
        ["message_start", { type: "message_start", message: { id: "m", usage: { input_tokens: 1, output_tokens: 1 } } }],
        ["content_block_start", { type: "content_block_start", index: 0, content_block: native ? { type: "tool_use", id: "toolu_end", name: "attempt_completion", input: {} } : { type: "text", text: "" } }],
        ["content_block_delta", { type: "content_block_delta", index: 0, delta: native ? { type: "input_json_delta", partial_json: ARGS } : { type: "text_delta", text: XML } }],
        ["content_block_stop", { type: "content_block_stop", index: 0 }],
        ["message_stop", { type: "message_stop" }],
      ]);
    case "openai":
      return sse([[null, { choices: [{ index: 0, delta: native ? { tool_calls: [{ index: 0, id: "call_end", type: "function", function: { name: "attempt_completion", arguments: ARGS } }] } : { content: XML } }] }]]) + "data: [DONE]\n\n";
    case "openai-responses": {
      const item = native
        ? { id: "fc_end", type: "function_call", status: "completed", call_id: "call_end", name: "attempt_completion", arguments: ARGS }
        : { id: "msg_end", type: "message", status: "completed", role: "assistant", content: [{ type: "output_text", text: XML }] };
      return sse([
        ["response.created", { type: "response.created", response: { id: "resp_end", status: "in_progress" } }],
        ["response.output_item.done", { type: "response.output_item.done", output_index: 0, item }],
        ["response.completed", { type: "response.completed", response: { id: "resp_end", status: "completed", usage: { input_tokens: 1, output_tokens: 1, total_tokens: 2 } } }],
      ]);
    }
    case "gemini":
      return sse([[null, { candidates: [{ content: { parts: [native ? { functionCall: { name: "attempt_completion", args: { result: "ok" } } } : { text: XML }], role: "model" }, finishReason: "STOP", index: 0 }] }]]);
    default:
      throw new Error(`no completion for ${format}`);
  }
}

/** `name`'s body from `fixtures`, one Uint8Array per SSE event. */
export function eventsOf(fixtures, name) {
  const enc = new TextEncoder();
  return readFileSync(`${fixtures}/${name}.txt`, "utf8").split(/(?<=\r?\n\r?\n)/).map((e) => enc.encode(e));
}

/** The tools of the task benchmarks (both are read-only, so auto-approved). */
export const TOOLS = [
  { name: "read_file", readOnly: true, parameters: [{ name: "path", required: true }], execute: () => "file contents: ok" },
  { name: "get_weather", readOnly: true, parameters: [{ name: "city", required: true }], execute: () => "sunny" },
];
