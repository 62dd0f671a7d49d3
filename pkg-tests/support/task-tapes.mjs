// Multi-round tasks that the package tests replay from tapes (tests/fixtures/cassettes/tasks/),
// rather than scripting their bodies on a server each run: each names its task text, its
// options and the replies it was recorded with (recorded provider streams and generated
// ones, served over HTTP by support/sse-server.mjs). `node support/make-task-tapes.mjs`
// records them again, for when clew's requests change on purpose: a replay fails with
// CLEW_CASSETTE_MISMATCH, naming where, until then.
import assert from "node:assert/strict";
import { anthropicReply, fixture, openaiReply } from "./sse-server.mjs";

/** Read-only tools that log their calls. */
export function loggingTools(log) {
  const tool = (name) => ({
    name,
    description: `${name} a path`,
    readOnly: true,
    parameters: [{ name: "path", description: "where", required: true }],
    execute: async ({ path }, { signal, taskId }) => {
      assert.ok(signal && typeof taskId === "string");
      log.push(`${name} ${path}`);
      return `${name} of ${path}: ok`;
    },
  });
  return [tool("read_file"), tool("list_files")];
}

export const TASK_TAPES = {
  "anthropic-native-overload": {
    text: "read the config",
    replies: {
      "/v1/messages": [
        fixture("anthropic-thinking-tool.sse"),
        fixture("anthropic-overloaded.sse"),
        anthropicReply("All set.", { id: "toolu_end", name: "attempt_completion", input: { result: "config read" } }),
      ],
    },
    options: ({ baseUrl, log, messages }) => ({
      model: { format: "anthropic", id: "claude-test", apiKey: "sk-test", baseUrl, info: { inputPrice: 3, outputPrice: 15 } },
      tools: loggingTools(log),
      toolCalling: "native",
      autoApprove: { readOnly: true },
      retry: { baseDelayMs: 10 },
      say: (m) => messages.push(m),
      ask: (m) => (m.partial ? undefined : { response: "yesButtonClicked" }),
    }),
  },
  "openai-parallel-429": {
    text: "look around",
    replies: {
      "/chat/completions": [
        fixture("openai-tools.sse"),
        { status: 429, body: JSON.stringify({ error: { type: "rate_limit_error", message: "slow down" } }), headers: { "retry-after": "0" } },
        openaiReply("Done.\n<attempt_completion>\n<result>listed and read</result>\n</attempt_completion>"),
      ],
    },
    options: ({ baseUrl, log, messages }) => ({
      model: { format: "openai", id: "gpt-test", baseUrl },
      tools: loggingTools(log),
      parallelToolCalling: true,
      autoApprove: { readOnly: true },
      retry: { baseDelayMs: 10 },
      say: (m) => messages.push(m),
      ask: () => ({ response: "yesButtonClicked" }),
    }),
  },
};

/** The tape of `name`, as checked in. */
export async function taskTape(name) {
  const { readFileSync } = await import("node:fs");
  return JSON.parse(readFileSync(new URL(`../../tests/fixtures/cassettes/tasks/${name}.json`, import.meta.url), "utf8"));
}
