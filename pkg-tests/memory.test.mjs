// Memory: many objects of each class created and used in one process leave the wasm memory
// flat, whether they are freed with free() or left to the garbage collector
// (FinalizationRegistry).
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { here } from "./support/package-dir.mjs";

// NOTE: this probe once hit V8's lazy-deopt crash on Node 20 (see v8-deopt-repro.mjs); the
// package now calls those exports through a Proxy, and a crash fails the test.
function sizes(mode, count, kind = "task") {
  const out = execFileSync(process.execPath, ["--expose-gc", join(here, "support", "memory-probe.mjs"), mode, String(count), kind], { cwd: here, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  return JSON.parse(out.trim().split("\n").at(-1));
}

test("100,000 tasks with free() leave wasm memory flat", () => {
  const [first, , , last] = sizes("free", 100000);
  assert.equal(last, first, `grew from ${first} to ${last} bytes`);
});

test("100,000 tasks dropped without free() are reclaimed by the garbage collector", () => {
  const [, second, , last] = sizes("gc", 100000);
  // Memory grows to the high-water mark of the garbage between collections, then stays there.
  assert.ok(last <= second * 1.1, `grew from ${second} to ${last} bytes`);
});

for (const [kind, name] of [["parser", "AssistantMessageParser"], ["decoder", "StreamDecoder"], ["assembler", "ToolCallAssembler"]]) {
  test(`100,000 ${name} create/use/free cycles leave wasm memory flat`, () => {
    const [first, , , last] = sizes("free", 100000, kind);
    assert.equal(last, first, `grew from ${first} to ${last} bytes`);
  });

  test(`100,000 ${name}s dropped without free() are reclaimed by the garbage collector`, () => {
    const [, second, , last] = sizes("gc", 100000, kind);
    assert.ok(last <= second * 1.1, `grew from ${second} to ${last} bytes`);
  });
}
