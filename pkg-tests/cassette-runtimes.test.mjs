// clew/cassette beyond Node (issue 31): a tape recorded in Node replays in Chromium (the
// package's browser entry, by an import map) and in workerd (a Worker bundled as wrangler
// bundles it, with the tape inlined), to the same outcome, transcript and history as in Node;
// and a Worker records a tape of its own that replays there to what it recorded.
import { test, before } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { build } from "esbuild";
import { Miniflare } from "miniflare";
import { Task } from "clew/cassette";
import { serve } from "./support/static-server.mjs";
import { here, packageDir, wranglerOptions, entryFor } from "./support/package-dir.mjs";
import { memoryModel, taskOptions } from "./support/cassette-task.mjs";
import { sameRedacted } from "./support/same-redacted.mjs";

const FORMAT = "openai-responses";
let tape;
let expected;

before(async () => {
  const options = taskOptions(FORMAT);
  const recorder = new Task({ ...options, model: { ...options.model, request: memoryModel(FORMAT) }, cassette: { mode: "record" } });
  await recorder.start("Summarise the notes");
  tape = await recorder.cassette();
  const replayed = new Task({ ...taskOptions(FORMAT), cassette: { mode: "replay", data: tape } });
  const outcome = await replayed.start("Summarise the notes");
  expected = { outcome, messages: replayed.messages, history: replayed.history };
  assert.equal(outcome.status, "completed");
});

test("a tape recorded in Node replays in Chromium to the same transcript and history", async () => {
  const page = mkdtempSync(join(here, ".tmp-cassette-page-"));
  writeFileSync(join(page, "index.html"), `<!doctype html><meta charset="utf-8">
    <script type="importmap">{ "imports": { "clew": "/pkg/browser.js", "clew/cassette": "/pkg/cassette/index.js" } }</script>
    <body>replay</body>`);
  const server = await serve({ "/pkg/": packageDir, "/support/": join(here, "support"), "/": page });
  const profile = mkdtempSync(join(tmpdir(), "clew-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium", headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking"],
  });
  try {
    const tab = await context.newPage();
    const errors = [];
    tab.on("pageerror", (error) => errors.push(error.message));
    await tab.goto(server.url);
    const got = await tab.evaluate(async ({ tape, format }) => {
      const { Task } = await import("clew/cassette");
      const { taskOptions } = await import("/support/cassette-task.mjs");
      const task = new Task({ ...taskOptions(format), cassette: { mode: "replay", data: tape } });
      const outcome = await task.start("Summarise the notes");
      return JSON.stringify({ outcome, messages: task.messages, history: task.history });
    }, { tape, format: FORMAT });
    assert.equal(got, JSON.stringify(expected));
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
    await server.close();
    rmSync(profile, { recursive: true, force: true });
    rmSync(page, { recursive: true, force: true });
  }
});

test("a tape recorded in Node, inlined in a Worker, replays in workerd to the same transcript and history; one recorded in workerd replays there", async () => {
  const dir = mkdtempSync(join(here, ".tmp-cassette-worker-"));
  try {
    writeFileSync(join(dir, "tape.json"), JSON.stringify(tape));
    writeFileSync(join(dir, "worker.mjs"), `
      import { Task } from "clew/cassette";
      import tape from "./tape.json";
      import { macrotask } from ${JSON.stringify(join(packageDir, "cassette", "macrotask.js"))};
      import { memoryModel, taskOptions } from ${JSON.stringify(join(here, "support", "cassette-task.mjs"))};
      const FORMAT = ${JSON.stringify(FORMAT)};
      const run = async (task) => {
        const outcome = await task.start("Summarise the notes");
        return { outcome, messages: task.messages, history: task.history };
      };
      export default {
        async fetch(request) {
          try {
            if (new URL(request.url).pathname === "/order") {
              // Each input's turn is a macrotask: it comes after every microtask already queued.
              const seen = [];
              for (let round = 0; round < 3; round++) {
                await new Promise((done) => {
                  macrotask(() => { seen.push("turn"); done(); });
                  let chain = Promise.resolve();
                  for (let i = 0; i < 20; i++) chain = chain.then(() => seen.push("micro"));
                });
              }
              return Response.json(seen);
            }
            if (new URL(request.url).pathname === "/record") {
              const options = taskOptions(FORMAT);
              const recorder = new Task({ ...options, model: { ...options.model, request: memoryModel(FORMAT) }, cassette: { mode: "record" } });
              const recorded = await run(recorder);
              const own = await recorder.cassette();
              const replayed = await run(new Task({ ...taskOptions(FORMAT), cassette: { mode: "replay", data: own } }));
              return Response.json({ recorded, replayed });
            }
            return Response.json(await run(new Task({ ...taskOptions(FORMAT), cassette: { mode: "replay", data: tape } })));
          } catch (error) {
            return new Response(String(error && error.stack || error), { status: 500 });
          }
        },
      };`);
    const result = await build({
      ...wranglerOptions,
      entryPoints: [join(dir, "worker.mjs")],
      outdir: join(dir, "bundle"),
      nodePaths: [join(here, "node_modules")],
      metafile: true,
      logLevel: "error",
    });
    const inputs = Object.keys(result.metafile.inputs).map((p) => join(process.cwd(), p));
    for (const file of [entryFor(["workerd", "worker", "browser"]), entryFor(["workerd", "worker", "browser"], "./cassette")]) {
      assert.ok(inputs.includes(file), `${file} is bundled`);
    }
    const mf = new Miniflare({
      host: "127.0.0.1", port: 0, modules: true,
      scriptPath: join(dir, "bundle", "worker.js"), modulesRoot: join(dir, "bundle"),
      modulesRules: [{ type: "ESModule", include: ["**/*.js"] }, { type: "CompiledWasm", include: ["**/*.wasm"] }],
      compatibilityDate: "2025-09-01",
    });
    try {
      const url = await mf.ready;
      const response = await fetch(url);
      const text = await response.text();
      assert.equal(response.status, 200, text);
      assert.equal(text, JSON.stringify(expected));
      const order = await (await fetch(new URL("/order", url))).json();
      assert.deepEqual(order, Array.from({ length: 3 }, () => [...Array(20).fill("micro"), "turn"]).flat());
      // Recorded in workerd (its tasks' own timers and bodies), replayed there.
      const own = await fetch(new URL("/record", url));
      const ownText = await own.text();
      assert.equal(own.status, 200, ownText);
      const { recorded, replayed } = JSON.parse(ownText);
      assert.deepEqual(recorded.outcome, { status: "completed", result: "The summary is written." });
      assert.deepEqual(replayed.outcome, recorded.outcome);
      assert.equal(JSON.stringify(replayed.messages), JSON.stringify(recorded.messages));
      assert.equal(sameRedacted(recorded.history, replayed.history), null);
    } finally {
      await mf.dispose();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
