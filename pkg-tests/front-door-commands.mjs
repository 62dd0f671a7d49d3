// The front door (issue 43): the README's first commands, run as a newcomer runs them.
// `scripts/demo --cli "<task>"` runs the offline task to an accepted completion, and
// `scripts/demo --port N` serves a playground that loads in Chromium with no page error, runs
// the offline task, approves its edits and reaches the completion. scripts/demo runs
// scripts/setup first (about a second once installed) and would rebuild pkg/ when its sources
// are newer: these tests never build; they fail instead, saying so.
// Run by scripts/test's front-door step (`node --test front-door-*.mjs`), after the package step.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { finishTheTask, openPlayground } from "./support/playground.mjs";
import { repoRoot } from "./support/package-dir.mjs";

const DEMO = join(repoRoot, "scripts", "demo");

/**
 * Fails unless scripts/demo would use pkg/ as it is: asks the question scripts/demo asks
 * (its `find <sources> -newer pkg/<marker>`), read from the script itself.
 */
function assertNoBuild() {
  const find = /find ((?:[\w.-]+ )+)-newer (pkg\/[\w.-]+)/.exec(readFileSync(DEMO, "utf8"));
  assert.ok(find, "scripts/demo's check of pkg/ (find <sources> -newer pkg/<marker>) is where this test reads it");
  const marker = find[2];
  assert.ok(existsSync(join(repoRoot, marker)), `${marker} exists: pkg/ is built (scripts/build), and the front-door step does not build it`);
  const sources = find[1].trim().split(/\s+/).filter((path) => existsSync(join(repoRoot, path)));
  const newer = execFileSync("find", [...sources, "-newer", marker], { cwd: repoRoot, encoding: "utf8" }).trim();
  assert.equal(newer, "", `scripts/demo would rebuild pkg/ (these sources are newer than ${marker}), and the front-door step never builds: run scripts/build first`);
}

/** Starts scripts/demo with `args` in a process group of its own, output collected. */
function startDemo(args) {
  const child = spawn(DEMO, args, { cwd: repoRoot, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  child.output = { stdout: "", stderr: "" };
  child.stdout.on("data", (data) => { child.output.stdout += data; });
  child.stderr.on("data", (data) => { child.output.stderr += data; });
  child.ended = new Promise((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
  return child;
}

/** Ends the demo's process group (the server, or a run that overstays), SIGKILL after 5 s. */
async function stopDemo(child) {
  const signal = (name) => { try { process.kill(-child.pid, name); } catch { /* already gone */ } };
  signal("SIGTERM");
  const timer = setTimeout(() => signal("SIGKILL"), 5000);
  await child.ended;
  clearTimeout(timer);
}

/** Resolves when `promise` does, rejects after `ms` with `what`. */
function within(ms, what, promise) {
  let timer;
  return Promise.race([promise, new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(`${what}: not within ${ms / 1000} s`)), ms); })])
    .finally(() => clearTimeout(timer));
}

/** A port nothing listens on now. */
async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

test("scripts/demo --cli \"<a task>\" runs the offline task to an accepted completion", async () => {
  assertNoBuild();
  const child = startDemo(["--cli", "Fix the typos in the README."]);
  try {
    const { code } = await within(120_000, "scripts/demo --cli", child.ended);
    const { stdout, stderr } = child.output;
    assert.equal(code, 0, `exit status\n${stdout}\n${stderr}`);
    assert.match(stdout, /^say completion_result: \S.*$/m, "the result is said");
    assert.match(stdout, /^outcome completed: \S.*$/m, "the completion is accepted");
    assert.doesNotMatch(stderr, /\[build\]/, "no build");
  } finally {
    await stopDemo(child);
  }
});

test("scripts/demo --port N serves the playground, which runs the offline task to its completion in Chromium", async () => {
  assertNoBuild();
  const port = await freePort();
  const child = startDemo(["--port", String(port)]);
  try {
    const started = new Promise((resolve, reject) => {
      child.stdout.on("data", () => {
        const url = /clew playground: (http:\/\/\S+)/.exec(child.output.stdout)?.[1];
        if (url) resolve(url);
      });
      child.ended.then(({ code, signal }) => reject(new Error(`scripts/demo ended (${code ?? signal}) before serving:\n${child.output.stdout}\n${child.output.stderr}`)));
    });
    const url = await within(120_000, "scripts/demo --port: the URL it prints", started);
    assert.equal(url, `http://127.0.0.1:${port}/`);
    const browser = await openPlayground(url);
    try {
      const { page, errors } = browser;
      await page.click("#start");
      await finishTheTask(page); // approves the README edit and the notes file, answers, accepts
      assert.deepEqual(errors, [], "no page error");
    } finally {
      await browser.close();
    }
    assert.doesNotMatch(child.output.stderr, /\[build\]/, "no build");
  } finally {
    await stopDemo(child);
  }
});
