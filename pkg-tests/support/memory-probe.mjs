// Run by memory.test.mjs under --expose-gc: creates and uses many objects of one class, with
// free() or left to the garbage collector, and prints the wasm memory's size along the way as
// JSON. Arguments: free|gc, the count, and the class (task, parser, decoder, assembler).
import { join } from "node:path";
import { Task, AssistantMessageParser, StreamDecoder, ToolCallAssembler } from "clew";
import { packageDir } from "./package-dir.mjs";

// NOTE: the bindings' init returns the instance's exports (already initialised by the entry),
// the only way to read the size of the module's linear memory from outside.
const { initSync } = await import(join(packageDir, "clew.js"));
const memory = initSync({ module: new Uint8Array() }).memory;
const enc = new TextEncoder();
const [mode, count, kind = "task"] = [process.argv[2], Number(process.argv[3]), process.argv[4]];

const SSE = enc.encode('data: {"choices":[{"index":0,"delta":{"content":"Hi <read_file><path>a</path></read_file>"}}]}\n\ndata: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n');
const uses = {
  parser() {
    const parser = new AssistantMessageParser();
    parser.push("Reading <read_file><path>a");
    parser.push(".md</path></read_file> done");
    if (parser.block(1).params.path !== "a.md") throw new Error("parse");
    return parser;
  },
  decoder() {
    const decoder = new StreamDecoder("openai");
    const chunks = decoder.push(SSE).concat(decoder.finish());
    if (chunks.length !== 2) throw new Error("decode");
    return decoder;
  },
  assembler() {
    const assembler = new ToolCallAssembler();
    assembler.push({ tool_call: { call_id: "c", function: { id: "c", name: "read_file", arguments: '{"path": "a' } } });
    assembler.push({ tool_call: { call_id: "c", function: { id: "c", arguments: '.md"}' } } });
    if (assembler.call(0).params.path !== "a.md") throw new Error("assemble");
    return assembler;
  },
};

async function one() {
  if (kind !== "task") {
    const object = uses[kind]();
    if (mode === "free") object.free();
    return;
  }
  let n = 0;
  const replies = [["Reading.\n<read_file><path>a.md</path></read_file>"], ["<attempt_completion><result>done</result></attempt_completion>"]];
  const task = new Task({
    model: { format: "chunks", request: () => new ReadableStream({ start(c) {
      for (const text of replies[n++]) c.enqueue(enc.encode(JSON.stringify({ type: "text", text }) + "\n"));
      c.close();
    } }) },
    tools: [{ name: "read_file", readOnly: true, parameters: [{ name: "path", required: true }], execute: ({ path }) => "content of " + path }],
    autoApprove: { readOnly: true },
    ask: () => ({ response: "yesButtonClicked" }),
    say: () => {},
  });
  const outcome = await task.start("go");
  if (outcome.status !== "completed") throw new Error(JSON.stringify(outcome));
  if (mode === "free") task.free();
}

async function settle() {
  for (let i = 0; i < 3; i++) {
    globalThis.gc();
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const sizes = [];
for (let part = 0; part < 4; part++) {
  for (let i = 0; i < count / 4; i++) await one();
  await settle();
  sizes.push(memory.buffer.byteLength);
}
console.log(JSON.stringify(sizes));
