// The prelude of the README examples' harness (front-door-examples.mjs): loaded before each
// example, in the example's own Node process, it provides what the examples leave to their
// reader, as globals, and nothing that changes the package:
//
//   apiKey, authorization   strings (the examples' key and an MCP server's header)
//   fetch                   offline (support/front-door-model.mjs): api.anthropic.com answers
//                           from the scripted model; *.example.com is the MCP test server
//   model                   Anthropic settings (with apiKey) that reach the model through fetch
//   files                   a Map of the workspace: README.md with a typo
//   tools                   one read-only read_file tool over `files`
//   say, render             keep what they are given
//   ask, askTheUser         approve every tool, accept every result, answer a question
//   save(value) / load()    an in-memory store (also save(key, value) / load(key))
//   storage                 an in-memory key-value store shaped like a Durable Object's:
//                           get(key | keys), put(key, value | entries), delete(key | keys),
//                           list({ prefix }); values are copied (stored as JSON)
//   textChunks              a model reply with a tool call, as an async iterable of pieces
//   tape                    a tape (clew/cassette) of a one-round task, recorded here
//   Task                    clew's Task, for examples that continue an earlier one
//
// It also records the outcome of every task an example starts or resumes (`Task` start and
// resume, clew's and clew/cassette's, are wrapped to note the promise they return, and call
// through unchanged); `finish()` waits for them and throws unless every one is `completed`.
import { Task } from "clew";
import { Task as TapeTask } from "clew/cassette";
import { closeOffline, offlineFetch, scriptedModel } from "./front-door-model.mjs";

const outcomes = [];
for (const Class of [Task, TapeTask]) {
  for (const name of ["start", "resume"]) {
    const method = Object.hasOwn(Class.prototype, name) ? Class.prototype[name] : undefined;
    if (typeof method !== "function") continue;
    Class.prototype[name] = function (...args) {
      const outcome = method.apply(this, args);
      outcomes.push({ call: `${Class === Task ? "Task" : "cassette Task"}.${name}`, outcome });
      return outcome;
    };
  }
}

const answer = (message) => message.ask === "followup"
  ? { response: "messageResponse", text: "Go on." }
  : { response: "yesButtonClicked" };
const storage = new Map();
const said = [];

globalThis.fetch = offlineFetch(globalThis.fetch);
globalThis.apiKey = "sk-ant-front-door";
globalThis.authorization = "Bearer front-door";
globalThis.model = { format: "anthropic", id: "claude-sonnet-4-5", apiKey: globalThis.apiKey,
  info: { contextWindow: 200000, inputPrice: 3, outputPrice: 15 } };
globalThis.files = new Map([["README.md", "# Helo wrold\n"]]);
globalThis.tools = [{
  name: "read_file", description: "Read a file of the workspace", readOnly: true,
  parameters: [{ name: "path", description: "Path of the file", required: true }],
  execute: async ({ path }) => globalThis.files.get(path) ?? `no file at ${path}`,
}];
globalThis.say = (message) => { said.push(message); };
globalThis.render = (...args) => { said.push(args); };
globalThis.ask = async (message) => message.partial ? undefined : answer(message);
globalThis.askTheUser = async (message) => answer(message);
globalThis.save = async (...args) => {
  const [key, value] = args.length > 1 ? args : ["task", args[0]];
  storage.set(key, JSON.stringify(value));
};
globalThis.load = async (key = "task") => storage.has(key) ? JSON.parse(storage.get(key)) : undefined;
const copy = (value) => value === undefined ? undefined : JSON.parse(JSON.stringify(value));
const kv = new Map();
globalThis.storage = {
  async get(key) { return Array.isArray(key) ? new Map(key.filter((k) => kv.has(k)).map((k) => [k, copy(kv.get(k))])) : copy(kv.get(key)); },
  async put(key, value) {
    const entries = typeof key === "object" && key !== null ? Object.entries(key) : [[key, value]];
    for (const [k, v] of entries) kv.set(k, copy(v));
  },
  async delete(key) { return Array.isArray(key) ? key.filter((k) => kv.delete(k)).length : kv.delete(key); },
  async list({ prefix = "" } = {}) { return new Map([...kv].filter(([k]) => k.startsWith(prefix)).sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, v]) => [k, copy(v)])); },
};
globalThis.textChunks = {
  async *[Symbol.asyncIterator]() {
    yield* "Reading it.\n<read_file><path>README.md</path></read_file>".match(/[\s\S]{1,7}/g);
  },
};
globalThis.Task = Task;
globalThis.tape = await recordTape();

/** A tape of a one-round task (the script completes at once), recorded with the scripted model. */
async function recordTape() {
  const task = new TapeTask({ model: scriptedModel(), ask: async (m) => m.partial ? undefined : answer(m), cassette: { mode: "record" } });
  await task.start("Say hello");
  const data = await task.cassette();
  outcomes.length = 0; // the harness's own task is not the example's
  return data;
}

/**
 * Waits for every task the example started (at most `timeoutMs`) and throws unless each ended
 * `completed`. Resolves to the calls and their statuses.
 */
export async function finish(timeoutMs = 30_000) {
  let timer;
  const late = new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(`a task did not end within ${timeoutMs} ms`)), timeoutMs); });
  try {
    const ended = await Promise.race([Promise.all(outcomes.map(async ({ call, outcome }) => ({ call, outcome: await outcome }))), late]);
    for (const { call, outcome } of ended) {
      if (outcome?.status !== "completed") {
        throw new Error(`${call} ended ${outcome?.status}: ${outcome?.error?.code ?? ""} ${outcome?.error?.message ?? JSON.stringify(outcome)}`);
      }
    }
    return ended.map(({ call, outcome }) => `${call}: ${outcome.status}`);
  } finally {
    clearTimeout(timer);
    await closeOffline();
  }
}
