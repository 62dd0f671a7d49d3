// The host's timers behind a task's timeouts (js/boundary/alarm.js): in Node the tasks of an
// instance share one timer, which keeps the process alive while a task waits on it and not
// after; where a runtime's timers cannot be unref'd, each task arms its own. Each case that
// changes the instance's timers runs in a child process of its own.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { Task } from "clew";

const hung = () => new ReadableStream({ pull: () => new Promise(() => {}) });
const done = "<attempt_completion><result>ok</result></attempt_completion>";

/** A task whose stream never sends, failing at `firstByteMs`: the time it took and its errors. */
async function timedOut(firstByteMs) {
  const errors = [];
  const started = Date.now();
  const task = new Task({
    model: { format: "anthropic", request: hung },
    timeouts: { firstByteMs },
    retry: { maxRetries: 0 },
    say: (m) => { if (m.say === "error" || m.say === "api_req_retried") errors.push(m.text); },
    ask: (m) => { if (m.ask === "api_req_failed") errors.push(m.text); return { response: "noButtonClicked" }; },
  });
  const outcome = await task.start("go");
  return { ms: Date.now() - started, outcome, errors };
}

/** Runs `body` (an ES module's text that imports clew) in a child Node: its exit, stdout and time. */
function child(body, timeout = 30_000) {
  const started = Date.now();
  const run = spawnSync(process.execPath, ["--input-type=module", "-e", body], { cwd: import.meta.dirname, encoding: "utf8", timeout });
  return { status: run.status, signal: run.signal, stdout: run.stdout, stderr: run.stderr, ms: Date.now() - started };
}

const HELPERS = `
import { Task } from "clew";
const hung = () => new ReadableStream({ pull: () => new Promise(() => {}) });
const reply = () => new ReadableStream({ start(c) { c.enqueue(new TextEncoder().encode(${JSON.stringify(JSON.stringify({ type: "text", text: done }) + "\n")})); c.close(); } });
const ask = () => ({ response: "noButtonClicked" });
const yes = (m) => (m.partial ? undefined : { response: "yesButtonClicked" });
`;

test("tasks waiting at once each time out at their own time on the shared timer", async () => {
  const [late, early] = await Promise.all([timedOut(400), timedOut(80)]);
  for (const [run, ms] of [[early, 80], [late, 400]]) {
    assert.equal(run.outcome.status, "ended", JSON.stringify(run.outcome));
    assert.ok(run.ms >= ms - 5, `timed out after ${run.ms} ms, not before ${ms}`);
    assert.ok(run.errors.some((e) => /first byte/.test(e)), JSON.stringify(run.errors));
  }
  assert.ok(early.ms < late.ms, `the earlier deadline came first (${early.ms} and ${late.ms} ms)`);
  // A task started after others ended, with an earlier deadline than the timer left armed.
  const again = await timedOut(50);
  assert.ok(again.ms < 1000 && again.errors.some((e) => /first byte/.test(e)), JSON.stringify(again));
});

test("a task that ended leaves no timer keeping Node alive; a task that waits keeps it alive until its timeout", () => {
  const ended = child(`${HELPERS}
const task = new Task({ model: { format: "chunks", request: reply }, ask: yes });
console.log((await task.start("go")).status);`);
  assert.equal(ended.status, 0, ended.stderr);
  assert.equal(ended.stdout.trim(), "completed");
  assert.ok(ended.ms < 15_000, `the process ended ${ended.ms} ms after it started (its timeouts are 120 s)`);
  // Nothing but the task's timer keeps this one alive: a stream that never sends holds no handle.
  const waiting = child(`${HELPERS}
const task = new Task({ model: { format: "anthropic", request: hung }, timeouts: { firstByteMs: 300 }, retry: { maxRetries: 0 }, ask });
console.log((await task.start("go")).status);`);
  assert.equal(waiting.status, 0, waiting.stderr);
  assert.equal(waiting.stdout.trim(), "ended", "the process lived until the task timed out");
  assert.equal(waiting.stderr, "", "no warning");
});

test("fake timers installed after a task ran get a timer of their own clock, though the one armed would fire first", () => {
  // The first task leaves the shared timer armed for its 120 s; the second waits 200 s.
  const run = child(`${HELPERS}
await new Task({ model: { format: "chunks", request: reply }, ask: yes }).start("go");
const made = [];
const now = Date.now;
globalThis.setTimeout = (f, ms) => { const t = { f, ms, ref() {}, unref() {} }; made.push(t); return t; };
globalThis.clearTimeout = () => {};
const task = new Task({ model: { format: "anthropic", request: hung }, timeouts: { firstByteMs: 200000 }, retry: { maxRetries: 0 }, ask });
const outcome = task.start("go");
await Promise.resolve();
console.log(made.length, made[0]?.ms > 199000);
Date.now = () => now() + 200001;
made[0].f();
console.log((await outcome).status);`);
  assert.equal(run.status, 0, run.stderr);
  assert.deepEqual(run.stdout.trim().split("\n"), ["1 true", "ended"]);
});

test("where timers cannot be unref'd, each task arms a timer of its own, and they time out and let the process end", () => {
  const run = child(`${HELPERS}
const real = setTimeout;
globalThis.setTimeout = (...args) => Number(real(...args));
const [a, b] = await Promise.all([200, 60].map((firstByteMs) => {
  const started = Date.now();
  const task = new Task({ model: { format: "anthropic", request: hung }, timeouts: { firstByteMs }, retry: { maxRetries: 0 }, ask });
  return task.start("go").then((o) => [o.status, Date.now() - started]);
}));
console.log(a[0], b[0], b[1] < a[1]);
console.log((await new Task({ model: { format: "chunks", request: reply }, ask: yes }).start("go")).status);`);
  assert.equal(run.status, 0, run.stderr);
  assert.deepEqual(run.stdout.trim().split("\n"), ["ended ended true", "completed"]);
  assert.ok(run.ms < 15_000, `the process ended ${run.ms} ms after it started`);
});

test("timers that can no longer be unref'd still wake the tasks already waiting, and the later ones", () => {
  const run = child(`${HELPERS}
const wait = (firstByteMs) => new Task({ model: { format: "anthropic", request: hung }, timeouts: { firstByteMs }, retry: { maxRetries: 0 }, ask }).start("go").then((o) => o.status);
const [first, second] = [wait(150), wait(300)];
await new Promise((resolve) => setTimeout(resolve, 10));
const real = setTimeout;
globalThis.setTimeout = (...args) => Number(real(...args));
const [third, fourth] = [wait(50), wait(100)];
console.log(await first, await second, await third, await fourth);`);
  assert.equal(run.status, 0, run.stderr);
  assert.equal(run.stdout.trim(), "ended ended ended ended");
  assert.ok(run.ms < 15_000, `the process ended ${run.ms} ms after it started`);
});
