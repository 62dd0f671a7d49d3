// Runs the issue-29 tasks with whichever `Task` it is given, in any runtime (Node, a page, a
// Worker): native tool calls in OpenAI Responses or Gemini against `baseUrl`, a read-only
// tool, approvals answered yes, a failed request's ask answered no. Returns plain data.

/** One task: its outcome, its final say messages and its history. */
export async function runProviderTask(Task, { format, baseUrl, text }) {
  const says = [];
  const asks = [];
  const task = new Task({
    model: { format, id: "m-test", apiKey: "test-key", baseUrl, reasoningEffort: "low" },
    toolCalling: "native",
    tools: [{ name: "read_file", readOnly: true, parameters: [{ name: "path", required: true }],
              execute: ({ path }) => `contents of ${path}` }],
    autoApprove: { readOnly: true },
    retry: { maxRetries: 2, baseDelayMs: 5, maxDelayMs: 10 },
    say: (m) => { if (!m.partial) says.push({ say: m.say, text: m.text }); },
    ask: (m) => {
      if (m.partial) return undefined;
      asks.push(m.ask);
      return { response: m.ask === "api_req_failed" ? "noButtonClicked" : "yesButtonClicked" };
    },
  });
  const outcome = await task.start(text);
  const plain = (value) => JSON.parse(JSON.stringify(value));
  return { outcome: plain(outcome), says, asks, history: plain(task.history), usage: plain(task.usage) };
}

/** Decodes `body` (an SSE string) with `readModelStream`, chunks or the error's code. */
export async function decodeBody(readModelStream, body, format) {
  const chunks = [];
  try {
    const stream = await readModelStream(new Response(body, { headers: { "content-type": "text/event-stream" } }), format);
    const reader = stream.getReader();
    for (let r = await reader.read(); !r.done; r = await reader.read()) chunks.push(r.value);
    return { chunks };
  } catch (error) {
    return { chunks, error: { code: error.code, kind: error.kind, retryable: error.retryable } };
  }
}
