// Memory: many tasks created and run in one process leave the wasm memory flat, whether they
// are freed with free() or left to the garbage collector (FinalizationRegistry).
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { here } from "./package-dir.mjs";

function sizes(mode, count) {
  const out = execFileSync(process.execPath, ["--expose-gc", join(here, "memory-probe.mjs"), mode, String(count)], { cwd: here, encoding: "utf8" });
  return JSON.parse(out.trim().split("\n").at(-1));
}

test("10,000 tasks with free() leave wasm memory flat", () => {
  const [first, , , last] = sizes("free", 10000);
  assert.equal(last, first, `grew from ${first} to ${last} bytes`);
});

test("10,000 tasks dropped without free() are reclaimed by the garbage collector", () => {
  const [, second, , last] = sizes("gc", 10000);
  // Memory grows to the high-water mark of the garbage between collections, then stays there.
  assert.ok(last <= second * 1.1, `grew from ${second} to ${last} bytes`);
});
