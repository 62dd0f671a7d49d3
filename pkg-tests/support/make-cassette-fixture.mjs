// Writes tests/fixtures/cassettes/v<version>-anthropic.json (a tape of the format version this
// build writes) and the end its replay must reach (.end.json). Run once when a tape format is
// released; the files then never change: every later build must replay them
// (pkg-tests/cassette.test.mjs replays every one).
import { writeFileSync } from "node:fs";
import { Task } from "clew/cassette";
import { memoryModel, taskOptions } from "./cassette-task.mjs";

const options = taskOptions("anthropic");
const recorder = new Task({ ...options, model: { ...options.model, request: memoryModel("anthropic") }, cassette: { mode: "record" } });
await recorder.start("Summarise the notes");
const tape = await recorder.cassette();
const replayed = new Task({ ...taskOptions("anthropic"), cassette: { mode: "replay", data: tape } });
const outcome = await replayed.start("Summarise the notes");
const dir = new URL("../../tests/fixtures/cassettes/", import.meta.url);
writeFileSync(new URL(`v${tape.version}-anthropic.json`, dir), JSON.stringify(tape, null, 1) + "\n");
writeFileSync(new URL(`v${tape.version}-anthropic.end.json`, dir), JSON.stringify({ outcome, messages: replayed.messages, history: replayed.history }) + "\n");
console.log("wrote", tape.interactions.length, "interactions;", outcome.status);
