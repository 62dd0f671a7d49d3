// The installed package through the bundlers web developers use, each with its defaults and
// no configuration for clew: every bundle runs a small Task (a scripted model stream, a tool,
// a completion) in headless Chromium or Node, and no bundler warns about a file of the package.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { execFileSync, spawnSync } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build as esbuild } from "esbuild";
import { rollup } from "rollup";
import { nodeResolve } from "@rollup/plugin-node-resolve";
import { build as vite7 } from "vite";
import { build as vite8 } from "vite8";
import webpack from "webpack";
import { rspack } from "@rspack/core";
import { chromium } from "playwright-core";
import { serve } from "./support/static-server.mjs";
import { here, repoRoot, wranglerOptions } from "./support/package-dir.mjs";
import { assertNoPackageWarnings, esbuildWarnings, linkPackage } from "./support/bundler-warnings.mjs";

const ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync"];

/** The source of `options()`: a task's options with a scripted model (two replies), a tool and auto-approval. */
const OPTIONS = `
const enc = new TextEncoder();
const replies = [["Reading.\\n<read_file><path>a.md</path></read_file>"], ["<attempt_completion><result>done</result></attempt_completion>"]];
const options = () => {
  let n = 0;
  return {
    model: { format: "chunks", request: () => new ReadableStream({ start(c) {
      for (const text of replies[n++]) c.enqueue(enc.encode(JSON.stringify({ type: "text", text }) + "\\n"));
      c.close();
    } }) },
    tools: [{ name: "read_file", readOnly: true, parameters: [{ name: "path", required: true }], execute: ({ path }) => "content of " + path }],
    autoApprove: { readOnly: true },
    ask: () => ({ response: "yesButtonClicked" }),
  };
};
`;

/** A small agent run with a scripted model; `report(result)` receives `{ outcome, blocks }`. */
const APP = (from, report) => `
import { Task, parseAssistantMessage, ready } from "${from}";
${OPTIONS}
const task = new Task(options());
task.start("go").then(async (outcome) => {
  await ready;
  const blocks = parseAssistantMessage("<read_file><path>b.md</path></read_file>");
  ${report}({ outcome: { status: outcome.status, result: outcome.result }, blocks, history: task.history.length });
}, (error) => ${report}({ error: String(error) }));
`;
const PAGE_REPORT = "((r) => { document.body.dataset.result = JSON.stringify(r); })";
const EXPECTED = { outcome: { status: "completed", result: "done" }, history: 4 };

let context;
let profile;
before(async () => {
  profile = mkdtempSync(join(tmpdir(), "clew-chromium-"));
  context = await chromium.launchPersistentContext(profile, { executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium", headless: true, args: ARGS });
});
after(async () => {
  await context?.close();
  rmSync(profile, { recursive: true, force: true });
});

function workdir(name) {
  const dir = mkdtempSync(join(here, `.tmp-${name}-`));
  return { dir, done: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Serves `dir`, opens `page`, returns the app's report. */
async function runInChromium(dir, page = "index.html") {
  const server = await serve({ "/": dir });
  const tab = await context.newPage();
  const errors = [];
  tab.on("pageerror", (error) => errors.push(error.message));
  tab.on("requestfailed", (request) => errors.push(`failed: ${request.url()}`));
  tab.on("response", (response) => { if (response.status() >= 400) errors.push(`${response.status()}: ${response.url()}`); });
  try {
    await tab.goto(server.url + page);
    await tab.waitForFunction(() => document.body?.dataset.result, null, { timeout: 15000 }).catch(() => {});
    const raw = await tab.evaluate(() => document.body?.dataset.result);
    assert.ok(raw, `no result; errors: ${errors.join("; ")}`);
    const result = JSON.parse(raw);
    assert.deepEqual(errors, []);
    return result;
  } finally {
    await tab.close();
    await server.close();
  }
}

function check(result) {
  assert.equal(result.error, undefined, result.error);
  assert.deepEqual({ outcome: result.outcome, history: result.history }, EXPECTED);
  assert.equal(result.blocks[0].params.path, "b.md");
}

/** A Vite logger that keeps every warning in `warnings` and prints only errors. */
function collectingLogger(warnings) {
  const logger = {
    hasWarned: false,
    info() {},
    warn(message) { logger.hasWarned = true; warnings.push(message); },
    warnOnce(message) { logger.warn(message); },
    error(message) { console.error(message); },
    clearScreen() {},
    hasErrorLogged: () => false,
  };
  return logger;
}

const HTML = (script, type = "module") => `<!doctype html><html><body><script ${type ? `type="${type}" ` : ""}src="${script}"></script></body></html>`;

test("esbuild, browser defaults (iife), with clew/inline", async () => {
  const { dir, done } = workdir("esbuild-iife");
  try {
    writeFileSync(join(dir, "app.js"), APP("clew/inline", PAGE_REPORT));
    const result = await esbuild({ entryPoints: [join(dir, "app.js")], bundle: true, outfile: join(dir, "out", "app.js"), nodePaths: [join(here, "node_modules")], logLevel: "error" });
    assertNoPackageWarnings("esbuild", esbuildWarnings(result));
    writeFileSync(join(dir, "out", "index.html"), HTML("app.js", ""));
    check(await runInChromium(join(dir, "out")));
  } finally { done(); }
});

test("Bun's bundler, browser target, with clew/inline", async () => {
  const { dir, done } = workdir("bun-browser");
  try {
    writeFileSync(join(dir, "app.js"), APP("clew/inline", PAGE_REPORT));
    const bun = spawnSync(join(here, "node_modules", ".bin", "bun"), ["build", "app.js", "--target=browser", "--outdir", "out"], { cwd: dir, encoding: "utf8" });
    assert.equal(bun.status, 0, bun.stderr);
    assertNoPackageWarnings("Bun", [bun.stderr + bun.stdout]);
    writeFileSync(join(dir, "out", "index.html"), HTML("app.js"));
    check(await runInChromium(join(dir, "out")));
  } finally { done(); }
});

test("esbuild --platform=node bundle runs in Node", async () => {
  const { dir, done } = workdir("esbuild-node");
  try {
    writeFileSync(join(dir, "app.js"), APP("clew", "((r) => console.log(JSON.stringify(r)))"));
    const result = await esbuild({ entryPoints: [join(dir, "app.js")], bundle: true, platform: "node", outfile: join(dir, "out.cjs"), nodePaths: [join(here, "node_modules")], logLevel: "error" });
    assertNoPackageWarnings("esbuild", esbuildWarnings(result));
    check(JSON.parse(execFileSync(process.execPath, [join(dir, "out.cjs")], { encoding: "utf8" })));
  } finally { done(); }
});

test("require(\"clew\") from CommonJS", () => {
  const { dir, done } = workdir("cjs");
  try {
    const app = APP("clew", "((r) => console.log(JSON.stringify(r)))").replace(/^import (\{[^}]*\}) from "clew";$/m, 'const $1 = require("clew");');
    writeFileSync(join(dir, "app.cjs"), app);
    check(JSON.parse(execFileSync(process.execPath, [join(dir, "app.cjs")], { encoding: "utf8", cwd: here })));
    const probe = 'const c = require("clew"); const e = new c.ClewTaskError("m", "C"); console.log(e instanceof c.ClewError && e instanceof Error)';
    assert.equal(execFileSync(process.execPath, ["-e", probe], { encoding: "utf8", cwd: here }).trim(), "true");
  } finally { done(); }
});

test("Rollup with @rollup/plugin-node-resolve", async () => {
  const { dir, done } = workdir("rollup");
  try {
    writeFileSync(join(dir, "app.js"), APP("clew", PAGE_REPORT));
    const warnings = [];
    const onwarn = (w) => warnings.push([w.id ?? w.loc?.file, `[${w.code}] ${w.message}`].filter(Boolean).join(": "));
    const bundle = await rollup({ input: join(dir, "app.js"), plugins: [nodeResolve({ modulePaths: [join(here, "node_modules")] })], onwarn });
    await bundle.write({ file: join(dir, "out", "app.js"), format: "es" });
    assertNoPackageWarnings("Rollup", warnings);
    writeFileSync(join(dir, "out", "index.html"), HTML("app.js"));
    check(await runInChromium(join(dir, "out")));
  } finally { done(); }
});

for (const [name, build] of [["Vite 7", vite7], ["Vite 8", vite8]]) {
  test(`${name} production build: a page and a module worker (iife)`, async () => {
    const { dir, done } = workdir(name.replace(" ", "").toLowerCase());
    try {
      writeFileSync(join(dir, "index.html"), HTML("/main.js"));
      writeFileSync(join(dir, "main.js"), `
        import { ready } from "clew";
        const worker = new Worker(new URL("./worker.js", import.meta.url), { type: "module" });
        const results = {};
        const finish = () => { if (results.page && results.worker) document.body.dataset.result = JSON.stringify(results); };
        worker.onmessage = (event) => { results.worker = event.data; finish(); };
        worker.onerror = (event) => { results.worker = { error: event.message }; finish(); };
        ${APP("clew", "((r) => { results.page = r; finish(); })").replace(/^import .*$/m, 'import { Task, parseAssistantMessage } from "clew";')}
      `);
      writeFileSync(join(dir, "worker.js"), APP("clew", "((r) => self.postMessage(r))"));
      mkdirSync(join(dir, "node_modules"), { recursive: true });
      execFileSync("ln", ["-s", join(here, "node_modules", "clew"), join(dir, "node_modules", "clew")]);
      const warnings = [];
      await build({ root: dir, logLevel: "error", configFile: false, build: { outDir: join(dir, "dist") }, customLogger: collectingLogger(warnings) });
      assertNoPackageWarnings(name, warnings);
      const assets = readdirSync(join(dir, "dist", "assets"));
      assert.ok(assets.some((f) => f.endsWith(".wasm")), `the .wasm was emitted: ${assets}`);
      const result = await runInChromium(join(dir, "dist"));
      check(result.page);
      check(result.worker);
    } finally { done(); }
  });
}

for (const [name, bundle] of [["webpack 5", webpack], ["Rspack", rspack]]) {
  test(`${name}, production defaults`, async () => {
    const { dir, done } = workdir(name.replace(" ", "").toLowerCase());
    try {
      writeFileSync(join(dir, "app.js"), APP("clew", PAGE_REPORT));
      const stats = await new Promise((resolve, reject) => bundle({
        mode: "production", context: dir, entry: "./app.js", output: { path: join(dir, "dist"), filename: "app.js" },
        resolve: { modules: [join(here, "node_modules"), "node_modules"] },
      }, (error, stats) => (error ? reject(error) : resolve(stats))));
      assert.ok(!stats.hasErrors(), stats.toString("errors-only"));
      const { warnings } = stats.toJson({ all: false, warnings: true });
      assertNoPackageWarnings(name, warnings.map((w) => [w.moduleIdentifier, w.moduleName, w.message].filter(Boolean).join(": ")));
      assert.ok(readdirSync(join(dir, "dist")).some((f) => f.endsWith(".wasm")), "the .wasm was emitted");
      writeFileSync(join(dir, "dist", "index.html"), HTML("app.js", ""));
      check(await runInChromium(join(dir, "dist")));
    } finally { done(); }
  });
}

test("Parcel 2, `parcel build index.html`", async () => {
  const { dir, done } = workdir("parcel");
  try {
    writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "parcel-app", private: true, dependencies: { clew: "*" } }));
    writeFileSync(join(dir, "app.js"), APP("clew", PAGE_REPORT));
    writeFileSync(join(dir, "index.html"), HTML("./app.js"));
    mkdirSync(join(dir, "node_modules"), { recursive: true });
    execFileSync("ln", ["-s", join(here, "node_modules", "clew"), join(dir, "node_modules", "clew")]);
    const parcel = spawnSync(join(here, "node_modules", ".bin", "parcel"), ["build", "index.html", "--no-cache", "--cache-dir", join(dir, ".parcel-cache"), "--dist-dir", "dist", "--log-level", "warn"], { cwd: dir, encoding: "utf8" });
    assert.equal(parcel.status, 0, parcel.stdout + parcel.stderr);
    assertNoPackageWarnings("Parcel", [parcel.stderr + parcel.stdout]);
    assert.ok(readdirSync(join(dir, "dist")).some((f) => f.endsWith(".wasm")), "the .wasm was emitted");
    check(await runInChromium(join(dir, "dist")));
  } finally { done(); }
});

/** A task recorded and replayed through `clew/cassette`; `report` receives `{ outcome, history, same }`. */
const TAPE_APP = (report) => `
import { Task } from "clew/cassette";
${OPTIONS}
(async () => {
  const recorder = new Task({ ...options(), cassette: { mode: "record" } });
  await recorder.start("go");
  const tape = JSON.parse(JSON.stringify(await recorder.cassette()));
  const replayed = new Task({ ...options(), cassette: { mode: "replay", data: tape } });
  const outcome = await replayed.start("go");
  ${report}({ outcome: { status: outcome.status, result: outcome.result, code: outcome.error?.code }, history: replayed.history.length,
    same: JSON.stringify(replayed.history) === JSON.stringify(recorder.history) });
})().catch((error) => ${report}({ error: String(error) }));
`;

test("clew/cassette in a Vite 8 and a webpack 5 bundle: a task recorded and replayed in a page", async () => {
  const expected = { outcome: { status: "completed", result: "done" }, history: 4, same: true };
  const { dir, done } = workdir("cassette");
  try {
    mkdirSync(join(dir, "node_modules"), { recursive: true });
    execFileSync("ln", ["-s", join(here, "node_modules", "clew"), join(dir, "node_modules", "clew")]);
    writeFileSync(join(dir, "index.html"), HTML("/app.js"));
    writeFileSync(join(dir, "app.js"), TAPE_APP(PAGE_REPORT));
    const warnings = [];
    await vite8({ root: dir, logLevel: "error", configFile: false, build: { outDir: join(dir, "vite") }, customLogger: collectingLogger(warnings) });
    assertNoPackageWarnings("Vite 8", warnings);
    assert.deepEqual(await runInChromium(join(dir, "vite")), expected, "Vite 8");
    const stats = await new Promise((resolve, reject) => webpack({
      mode: "production", context: dir, entry: "./app.js", output: { path: join(dir, "webpack"), filename: "app.js" },
    }, (error, stats) => (error ? reject(error) : resolve(stats))));
    assert.ok(!stats.hasErrors(), stats.toString("errors-only"));
    const { warnings: packed } = stats.toJson({ all: false, warnings: true });
    assertNoPackageWarnings("webpack 5", packed.map((w) => [w.moduleIdentifier, w.moduleName, w.message].filter(Boolean).join(": ")));
    writeFileSync(join(dir, "webpack", "index.html"), HTML("app.js", ""));
    assert.deepEqual(await runInChromium(join(dir, "webpack")), expected, "webpack 5");
  } finally { done(); }
});

// NOTE: esbuild keeps quiet about some warnings in files under node_modules (as installed from
// npm), but wrangler printed them for the Durable Object example with the package linked: with
// clew linked from outside node_modules, esbuild reports every warning (issue 28: 7 duplicate
// keys in clew.js's wasm import object), and none may name a package file: ES modules, and
// the inline entry in iife and CommonJS bundles too (the MCP support's run-time import has no
// `import.meta`). The browser entry's `new URL("./clew_bg.wasm", import.meta.url)` is for
// bundlers that emit that asset from ES modules (Vite, webpack), so it is built as ESM only.
test("esbuild with the package linked from outside node_modules (as wrangler bundles the Durable Object example, ES modules for browsers and Node, the inline entry as iife and CommonJS): no warning names a package file", async () => {
  const { dir, done } = workdir("esbuild-linked");
  try {
    const linked = linkPackage(dir);
    const nodePaths = [join(dir, "node_modules"), join(here, "node_modules")];
    writeFileSync(join(dir, "app.js"), APP("clew", "console.log"));
    writeFileSync(join(dir, "inline.js"), APP("clew/inline", "console.log"));
    const builds = {
      wrangler: { ...wranglerOptions, entryPoints: [join(repoRoot, "examples", "durable-object", "src", "worker.js")] },
      browser: { entryPoints: [join(dir, "app.js")], bundle: true, format: "esm", platform: "browser" },
      "browser, clew/inline": { entryPoints: [join(dir, "inline.js")], bundle: true, format: "esm", platform: "browser" },
      node: { entryPoints: [join(dir, "app.js")], bundle: true, format: "esm", platform: "node" },
      "browser, clew/inline, iife": { entryPoints: [join(dir, "inline.js")], bundle: true, format: "iife", platform: "browser" },
      "node, CommonJS": { entryPoints: [join(dir, "app.js")], bundle: true, format: "cjs", platform: "node" },
    };
    for (const [name, options] of Object.entries(builds)) {
      const result = await esbuild({ ...options, outdir: join(dir, name.replace(/\W+/g, "-")), nodePaths, metafile: true, logLevel: "silent" });
      const inputs = Object.keys(result.metafile.inputs).map((p) => join(process.cwd(), p));
      assert.ok(inputs.some((p) => p.startsWith(linked + "/")), `${name}: the linked copy is bundled: ${inputs.filter((p) => p.includes("clew"))}`);
      assertNoPackageWarnings(`esbuild (${name})`, esbuildWarnings(result), [linked]);
    }
  } finally { done(); }
});
