// clew/cassette in vitest (issue 31): a spec file that records a task and replays it, and
// replays the checked-in v1 tape, run by vitest (which needs Node 22.12 or later: it runs on
// the Node 22 from the npm registry that the package tests use).
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { here, repoRoot } from "./support/package-dir.mjs";

const SPEC = `
import { test, expect } from "vitest";
import { readFileSync } from "node:fs";
import { Task } from "clew/cassette";
import { memoryModel, taskOptions } from ${JSON.stringify(join(here, "support", "cassette-task.mjs"))};

test("a recorded task replays with the same transcript", async () => {
  const options = taskOptions("gemini");
  const recorder = new Task({ ...options, model: { ...options.model, request: memoryModel("gemini") }, cassette: { mode: "record" } });
  expect(await recorder.start("Summarise the notes")).toEqual({ status: "completed", result: "The summary is written." });
  const tape = await recorder.cassette();
  const replayed = new Task({ ...taskOptions("gemini"), cassette: { mode: "replay", data: JSON.stringify(tape) } });
  expect(await replayed.start("Summarise the notes")).toEqual({ status: "completed", result: "The summary is written." });
  expect(JSON.stringify(replayed.messages)).toBe(JSON.stringify(recorder.messages));
});

test("the checked-in v1 tape replays to its recorded end", async () => {
  const fixtures = ${JSON.stringify(join(repoRoot, "tests", "fixtures", "cassettes"))};
  const tape = readFileSync(fixtures + "/v1-anthropic.json", "utf8");
  const expected = JSON.parse(readFileSync(fixtures + "/v1-anthropic.end.json", "utf8"));
  const task = new Task({ ...taskOptions("anthropic"), cassette: { mode: "replay", data: tape } });
  expect(await task.start("Summarise the notes")).toEqual(expected.outcome);
  expect(JSON.stringify(task.history)).toBe(JSON.stringify(expected.history));
});
`;

test("vitest runs a spec that records and replays tapes", () => {
  const dir = mkdtempSync(join(here, ".tmp-vitest-"));
  try {
    writeFileSync(join(dir, "replay.test.mjs"), SPEC);
    const node = join(here, "node_modules", "node22", "bin", "node");
    const vitest = join(here, "node_modules", "vitest", "vitest.mjs");
    let output;
    try {
      output = execFileSync(node, [vitest, "run", "--root", dir, "--reporter", "verbose"], {
        cwd: here, encoding: "utf8", env: { ...process.env, CI: "1", NO_COLOR: "1" }, timeout: 120000,
      });
    } catch (error) {
      assert.fail(`vitest failed:\n${error.stdout}\n${error.stderr}`);
    }
    assert.match(output, /2 passed/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
