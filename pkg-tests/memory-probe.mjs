// Run by memory.test.mjs under --expose-gc: creates and runs many tasks, with free() or left
// to the garbage collector, and prints the wasm memory's size along the way as JSON.
import { join } from "node:path";
import { Task } from "clew";
import { packageDir } from "./package-dir.mjs";

// NOTE: the bindings' init returns the instance's exports (already initialised by the entry),
// the only way to read the size of the module's linear memory from outside.
const { initSync } = await import(join(packageDir, "clew.js"));
const memory = initSync({ module: new Uint8Array() }).memory;
const enc = new TextEncoder();
const [mode, count] = [process.argv[2], Number(process.argv[3])];

async function one() {
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
