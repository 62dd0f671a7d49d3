// The installed package in a Next.js app as a new user writes it, with no configuration: one
// App Router app, two route handlers (the Node.js runtime and the Edge runtime) that import
// "clew" and run a Task against an SSE upstream (a local server), one `next build` with its
// default bundler (Turbopack), which names no file of the package in its output (no warning),
// then `next start` and a request to each route.
//
// next, react and react-dom (pinned below) are installed once into node_modules/.cache/ of
// pkg-tests (npm's usual cache place, out of git) and reused while their versions match.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { here, packageDir } from "./support/package-dir.mjs";
import { assertNoPackageWarnings } from "./support/bundler-warnings.mjs";
import { anthropicReply, startModelServer } from "./support/sse-server.mjs";

/** The versions a new user got from `npm install next react react-dom` when this was written. */
const VERSIONS = { next: "16.4.6", react: "19.3.1", "react-dom": "19.3.1" };
const cache = join(here, "node_modules", ".cache", "clew-nextjs");
const env = { ...process.env, NEXT_TELEMETRY_DISABLED: "1", NO_COLOR: "1" };

const ROUTE = (runtime) => `import { Task, parseAssistantMessage } from "clew";

export const runtime = "${runtime}";
export const dynamic = "force-dynamic";

export async function POST(request) {
  const { upstream, text } = await request.json();
  const messages = [];
  try {
    const task = new Task({
      model: { format: "anthropic", id: "claude-test", baseUrl: upstream },
      tools: [{ name: "read_file", readOnly: true, parameters: [{ name: "path", required: true }],
                execute: ({ path }) => "contents of " + path }],
      autoApprove: { readOnly: true },
      say: (m) => { if (!m.partial) messages.push({ say: m.say, text: m.text }); },
      ask: (m) => { if (!m.partial) messages.push({ ask: m.ask }); return { response: "yesButtonClicked" }; },
    });
    const outcome = await task.start(text);
    const blocks = parseAssistantMessage("<read_file><path>b.md</path></read_file>");
    return Response.json({
      runtime: process.env.NEXT_RUNTIME,
      edgeRuntime: typeof EdgeRuntime === "string" ? EdgeRuntime : null,
      outcome, messages, blocks, history: task.history.length,
    });
  } catch (error) {
    return Response.json({ error: String(error?.stack ?? error), messages }, { status: 500 });
  }
}
`;

/** Runs `command args…` in `cwd` (killed after `timeout` ms); resolves with its output, rejects with it on a non-zero exit. */
function run(command, args, cwd, timeout = 10 * 60 * 1000) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, timeout, killSignal: "SIGKILL", stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (d) => { output += d; });
    child.stderr.on("data", (d) => { output += d; });
    child.on("error", reject);
    child.on("close", (code, signal) => (code === 0 ? resolve(output)
      : reject(new Error(`${command} ${args.join(" ")} exited with ${code ?? signal}:\n${output}`))));
  });
}

const cached = () => Object.entries(VERSIONS).every(([name, version]) => {
  try { return JSON.parse(readFileSync(join(cache, "node_modules", name, "package.json"), "utf8")).version === version; } catch { return false; }
});

/** next, react and react-dom at VERSIONS in `cache`, installed there unless they already are. */
async function ensureNext() {
  if (cached()) return "cached";
  mkdirSync(dirname(cache), { recursive: true });
  const partial = mkdtempSync(cache + ".partial-");
  try {
    writeFileSync(join(partial, "package.json"), JSON.stringify({ name: "clew-nextjs-deps", private: true, dependencies: VERSIONS }, null, 2));
    await run("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error"], partial);
    if (!cached()) {
      rmSync(cache, { recursive: true, force: true });
      renameSync(partial, cache);
    }
  } finally {
    rmSync(partial, { recursive: true, force: true });
  }
  return "installed";
}

let app;
let server;
const timings = {};

before(async () => {
  let t = Date.now();
  const how = await ensureNext();
  timings[`npm install (${how})`] = Date.now() - t;

  app = mkdtempSync(join(here, ".tmp-next-"));
  writeFileSync(join(app, "package.json"), JSON.stringify({ name: "clew-next-app", private: true,
    scripts: { build: "next build", start: "next start" }, dependencies: { ...VERSIONS, clew: "*" } }, null, 2));
  mkdirSync(join(app, "app", "api", "node"), { recursive: true });
  mkdirSync(join(app, "app", "api", "edge"), { recursive: true });
  writeFileSync(join(app, "app", "layout.js"), "export default function RootLayout({ children }) {\n  return <html><body>{children}</body></html>;\n}\n");
  writeFileSync(join(app, "app", "api", "node", "route.js"), ROUTE("nodejs"));
  writeFileSync(join(app, "app", "api", "edge", "route.js"), ROUTE("edge"));
  // node_modules: the cached packages, linked one by one, and the installed clew, copied as
  // npm installs a tarball.
  const modules = join(app, "node_modules");
  mkdirSync(modules);
  for (const name of readdirSync(join(cache, "node_modules"))) {
    if (name !== "clew" && !name.startsWith(".package-lock")) symlinkSync(join(cache, "node_modules", name), join(modules, name));
  }
  cpSync(packageDir, join(modules, "clew"), { recursive: true });

  const next = join(modules, "next", "dist", "bin", "next");
  t = Date.now();
  const built = await run(process.execPath, [next, "build"], app);
  assertNoPackageWarnings("next build", [built]);
  timings["next build"] = Date.now() - t;

  t = Date.now();
  server = await startNext(next, app);
  timings["next start"] = Date.now() - t;
}, { timeout: 15 * 60 * 1000 });

after(async () => {
  try {
    await server?.stop();
  } finally {
    if (app) rmSync(app, { recursive: true, force: true });
    console.log(`next.js timings (ms): ${JSON.stringify(timings)}`);
  }
});

/** `next start` on 127.0.0.1 and a free port, in its own process group; resolves once ready. */
function startNext(next, cwd) {
  const child = spawn(process.execPath, [next, "start", "-H", "127.0.0.1", "-p", "0"], { cwd, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  let log = "";
  const exited = new Promise((resolve) => child.on("exit", resolve));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      try { process.kill(-child.pid, "SIGTERM"); } catch {}
      const timer = setTimeout(() => { try { process.kill(-child.pid, "SIGKILL"); } catch {} }, 5000);
      await exited;
      clearTimeout(timer);
    }
  };
  return new Promise((resolve, reject) => {
    let settled = false;
    const fail = (why) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      stop().finally(() => reject(new Error(`next start: ${why}\n${log}`)));
    };
    const timer = setTimeout(() => fail("not ready after 60 s"), 60000);
    const onData = (d) => {
      log += d;
      const url = /Local:\s+(http:\/\/127\.0\.0\.1:\d+)/.exec(log)?.[1];
      if (!settled && url && /Ready in/.test(log)) {
        settled = true;
        clearTimeout(timer);
        resolve({ url, stop, log: () => log });
      }
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.on("error", (error) => fail(String(error)));
    child.on("exit", (code, signal) => fail(`exited with ${code ?? signal}`));
  });
}

/** POSTs a task to `/api/<route>` with a fresh upstream; returns the route's JSON and what the upstream got. */
async function runRoute(route) {
  const upstream = await startModelServer({
    "/v1/messages": [
      anthropicReply("Reading.\n<read_file>\n<path>a.md</path>\n</read_file>"),
      anthropicReply("Done.\n<attempt_completion>\n<result>read a.md</result>\n</attempt_completion>"),
    ],
  });
  try {
    const response = await fetch(`${server.url}/api/${route}`, { method: "POST", headers: { "content-type": "application/json" },
      body: JSON.stringify({ upstream: upstream.url, text: "read a.md" }) });
    const text = await response.text();
    assert.equal(response.status, 200, `${route}: ${text.slice(0, 2000)}\nserver log:\n${server.log()}`);
    return { body: JSON.parse(text), received: upstream.received };
  } finally {
    await upstream.close();
  }
}

function check({ body, received }) {
  assert.deepEqual(body.outcome, { status: "completed", result: "read a.md" }, JSON.stringify(body));
  const says = body.messages.filter((m) => m.say).map((m) => m.say);
  assert.ok(says.includes("tool") && says.includes("completion_result"), JSON.stringify(body.messages));
  assert.equal(body.history, 4);
  assert.equal(body.blocks[0].params.path, "b.md");
  assert.equal(received.length, 2);
  assert.match(JSON.stringify(received[1].body.messages), /contents of a\.md/, "the tool ran and its result went to the model");
}

test("Next.js Node.js route handler runs a Task with clew", async () => {
  const result = await runRoute("node");
  assert.equal(result.body.runtime, "nodejs");
  assert.equal(result.body.edgeRuntime, null);
  check(result);
});

test("Next.js Edge route handler runs a Task with clew", async () => {
  const result = await runRoute("edge");
  assert.equal(result.body.runtime, "edge");
  assert.equal(result.body.edgeRuntime, "edge-runtime");
  check(result);
});
