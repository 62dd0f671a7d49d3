// Records the tapes of support/task-tapes.mjs into tests/fixtures/cassettes/tasks/: each task
// run against the local model server with `cassette: { mode: "record" }`.
//   node support/make-task-tapes.mjs [NAME...]
import { writeFileSync } from "node:fs";
import { Task } from "clew/cassette";
import { startModelServer } from "./sse-server.mjs";
import { TASK_TAPES } from "./task-tapes.mjs";

const names = process.argv.slice(2).length ? process.argv.slice(2) : Object.keys(TASK_TAPES);
for (const name of names) {
  const scenario = TASK_TAPES[name];
  const server = await startModelServer(scenario.replies);
  try {
    const task = new Task({ ...scenario.options({ baseUrl: server.url, log: [], messages: [] }), cassette: { mode: "record" } });
    const outcome = await task.start(scenario.text);
    const tape = await task.cassette();
    writeFileSync(new URL(`../../tests/fixtures/cassettes/tasks/${name}.json`, import.meta.url), JSON.stringify(tape, null, 1) + "\n");
    console.log(name, outcome.status, tape.interactions.length, "interactions");
  } finally {
    await server.close();
  }
}
