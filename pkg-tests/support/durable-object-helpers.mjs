// What the Durable Object example's tests share (durable-object.test.mjs,
// durable-object-kill.test.mjs): the example bundled as wrangler bundles it, a Miniflare
// instance running it over SQLite storage on disk, and a client of its events.
import assert from "node:assert/strict";
import { join } from "node:path";
import { build } from "esbuild";
import { Miniflare } from "miniflare";
import { here, repoRoot, wranglerOptions } from "./package-dir.mjs";

export const exampleDir = join(repoRoot, "examples", "durable-object");

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` every 25 ms until it returns something truthy, which it returns. */
export async function until(what, check, timeoutMs = 15_000) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

/**
 * The example's Worker (or the Worker at `entry`, a file named worker.js or worker.mjs) bundled
 * into `bundleDir` as wrangler bundles it; esbuild's result (with its metafile).
 */
export function bundleExample(bundleDir, entry = join(exampleDir, "src", "worker.js")) {
  return build({
    ...wranglerOptions,
    entryPoints: [entry],
    outdir: bundleDir,
    nodePaths: [join(here, "node_modules")],
    metafile: true,
    logLevel: "error",
  });
}

/** A Miniflare instance (one workerd process) running the bundle in `bundleDir` over `persistDir`. */
export async function exampleInstance(bundleDir, persistDir, modelUrl, vars = {}) {
  const mf = new Miniflare({
    host: "127.0.0.1",
    port: 0,
    modules: true,
    scriptPath: join(bundleDir, "worker.js"),
    modulesRoot: bundleDir,
    modulesRules: [{ type: "ESModule", include: ["**/*.js"] }, { type: "CompiledWasm", include: ["**/*.wasm"] }],
    compatibilityDate: "2025-09-01",
    durableObjects: { TASKS: { className: "TaskObject", useSQLite: true } },
    durableObjectsPersist: persistDir,
    bindings: { MODEL_URL: modelUrl, MODEL_API_KEY: "test-key", MODEL_ID: "claude-test", RETRY_BASE_DELAY_MS: "300", ...vars },
  });
  const url = await mf.ready;
  const call = async (method, path, body) => {
    const response = await fetch(new URL(path, url), {
      method,
      headers: body === undefined ? {} : { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    try {
      return { status: response.status, body: text === "" ? null : JSON.parse(text) };
    } catch {
      throw new Error(`${method} ${path}: ${response.status} ${text}`);
    }
  };
  const status = async (id) => (await call("GET", `/tasks/${id}`)).body;
  return { url, call, status, dispose: () => mf.dispose() };
}

/**
 * A client of `GET /tasks/:id/events` that keeps every event (with the connection it came on
 * and when), calls `onMessage` with each transcript message, and reconnects with Last-Event-ID.
 */
export class EventClient {
  constructor(onMessage = () => {}) {
    this.onMessage = onMessage;
    this.events = [];
    this.lastEventId = "";
    this.connections = 0;
    this.end = null;
    this.failure = null;
  }

  connect(base, id) {
    const controller = new AbortController();
    this.controller = controller;
    const connection = ++this.connections;
    const headers = this.lastEventId ? { "last-event-id": this.lastEventId } : {};
    this.reading = (async () => {
      const response = await fetch(new URL(`/tasks/${id}/events`, base), { headers, signal: controller.signal });
      assert.equal(response.status, 200);
      assert.match(response.headers.get("content-type"), /^text\/event-stream/);
      const decoder = new TextDecoder();
      let buffer = "";
      for await (const bytes of response.body) {
        buffer += decoder.decode(bytes, { stream: true });
        for (let at; (at = buffer.indexOf("\n\n")) >= 0; buffer = buffer.slice(at + 2)) this.parse(buffer.slice(0, at), connection);
      }
    })().catch((error) => {
      if (!controller.signal.aborted) this.failure = error;
    });
  }

  parse(block, connection) {
    let id;
    let name = "message";
    let data = "";
    for (const line of block.split("\n")) {
      const colon = line.indexOf(":");
      if (colon === 0) continue;
      const field = line.slice(0, colon);
      const value = line.slice(colon + 1).replace(/^ /, "");
      if (field === "id") id = value;
      else if (field === "event") name = value;
      else if (field === "data") data += value;
    }
    if (data === "") return;
    if (id !== undefined) this.lastEventId = id;
    const event = { id, name, data: JSON.parse(data), connection, at: Date.now() };
    this.events.push(event);
    if (name === "end") this.end = event.data;
    if (name === "message") this.onMessage(event.data);
  }

  disconnect() {
    this.controller.abort();
    return this.reading;
  }

  has(predicate) {
    return this.events.some((event) => event.name === "message" && predicate(event.data));
  }

  /** Each transcript entry in its last state received, in the order first received. */
  view() {
    const entries = new Map();
    for (const event of this.events) if (event.name === "message") entries.set(event.data.ts, event.data);
    return [...entries.values()];
  }

  /** The events a connection began with: what it was sent as missed, up to the first with an id. */
  replay(connection) {
    const events = this.events.filter((event) => event.connection === connection);
    const last = events.findIndex((event) => event.id !== undefined);
    return last < 0 ? [] : events.slice(0, last + 1);
  }
}
