// Scripted OpenAI Responses and Gemini bodies for the package tests (issue 29), written
// here by hand: reasoning with what must travel back, text, native calls, and the endings
// each format has (complete, incomplete, failed, a blocked prompt).

const data = (value) => `data: ${JSON.stringify(value)}\n\n`;

/**
 * An OpenAI Responses body: a reasoning item (summary and encrypted content), a commentary
 * message, then a call (`call`: { id, name, args }) or nothing; `end` is "completed",
 * "incomplete" (max_output_tokens) or "failed" (a server error before any item).
 */
export function responsesReply({ round, text, call, end = "completed" }) {
  const usage = { input_tokens: 100, input_tokens_details: { cached_tokens: 40 }, output_tokens: 30, output_tokens_details: { reasoning_tokens: 20 } };
  if (end === "failed") {
    return data({ type: "response.created", response: { id: `resp_${round}` } })
      + data({ type: "response.failed", response: { status: "failed", error: { code: "server_error", message: "The server had an error" } } });
  }
  const events = [{ type: "response.created", response: { id: `resp_${round}`, store: false } }];
  events.push({ type: "response.output_item.added", output_index: 0, item: { type: "reasoning", id: `rs_${round}`, summary: [] } });
  events.push({ type: "response.reasoning_summary_text.delta", output_index: 0, summary_index: 0, delta: `Plan ${round}.` });
  events.push({ type: "response.output_item.done", output_index: 0, item: { type: "reasoning", id: `rs_${round}`, summary: [{ type: "summary_text", text: `Plan ${round}.` }], encrypted_content: `ZW5j-${round}` } });
  events.push({ type: "response.output_item.added", output_index: 1, item: { type: "message", id: `msg_${round}`, role: "assistant", content: [] } });
  for (const piece of text.match(/.{1,5}/gs)) events.push({ type: "response.output_text.delta", output_index: 1, item_id: `x${events.length}`, delta: piece });
  events.push({ type: "response.output_item.done", output_index: 1, item: { type: "message", id: `msg_${round}`, role: "assistant", phase: "commentary", content: [{ type: "output_text", text }] } });
  if (call) {
    const args = JSON.stringify(call.args);
    events.push({ type: "response.output_item.added", output_index: 2, item: { type: "function_call", id: `fc_${round}`, call_id: call.id, name: call.name, arguments: "" } });
    for (const piece of args.match(/.{1,4}/gs)) events.push({ type: "response.function_call_arguments.delta", output_index: 2, delta: piece });
    events.push({ type: "response.output_item.done", output_index: 2, item: { type: "function_call", id: `fc_${round}`, call_id: call.id, name: call.name, arguments: args } });
  }
  events.push(end === "incomplete"
    ? { type: "response.incomplete", response: { status: "incomplete", incomplete_details: { reason: "max_output_tokens" }, usage } }
    : { type: "response.completed", response: { status: "completed", usage } });
  return events.map(data).join("");
}

/**
 * A Gemini body: a signed thought, text, then a signed call without an id (`call`: { name,
 * args }) or a signed empty text part; `end` is "STOP", "MAX_TOKENS", "unavailable" (an error
 * in the stream) or "blocked" (the prompt blocked, no candidates).
 */
export function geminiReply({ round, text, call, end = "STOP" }) {
  if (end === "blocked") return data({ promptFeedback: { blockReason: "PROHIBITED_CONTENT" }, usageMetadata: { promptTokenCount: 9 } });
  if (end === "unavailable") return data({ error: { code: 503, status: "UNAVAILABLE", message: "The model is overloaded." } });
  const event = (parts, last) => ({
    candidates: [{ content: { role: "model", parts }, ...(last ? { finishReason: end } : {}) }],
    usageMetadata: { promptTokenCount: 100, candidatesTokenCount: last ? 10 : 3, thoughtsTokenCount: 20 },
  });
  const events = [event([{ text: `Plan ${round}.`, thought: true, thoughtSignature: `dGhvdWdodA-${round}` }])];
  for (const piece of text.match(/.{1,6}/gs)) events.push(event([{ text: piece }]));
  events.push(event([call
    ? { functionCall: { name: call.name, args: call.args }, thoughtSignature: `Y2FsbA-${round}` }
    : { text: "", thoughtSignature: `ZW5k-${round}` }], true));
  return events.map(data).join("");
}
