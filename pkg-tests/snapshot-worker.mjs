// One life of a scripted task, in its own module instance (a worker thread): run it from
// the start, or restore it from a snapshot's JSON text and resume. With `stopAt` (`{ what,
// nth }`), the `nth` waiting point of that kind (an ask, a tool, a persist, a retry's notice)
// takes a snapshot a moment later, posts it, and the worker waits there to be terminated:
// the process that held the task dies with it. The final message lists every point passed.
import { parentPort, workerData } from "node:worker_threads";
import { Task } from "clew";

const { url, stopAt, snapshot } = workerData;
const trail = [];
let task;

async function point(what) {
  trail.push(what);
  if (!stopAt || what !== stopAt.what || trail.filter((w) => w === what).length !== stopAt.nth) return;
  await new Promise((resolve) => setTimeout(resolve, 30));
  parentPort.postMessage({ snapshot: JSON.stringify(task.snapshot()), what, state: task.state });
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
  model: { format: "anthropic", id: "claude-test", apiKey: "k", baseUrl: url, info: { inputPrice: 3, outputPrice: 15 } },
  tools: [file("read_file"), file("write_file"), file("check_file")],
  autoApprove: { readOnly: true },
  retry: { baseDelayMs: 300 },
  say: (m) => { if (m.say === "error_retry") return point("say error_retry"); },
  ask: async (m) => {
    if (m.partial) return undefined;
    await point(`ask ${m.ask}`);
    if (m.ask === "followup") return { response: "messageResponse", text: "the second one" };
    if (m.ask === "tool" && m.text.includes("\"c\"")) return { response: "noButtonClicked" };
    return { response: "yesButtonClicked" };
  },
  persist: (changes, { reason }) => point(`persist ${reason}`),
};

task = snapshot === undefined ? new Task(options) : Task.restore(JSON.parse(snapshot), options);
const outcome = await (snapshot === undefined ? task.start("tidy the files") : task.resume());
parentPort.postMessage({
  done: true,
  trail,
  outcome: { status: outcome.status, result: outcome.result, code: outcome.error?.code },
  history: task.history,
  // NOTE: `partial: false` marks a message that was shown while it streamed, and an empty
  // text message is a tag's first characters shown before the tag was known: both depend on
  // how the network cut the reply, in any run.
  messages: task.messages
    .filter((m) => !(m.say === "text" && m.text === ""))
    .map(({ ts, partial, ...rest }) => (partial ? { ...rest, partial } : rest)),
  ts: task.messages.map((m) => m.ts),
  usage: task.usage,
});
