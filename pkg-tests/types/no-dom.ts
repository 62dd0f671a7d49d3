// Compiled by types.test.mjs under `lib: ["ES2022"]` only (a Node or Workers project with
// no DOM types): the declarations must not need them.
import { Task, ready, parseAssistantMessage, StreamDecoder, ClewStreamError, type TaskOutcome, type Chunk } from "clew";

declare const body: ReadableStream<Uint8Array>;

const task = new Task({
  model: { format: "chunks", request: (_req, { signal }) => { void signal; return body; } },
  tools: [{ name: "lookup", parameters: [{ name: "term", required: true }], execute: ({ term }) => `found ${term}` }],
  ask: (message) => (message.partial ? undefined : { response: "yesButtonClicked" }),
});

async function run(): Promise<TaskOutcome> {
  await ready;
  const chunks: Chunk[] = new StreamDecoder("openai").push(new Uint8Array());
  void chunks; void parseAssistantMessage("x");
  void ((e: unknown) => e instanceof ClewStreamError);
  return task.start("go");
}
void run;
