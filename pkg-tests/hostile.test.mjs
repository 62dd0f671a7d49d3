// A seeded random fuzz of every export of the installed package with hostile arguments:
// wrong types, proxies whose getters throw, revoked proxies, freed objects, detached
// buffers, lone surrogates, deep nesting, huge, negative and NaN numbers, `__proto__` keys,
// thousands of tool names, long strings. Every call must return or throw an error with a
// `code` (or reject with one); after every batch a known-good parse must still answer
// correctly. A trap (RuntimeError from the wasm) fails the test: it would leave the
// instance broken for every object of the page.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as clew from "clew";

const SEED = Number(process.env.CLEW_FUZZ_SEED ?? 0x5eed);
const CALLS = Number(process.env.CLEW_FUZZ_CALLS ?? 30000);

function rng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const random = rng(SEED);
const pick = (list) => list[Math.floor(random() * list.length)];
const int = (n) => Math.floor(random() * n);

function throwing() {
  return new Proxy([], { get() { throw new Error("getter boom"); }, has() { throw new Error("has boom"); }, ownKeys() { throw new Error("keys boom"); } });
}

function revoked() {
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  return proxy;
}

function detached() {
  const buffer = new ArrayBuffer(16);
  structuredClone(buffer, { transfer: [buffer] });
  return buffer;
}

function deep(n) {
  return "[".repeat(n) + "]".repeat(n);
}

function hostileString() {
  return pick([
    () => "",
    () => "\ud83d",
    () => "a\udc00b\ud800",
    () => "<read_file><path>\ud83d</path>",
    () => "<".repeat(int(5000)),
    () => "<write_to_file><content>" + "x".repeat(int(100000)),
    () => String.fromCharCode(...Array.from({ length: 64 }, () => int(0x10000))),
    () => deep(int(3000)),
    () => `{"__proto__": {"polluted": 1}, "a": ${pick(["1e400", "-0", "NaN", "9007199254740993", "\"\\ud83d\""])}}`,
  ])();
}

function hostileValue() {
  return pick([
    () => undefined, () => null, () => 0, () => -1, () => 2 ** 32, () => 2 ** 53 + 2, () => NaN, () => Infinity,
    () => 1n, () => Symbol("s"), () => true, () => () => 1, () => ({}), () => [], () => ({ length: -1 }),
    () => ({ length: 2 ** 31 }), () => new Uint16Array(3), () => new Uint8Array(int(64)).map(() => int(256)),
    () => detached(), () => throwing(), () => revoked(), () => new Date(), () => hostileString(),
    () => JSON.parse(hostileJson()),
  ])();
}

function hostileJson() {
  return pick([
    () => '{"inputTokens": 1e400, "outputTokens": -5, "totalCost": -1}',
    () => '{"inputPrice": -3, "outputPrice": 1e308, "contextWindow": 9007199254740993}',
    () => `{"tools": [${Array.from({ length: 3000 }, (_, i) => `"t${i}"`).join(",")}], "params": ["p"]}`,
    () => '{"model": {"id": "m", "headers": {"x": "a\\r\\nb"}}, "messages": [{"role": "user", "content": "\\ud83d"}]}',
    () => '{"tool_call": {"call_id": "c", "function": {"id": "c", "name": "n", "arguments": "{\\"__proto__\\": 1"}}}',
    () => "[1]",
    () => '"text"',
  ])();
}

const VALID_CODE = /^CLEW_[A-Z0-9_]+$/;

function checkError(error, what) {
  if (error instanceof WebAssembly.RuntimeError) assert.fail(`${what}: the wasm trapped: ${error.message}`);
  const message = String(error?.message ?? error);
  assert.doesNotMatch(message, /unreachable|memory access out of bounds|null pointer passed to rust|recursive use of an object/, what);
  assert.match(String(error?.code), VALID_CODE, `${what}: ${error?.constructor?.name}: ${message}`);
}

async function call(what, f) {
  try {
    const result = f();
    if (result && typeof result.then === "function") await result.catch((e) => checkError(e, what));
  } catch (error) {
    checkError(error, what);
  }
}

function sanity() {
  const blocks = clew.parseAssistantMessage("Hi <read_file><path>a.md</path></read_file>");
  assert.deepEqual(blocks.map((b) => b.type), ["text", "tool_use"]);
  assert.equal(blocks[1].params.path, "a.md");
}

test("every export survives hostile arguments, and the instance keeps answering", async () => {
  const parser = new clew.AssistantMessageParser();
  const freed = new clew.AssistantMessageParser();
  freed.free();
  const decoder = new clew.StreamDecoder("openai");
  const assembler = new clew.ToolCallAssembler();
  const freedDecoder = new clew.StreamDecoder("anthropic");
  freedDecoder.free();
  const calls = [
    () => clew.parseAssistantMessage(hostileValue(), pick([undefined, hostileValue(), JSON.parse(hostileJson())])),
    () => new clew.AssistantMessageParser(pick([undefined, hostileValue(), JSON.parse(hostileJson())])),
    () => parser.push(hostileValue()),
    () => parser.push(hostileString()),
    () => parser.block(hostileValue()),
    () => freed[pick(["push", "block", "blocks", "text", "finish"])](hostileValue()),
    () => freed.length,
    () => freedDecoder.push(new Uint8Array(4)),
    () => new clew.StreamDecoder(hostileValue()),
    () => decoder.push(hostileValue()),
    () => new clew.StreamDecoder(pick(["openai", "anthropic", "chunks"])).push(new TextEncoder().encode(hostileString())),
    () => clew.sseDecoder(hostileValue()),
    () => clew.readModelStream(hostileValue(), pick(["openai", hostileValue()])),
    () => clew.buildRequest(pick(["openai", "anthropic", hostileValue()]), pick([hostileValue(), JSON.parse(hostileJson())])),
    () => clew.modelCost(pick([hostileValue(), JSON.parse(hostileJson())]), pick([hostileValue(), JSON.parse(hostileJson())])),
    () => assembler.push(pick([hostileValue(), JSON.parse(hostileJson())])),
    () => assembler.call(hostileValue()),
    () => new clew.Task(pick([hostileValue(), { model: hostileValue() }, { model: { id: "m" }, tools: hostileValue() }])),
    () => new clew.Task({ model: { id: "m" } }).abort(hostileValue()),
    () => new clew.Task({ model: { id: "m" } }).condense(pick([hostileValue(), { instructions: hostileValue() }])),
    () => new clew.Task({ model: { id: "m" }, contextManagement: pick([hostileValue(), { strategy: hostileValue(), maxContextTokens: hostileValue() }, { summarize: hostileValue() }]) }),
    () => new clew.Task({ model: { id: "m" }, mcpServers: pick([hostileValue(), [hostileValue()], [{ name: hostileValue(), client: hostileValue() }], [{ name: "s", client: throwing() }], [{ name: "s", client: { listTools() {}, callTool() {} }, autoApprove: hostileValue(), timeoutMs: hostileValue() }]]) }),
  ];
  for (let i = 0; i < CALLS; i++) {
    const index = int(calls.length);
    await call(`call #${i} (kind ${index})`, calls[index]);
    if (i % 200 === 0) sanity();
  }
  sanity();
  // A parser that saw all that still parses correctly.
  const fresh = new clew.AssistantMessageParser();
  fresh.push("ok <read_file><path>b</path></read_file>");
  assert.equal(fresh.block(1).params.path, "b");
});

/** Values a user callback may return or a model stream may hold, each made fresh. */
const CALLBACK_RESULTS = [
  () => undefined, () => null, () => 0, () => NaN, () => 1n, () => Symbol("s"), () => true, () => () => 1, () => ({}), () => [],
  () => ({ text: 5 }), () => ({ text: "ok", images: 7 }), () => ({ text: "ok", images: [5, null, {}] }),
  () => ({ response: "bogus" }), () => ({ response: 5 }), () => ({ response: "messageResponse", text: 5, images: "x" }),
  () => ({ cancel: "yes", contextModification: 5 }), () => throwing(), () => revoked(), () => Promise.reject(new Error("rejected")),
  () => Promise.reject(7), () => Promise.resolve(Symbol("x")), () => "\ud83d", () => "x".repeat(1 << 20), () => new Uint8Array(3),
  () => new Response("garbage"), () => new Response("{}", { status: 500 }), () => { const r = new Response("x"); r.body.getReader(); return r; },
  () => new ReadableStream({ start(c) { c.enqueue("not json"); c.close(); } }),
  () => new ReadableStream({ start(c) { c.enqueue(5); c.close(); } }),
  () => new ReadableStream({ start(c) { c.error(7); } }), () => new ReadableStream({ pull() { throw throwing(); } }),
  () => ({ then(resolve) { resolve(5); } }), () => ({ then() { throw new Error("then boom"); } }),
  () => { throw new Error("sync throw"); }, () => { throw throwing(); },
];

test("tasks survive hostile callbacks: every result of request, execute, ask, say, hooks, checkpoints and MCP clients", { timeout: 120_000 }, async () => {
  const enc = new TextEncoder();
  const reply = (text) => new ReadableStream({ start(c) { c.enqueue(enc.encode(JSON.stringify({ type: "text", text }) + "\n")); c.close(); } });
  const statuses = new Set(["completed", "ended", "aborted", "failed"]);
  // Where the hostile value goes: the model request, the tool, or the asks, says, hooks and checkpoints.
  for (const role of ["request", "execute", "ui", "mcp"]) {
    for (const [i, hostile] of CALLBACK_RESULTS.entries()) {
      let requests = 0;
      const task = new clew.Task({
        model: {
          format: "chunks",
          request: () => {
            requests++;
            if (role === "request") return hostile();
            if (role === "mcp" && requests < 3) return reply('<use_mcp_tool><server_name>s</server_name><tool_name>t</tool_name><arguments>{}</arguments></use_mcp_tool>');
            return requests < 3 ? reply("Go <read_file><path>a</path></read_file>") : reply("<attempt_completion><result>r</result></attempt_completion>");
          },
        },
        tools: [{ name: "read_file", parameters: [{ name: "path", required: true }], execute: () => (role === "execute" ? hostile() : "ok") }],
        // NOTE: an MCP client whose every answer is the hostile value (its listing, for every other
        // value: the others list one tool, whose call gets it).
        mcpServers: role === "mcp" ? [{
          name: "s",
          timeoutMs: 2000,
          client: {
            listTools: () => (i % 2 ? hostile() : { tools: [{ name: "t", inputSchema: { type: "object" } }] }),
            callTool: () => hostile(),
            listResources: () => hostile(),
            readResource: () => hostile(),
          },
        }] : undefined,
        ask: (m) => (role === "ui" ? hostile() : m.partial ? undefined : { response: m.ask === "api_req_failed" ? "noButtonClicked" : "yesButtonClicked" }),
        say: () => (role === "ui" ? hostile() : undefined),
        hooks: role === "ui" ? { taskStart: hostile, preToolUse: hostile, postToolUse: hostile, taskComplete: hostile } : {},
        checkpoint: role === "ui" ? { save: hostile } : {},
        retry: { maxRetries: 1, baseDelayMs: 1, maxDelayMs: 1 },
        timeouts: { firstByteMs: 2000, idleMs: 2000 },
      });
      const what = `${role} #${i}`;
      const timer = setTimeout(() => task.abort("took too long"), 10_000);
      const outcome = await task.start("go");
      clearTimeout(timer);
      assert.ok(statuses.has(outcome.status), `${what}: ${JSON.stringify(outcome)}`);
      assert.notEqual(outcome.error?.message, "took too long", `${what}: the task hung`);
      if (outcome.error) checkError(outcome.error, what);
      assert.equal(task.state, "finished", what);
      task.free();
      sanity();
    }
  }
});
