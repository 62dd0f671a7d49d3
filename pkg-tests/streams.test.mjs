// Model streams through the installed package in Node: fetch against a local HTTP server
// that dribbles provider fixtures, read with readModelStream / sseDecoder / StreamDecoder.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { readModelStream, sseDecoder, StreamDecoder, buildRequest, modelCost, ToolCallAssembler } from "clew";
import { repoRoot } from "./support/package-dir.mjs";

const fixtureDir = join(repoRoot, "tests/fixtures/streams");
const fixture = (name, ext = "sse") => readFileSync(join(fixtureDir, `${name}.${ext}`));
const expected = (name) => JSON.parse(readFileSync(join(fixtureDir, `${name}.expected.json`), "utf8"));

let server;
let base;
before(async () => {
  server = createServer(async (req, res) => {
    const url = new URL(req.url, "http://x");
    if (url.pathname === "/rate-limited") {
      res.writeHead(429, { "content-type": "application/json", "retry-after": "2" });
      res.end(JSON.stringify({ type: "error", error: { type: "rate_limit_error", message: "Too many requests" } }));
      return;
    }
    const [name, ext] = url.pathname.slice(1).split(".");
    const body = fixture(name, ext);
    res.writeHead(200, { "content-type": "text/event-stream" });
    const piece = Number(url.searchParams.get("piece") ?? 17);
    for (let at = 0; at < body.length; at += piece) {
      res.write(body.subarray(at, at + piece));
      await new Promise((resolve) => setImmediate(resolve));
    }
    res.end();
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${server.address().port}`;
});
after(() => new Promise((resolve) => server.close(resolve)));

async function collect(stream) {
  const chunks = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

for (const [name, format] of [["anthropic-thinking-tool", "anthropic"], ["openai-tools", "openai"], ["deepseek-reasoning", "openai"], ["openrouter-cr", "openai"]]) {
  test(`fetch + readModelStream decodes ${name}`, async () => {
    const response = await fetch(`${base}/${name}.sse?piece=11`);
    assert.deepEqual(await collect(await readModelStream(response, format)), expected(name).chunks);
  });
}

test("an error sent inside the stream errors the chunk stream after the chunks before it", async () => {
  const response = await fetch(`${base}/anthropic-overloaded.sse`);
  const seen = [];
  await assert.rejects(async () => { for await (const chunk of await readModelStream(response, "anthropic")) seen.push(chunk); },
    (e) => e.name === "ClewStreamError" && e.code === "CLEW_PROVIDER_ERROR" && e.kind === "overloaded_error" && e.retryable === true);
  assert.deepEqual(seen, expected("anthropic-overloaded").chunks);
});

test("an HTTP error status rejects with status, provider message and retry-after", async () => {
  const response = await fetch(`${base}/rate-limited`);
  await assert.rejects(readModelStream(response, "anthropic"), (e) =>
    e.code === "CLEW_HTTP_ERROR" && e.status === 429 && e.retryAfterMs === 2000 && e.providerMessage === "Too many requests" && e.retryable);
});

test("sseDecoder is a TransformStream for pipeThrough", async () => {
  const response = await fetch(`${base}/openai-text.sse?piece=3`);
  assert.deepEqual(await collect(response.body.pipeThrough(sseDecoder("openai"))), expected("openai-text").chunks);
  assert.throws(() => sseDecoder("cohere"), (e) => e instanceof TypeError && e.code === "CLEW_UNKNOWN_FORMAT");
});

test("StreamDecoder decodes synchronously and hands back the chunks decoded before an error", () => {
  const decoder = new StreamDecoder("chunks");
  const body = fixture("chunks-error", "jsonl");
  let chunks = [];
  assert.throws(() => { chunks = decoder.push(body); }, (e) => {
    chunks = e.chunks;
    return e.code === "CLEW_PROVIDER_ERROR";
  });
  assert.deepEqual(chunks, expected("chunks-error").chunks);
});

test("buildRequest makes a fetch-ready request; modelCost prices usage", () => {
  const request = buildRequest("openai", {
    system: "Be brief.",
    messages: [{ role: "user", content: "hi" }],
    tools: [{ name: "read_file", description: "Reads", inputSchema: { type: "object" } }],
    model: { id: "gpt-4.1-mini", apiKey: "sk-x", baseUrl: "http://127.0.0.1:1/v1" },
  });
  assert.equal(request.url, "http://127.0.0.1:1/v1/chat/completions");
  assert.equal(request.headers.authorization, "Bearer sk-x");
  const body = JSON.parse(request.body);
  assert.equal(body.stream, true);
  assert.deepEqual(body.stream_options, { include_usage: true });
  assert.equal(body.tools[0].function.name, "read_file");
  assert.equal(modelCost({ inputPrice: 1, outputPrice: 2 }, { inputTokens: 500000, outputTokens: 250000 }), 1);
  assert.equal(modelCost({ inputPrice: 1 }, { inputTokens: 5, outputTokens: 0, totalCost: 0.25 }), 0.25);
});

// A body read by read(): one piece per read; `fail` makes the read after the last piece fail.
function pieces(parts, fail) {
  const encoder = new TextEncoder();
  let i = 0;
  return new ReadableStream({
    pull(controller) {
      if (i < parts.length) controller.enqueue(encoder.encode(parts[i++]));
      else if (fail) controller.error(new TypeError("terminated"));
      else controller.close();
    },
  }, { highWaterMark: 0 });
}

async function readAll(stream) {
  const chunks = [];
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { chunks };
      chunks.push(value);
    }
  } catch (error) {
    return { chunks, error };
  }
}

const deltas = [1, 2, 3, 4, 5].map((i) => `data: {"choices":[{"index":0,"delta":{"content":"t${i}"}}]}\n\n`).join("");

test("chunks decoded before an error in the same read are delivered before the error", async () => {
  const read = deltas + 'data: {"error":{"message":"overloaded","type":"overloaded_error"}}\n\n';
  for (const stream of [
    await readModelStream(new Response(pieces([read])), "openai"),
    pieces([read]).pipeThrough(sseDecoder("openai")),
  ]) {
    const { chunks, error } = await readAll(stream);
    assert.deepEqual(chunks.map((c) => c.text), ["t1", "t2", "t3", "t4", "t5"]);
    assert.equal(error.code, "CLEW_PROVIDER_ERROR");
  }
});

test("a body that fails after its last byte keeps the last event; one that fails mid-stream is incomplete", async () => {
  const whole = deltas + 'data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\ndata: [DONE]';
  const complete = await readAll(await readModelStream(new Response(pieces([whole], true)), "openai"));
  assert.equal(complete.error, undefined);
  assert.deepEqual(complete.chunks.at(-1), { type: "stop", reason: "stop" });
  const cut = await readAll(await readModelStream(new Response(pieces([deltas], true)), "openai"));
  assert.equal(cut.chunks.length, 5);
  assert.equal(cut.error.code, "CLEW_STREAM_INCOMPLETE");
  assert.equal(cut.error.retryable, true);
  assert.equal(cut.error.cause.message, "terminated");
});

test("ToolCallAssembler reads arguments as JSON.parse does: split surrogate pairs, __proto__, huge numbers", () => {
  const assembler = new ToolCallAssembler();
  const piece = (args, name) => ({ tool_call: { call_id: "c", function: { id: "c", name, arguments: args } } });
  assembler.push(piece('{"__proto__": "own", "n": 1e400, "e": "\ud83d', "t"));
  assembler.push(piece('\ude00"}'));
  const call = assembler.call(0);
  assert.deepEqual(Object.keys(call.params), ["__proto__", "n", "e"]);
  assert.equal(Object.getPrototypeOf(call.params), Object.prototype);
  assert.equal(call.params.n, "1e400");
  assert.equal(call.params.e, "\u{1F600}");
  assert.equal(call.complete, true);
  assert.equal(call.invalid, false);
  assert.equal(assembler.call(2 ** 32), undefined);
});

test("provider JSON that JSON.parse accepts decodes: lone surrogate escapes, counts above 2^53", () => {
  const encoder = new TextEncoder();
  const body = 'data: {"choices":[{"index":0,"delta":{"content":"a\\ud83d b"}}]}\n\n'
    + 'data: {"choices":[],"usage":{"prompt_tokens":9007199254740993,"completion_tokens":1}}\n\n';
  const whole = new StreamDecoder("openai").push(encoder.encode(body));
  assert.equal(whole[0].text, "a\ufffd b");
  assert.equal(typeof whole[1].inputTokens, "number");
  assert.ok(whole[1].inputTokens >= 2 ** 53);
  // The same chunks whatever the split.
  const decoder = new StreamDecoder("openai");
  const split = [...encoder.encode(body)].flatMap((byte) => decoder.push(new Uint8Array([byte])));
  assert.deepEqual(split, whole);
});

// A body of `events` OpenAI text deltas whose event `big` (if any) carries `bigBytes` of text:
// ASCII only, so that a cut anywhere is also a cut between characters.
function openaiBody(events, big = -1, bigBytes = 0) {
  let body = "";
  for (let i = 0; i < events; i++) {
    const text = i === big ? "b".repeat(bigBytes) : `piece ${i} `.repeat(1 + (i % 40));
    body += `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: text } }] })}\n\n`;
  }
  return body + 'data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n';
}

// `body` cut at the sizes of `cuts` (in turn, again and again), each piece made by `kind(bytes, i)`.
function cutInto(body, cuts, kind) {
  const bytes = new TextEncoder().encode(body);
  const out = [];
  for (let at = 0, i = 0; at < bytes.length; i++) {
    const size = cuts[i % cuts.length];
    out.push(kind(bytes.slice(at, at + size), i));
    at += size;
  }
  return out;
}

const streamOfPieces = (items) => {
  let i = 0;
  return new ReadableStream({ pull(c) { if (i < items.length) c.enqueue(items[i++]); else c.close(); } }, { highWaterMark: 0 });
};

test("sseDecoder and readModelStream decode pieces of every kind and size as one push of the whole body does", async () => {
  // Pieces from 1 byte to several times the 16 KiB the decoders take straight into the wasm's
  // memory, a 300 KB event among them (the memory grows while the views on it are kept), and
  // every kind of piece sseDecoder takes: Uint8Array, Buffer, ArrayBuffer, string.
  const body = openaiBody(400, 200, 300_000);
  const whole = new StreamDecoder("openai");
  const expected = [...whole.push(new TextEncoder().encode(body)), ...whole.finish()];
  assert.equal(expected.filter((c) => c.type === "text").map((c) => c.text).join("").length > 300_000, true);
  const kinds = [
    (b) => b,
    (b) => Buffer.from(b),
    (b) => b.buffer,
    (b) => new TextDecoder().decode(b),
  ];
  for (const cuts of [[1, 7, 100], [5000, 16384, 16385], [70_000, 3, 40_000], [1 << 20]]) {
    const mixed = cutInto(body, cuts, (b, i) => kinds[i % kinds.length](b));
    assert.deepEqual(await collect(streamOfPieces(mixed).pipeThrough(sseDecoder("openai"))), expected, `sseDecoder, cuts ${cuts}`);
    const bytes = cutInto(body, cuts, (b) => b);
    assert.deepEqual(await collect(await readModelStream(new Response(streamOfPieces(bytes)), "openai")), expected, `readModelStream, cuts ${cuts}`);
  }
});

test("sseDecoder fails with a TypeError naming the piece that is neither bytes nor text, after the chunks before it", async () => {
  const [first] = cutInto(openaiBody(3), [1 << 20], (b) => b);
  const { chunks, error } = await readAll(streamOfPieces([first.slice(0, 60), 42]).pipeThrough(sseDecoder("openai")));
  assert.ok(error instanceof TypeError);
  assert.equal(error.code, "CLEW_INVALID_ARGUMENT");
  assert.match(error.message, /a chunk must be a Uint8Array, an ArrayBuffer or a string/);
  assert.deepEqual(chunks, []);
  const decoded = await readAll(streamOfPieces([first, { not: "bytes" }]).pipeThrough(sseDecoder("openai")));
  assert.equal(decoded.chunks.filter((c) => c.type === "text").length, 3);
  assert.equal(decoded.error.code, "CLEW_INVALID_ARGUMENT");
});
