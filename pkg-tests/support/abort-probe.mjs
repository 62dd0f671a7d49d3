// Run by abort.test.mjs with --expose-gc: the JS heap kept by tasks aborted mid-stream whose
// bodies ignore the abort signal and never end. Prints {perTask} (bytes) as its last line.
import { Task } from "clew";

const enc = new TextEncoder();

async function abortedTask() {
  const task = new Task({
    model: {
      format: "chunks",
      request: () => new ReadableStream({
        start(c) { c.enqueue(enc.encode(JSON.stringify({ type: "text", text: "Thinking about it" }) + "\n")); },
        pull() { return new Promise(() => {}); },
      }, { highWaterMark: 0 }),
    },
    say: (m) => { if (m.say === "text") queueMicrotask(() => task.abort("enough")); },
  });
  await task.start("go");
  task.free();
}

async function heapAfter(n) {
  for (let i = 0; i < n; i++) await abortedTask();
  await new Promise((r) => setTimeout(r, 50));
  for (let i = 0; i < 4; i++) { globalThis.gc(); await new Promise((r) => setTimeout(r, 10)); }
  return process.memoryUsage().heapUsed;
}

const base = await heapAfter(100);
const after = await heapAfter(1000);
console.log(JSON.stringify({ base, after, perTask: Math.max(0, Math.round((after - base) / 1000)) }));
