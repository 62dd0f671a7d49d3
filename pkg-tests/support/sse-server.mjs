// A local model server for package tests: serves scripted SSE bodies (recorded fixtures
// and generated replies) for the Anthropic and OpenAI endpoints, in small pieces, and keeps
// every request body it received.
import { createServer } from "node:http";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { repoRoot } from "./package-dir.mjs";

export const fixture = (name) => readFileSync(join(repoRoot, "tests/fixtures/streams", name), "utf8");

/** An Anthropic SSE body: optional text, then an optional tool_use with `input`. */
export function anthropicReply(text, tool) {
  const events = [["message_start", { type: "message_start", message: { id: "msg_x", type: "message", role: "assistant", content: [], usage: { input_tokens: 12, output_tokens: 1 } } }]];
  let index = 0;
  if (text) {
    events.push(["content_block_start", { type: "content_block_start", index, content_block: { type: "text", text: "" } }]);
    for (const piece of text.match(/.{1,7}/gs)) events.push(["content_block_delta", { type: "content_block_delta", index, delta: { type: "text_delta", text: piece } }]);
    events.push(["content_block_stop", { type: "content_block_stop", index }]);
    index++;
  }
  if (tool) {
    events.push(["content_block_start", { type: "content_block_start", index, content_block: { type: "tool_use", id: tool.id, name: tool.name, input: {} } }]);
    const json = JSON.stringify(tool.input);
    for (const piece of json.match(/.{1,5}/gs)) events.push(["content_block_delta", { type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: piece } }]);
    events.push(["content_block_stop", { type: "content_block_stop", index }]);
  }
  events.push(["message_delta", { type: "message_delta", delta: { stop_reason: tool ? "tool_use" : "end_turn" }, usage: { output_tokens: 30 } }]);
  events.push(["message_stop", { type: "message_stop" }]);
  return events.map(([name, data]) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`).join("");
}

/** An OpenAI SSE body with text content. */
export function openaiReply(text) {
  const chunk = (delta, finish = null) => ({ id: "c", object: "chat.completion.chunk", model: "m", choices: [{ index: 0, delta, finish_reason: finish }] });
  const lines = [chunk({ role: "assistant", content: "" })];
  for (const piece of text.match(/.{1,6}/gs)) lines.push(chunk({ content: piece }));
  lines.push(chunk({}, "stop"));
  lines.push({ id: "c", object: "chat.completion.chunk", choices: [], usage: { prompt_tokens: 40, completion_tokens: 9 } });
  return lines.map((l) => `data: ${JSON.stringify(l)}\n\n`).join("") + "data: [DONE]\n\n";
}

/**
 * Starts a server answering POSTs with `replies[path]` in order. A reply is an SSE string,
 * `{ status, body, headers }` for an error, `{ stall }`: the SSE string `stall`, sent in
 * the same small pieces, after which the response stays open and silent (a model that stops
 * mid-reply) until the client goes away or the server closes, or `{ pieces, delayMs }`: each
 * string of `pieces` written whole, `delayMs` apart (a model that streams slowly), then the end
 * (its time in the request's `endedAt`).
 */
export async function startModelServer(replies) {
  const received = [];
  const served = {};
  const server = createServer(async (req, res) => {
    // NOTE: a page on another origin may call it (the Chromium tests): CORS allows anything.
    res.setHeader("access-control-allow-origin", "*");
    if (req.method === "OPTIONS") {
      res.writeHead(204, { "access-control-allow-methods": "POST", "access-control-allow-headers": "*", "access-control-max-age": "600" });
      res.end();
      return;
    }
    let body = "";
    for await (const piece of req) body += piece;
    const entry = { path: req.url, headers: req.headers, body: body ? JSON.parse(body) : null, at: Date.now() };
    received.push(entry);
    const n = served[req.url] = (served[req.url] ?? 0) + 1;
    const reply = (replies[req.url] ?? [])[n - 1];
    if (reply === undefined) {
      res.writeHead(500, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: "script ended" } }));
      return;
    }
    if (typeof reply === "object" && typeof reply.stall === "string") {
      res.writeHead(200, { "content-type": "text/event-stream" });
      const bytes = Buffer.from(reply.stall);
      for (let at = 0; at < bytes.length; at += 61) {
        res.write(bytes.subarray(at, at + 61));
        await new Promise((resolve) => setImmediate(resolve));
      }
      return;
    }
    if (typeof reply === "object" && Array.isArray(reply.pieces)) {
      res.writeHead(200, { "content-type": "text/event-stream" });
      for (const [i, piece] of reply.pieces.entries()) {
        if (i > 0) await new Promise((resolve) => setTimeout(resolve, reply.delayMs));
        if (res.destroyed) return;
        res.write(piece);
      }
      res.end();
      entry.endedAt = Date.now();
      return;
    }
    if (typeof reply === "object") {
      res.writeHead(reply.status, { "content-type": "application/json", ...(reply.headers ?? {}) });
      res.end(reply.body);
      return;
    }
    res.writeHead(200, { "content-type": "text/event-stream" });
    const bytes = Buffer.from(reply);
    for (let at = 0; at < bytes.length; at += 61) {
      res.write(bytes.subarray(at, at + 61));
      await new Promise((resolve) => setImmediate(resolve));
    }
    res.end();
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    received,
    close: () => new Promise((resolve) => { server.close(resolve); server.closeAllConnections(); }),
  };
}
