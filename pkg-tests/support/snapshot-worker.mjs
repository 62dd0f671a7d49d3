// One life of a scripted task, in its own module instance (a worker thread): run it from
// the start, or restore it from a snapshot's JSON text and resume. With `stopAt` (`{ what,
// nth }`), the `nth` waiting point of that kind (an ask, a tool, a persist, a retry's notice)
// takes a snapshot, posts it, and the worker waits there to be terminated: the process that
// held the task dies with it. A wait for a person (an ask, and the persist before it) is
// snapshotted the moment it begins, as a host that dies there would have stored it; any other
// point a moment later. The final message lists every point passed.
//
// The model is `model.request` playing `script` (Anthropic SSE bodies, or `{ status, body }`
// for an error), one SSE event per read, so that every life of the task reads its replies in
// the same pieces: how a network cuts a reply changes what is shown while it streams (a
// message shown partially, or a tag's first characters shown as an empty text), and the
// lives must be comparable exactly. A life goes on with the replies after the `served` the
// life before it had asked for, as a model server would.
import { parentPort, workerData } from "node:worker_threads";
import { Task } from "clew";

const { script, stopAt, snapshot } = workerData;
let served = workerData.served ?? 0;
const trail = [];
const asks = [];
let task;

const encoder = new TextEncoder();
// Replies served whose last read has not been asked for yet.
let streaming = 0;
function request() {
  const reply = script[served++];
  if (reply === undefined) return new Response(JSON.stringify({ error: { message: "script ended" } }), { status: 500 });
  if (typeof reply === "object") return new Response(reply.body, { status: reply.status, headers: { "content-type": "application/json" } });
  const events = reply.split(/(?<=\n\n)/).map((event) => encoder.encode(event));
  let at = 0;
  streaming++;
  return new ReadableStream({
    pull(controller) {
      if (at < events.length) return controller.enqueue(events[at++]);
      controller.close();
      streaming--;
    },
  });
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function point(what, { now = false, ask } = {}) {
  // NOTE: a second persist of a retry delay in a row (a wake-up that found nothing due yet,
  // which the machine's load decides) stores the same wait again: not a point of its own.
  if (what === "persist retryDelay" && trail.at(-1) === what) return;
  trail.push(what);
  if (!stopAt || what !== stopAt.what || trail.filter((w) => w === what).length !== stopAt.nth) return;
  // NOTE: a moment later, once any reply being served has been read to its end (a fixed
  // delay alone let a slow machine snapshot a reply in the middle of its text, which resumes
  // with a notice by design).
  if (!now) {
    await sleep(30);
    while (streaming > 0) await sleep(5);
    await sleep(5);
  }
  parentPort.postMessage({ snapshot: JSON.stringify(task.snapshot()), what, state: task.state, served, ask });
  await new Promise(() => {});
}

const file = (name) => ({
  name,
  description: `${name} a file`,
  parameters: [{ name: "path", required: true }, { name: "content" }],
  readOnly: name === "read_file",
  idempotent: name !== "read_file",
  execute: async ({ path, content }) => {
    await point(`tool ${name}`);
    if (name === "check_file") throw new Error(`${path} is broken`);
    return content === undefined ? `${name} ${path}: ok` : `${name} ${path}: wrote ${content}`;
  },
});

const options = {
  model: { format: "anthropic", id: "claude-test", request, info: { inputPrice: 3, outputPrice: 15 } },
  tools: [file("read_file"), file("write_file"), file("check_file")],
  autoApprove: { readOnly: true },
  retry: { baseDelayMs: 300 },
  say: (m) => { if (m.say === "error_retry") return point("say error_retry"); },
  ask: async (m) => {
    if (m.partial) return undefined;
    const ask = { ts: m.ts, ask: m.ask, text: m.text };
    asks.push(ask);
    await point(`ask ${m.ask}`, { now: true, ask });
    if (m.ask === "followup") return { response: "messageResponse", text: "the second one" };
    if (m.ask === "tool" && m.text.includes("\"c\"")) return { response: "noButtonClicked" };
    return { response: "yesButtonClicked" };
  },
  persist: (changes, { reason }) => point(`persist ${reason}`, { now: reason === "ask" }),
};

task = snapshot === undefined ? new Task(options) : Task.restore(JSON.parse(snapshot), options);
const outcome = await (snapshot === undefined ? task.start("tidy the files") : task.resume());
parentPort.postMessage({
  done: true,
  trail,
  asks,
  outcome: { status: outcome.status, result: outcome.result, code: outcome.error?.code },
  history: task.history,
  messages: task.messages,
  usage: task.usage,
});
