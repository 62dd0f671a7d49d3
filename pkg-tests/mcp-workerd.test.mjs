// MCP servers as tools (issue 19) in a Cloudflare Worker (workerd, through miniflare): a
// Worker bundled by esbuild as wrangler bundles it (the `workerd` condition; the package's
// MCP glue, which it imports on demand, goes into the bundle) runs tasks whose MCP client is
// the SDK's (with its Workers-safe JSON Schema validator), or `clew/mcp`'s
// `connectMcpServer`, against the MCP server of mcp-server.mjs in Node, in XML and native
// mode: a call approved, a call denied, a task aborted during a slow call.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { build } from "esbuild";
import { Miniflare } from "miniflare";
import { here, packageDir, entryFor, wranglerOptions } from "./support/package-dir.mjs";
import { assertNoPackageWarnings, esbuildWarnings } from "./support/bundler-warnings.mjs";
import { startMcpServer } from "./support/mcp-server.mjs";
import { MODES } from "./support/mcp-helpers.mjs";
import { SCENARIOS, checkScenario } from "./support/mcp-checks.mjs";

const WORKER = `
import { Task } from "clew";
import { connectMcpServer } from "clew/mcp";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";
import { scenario } from "../support/mcp-helpers.mjs";

async function sdkClient(url) {
  const client = new Client({ name: "clew-worker", version: "1.0.0" }, { jsonSchemaValidator: new CfWorkerJsonSchemaValidator() });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

export default {
  async fetch(request) {
    const args = await request.json();
    const connect = args.client === "clew/mcp" ? (url) => connectMcpServer(url) : sdkClient;
    try {
      return Response.json(await scenario(Task, connect, args));
    } catch (error) {
      return Response.json({ error: String(error && error.stack || error) }, { status: 500 });
    }
  },
};
`;

let dir;
let mf;
let workerUrl;

before(async () => {
  dir = mkdtempSync(join(here, ".tmp-mcp-workerd-"));
  writeFileSync(join(dir, "worker.mjs"), WORKER);
  const result = await build({
    ...wranglerOptions,
    entryPoints: [join(dir, "worker.mjs")],
    outdir: join(dir, "bundle"),
    nodePaths: [join(here, "node_modules")],
    metafile: true,
    logLevel: "error",
  });
  assertNoPackageWarnings("esbuild", esbuildWarnings(result));
  const inputs = Object.keys(result.metafile.inputs).map((p) => join(process.cwd(), p));
  for (const file of [entryFor(["workerd", "worker", "browser"]), join(packageDir, "mcp-servers.js"), join(packageDir, "mcp-workerd.js")]) {
    assert.ok(inputs.includes(file), `${file} is bundled: ${inputs.filter((p) => p.includes("clew"))}`);
  }
  mf = new Miniflare({
    host: "127.0.0.1",
    port: 0,
    modules: true,
    scriptPath: join(dir, "bundle", "worker.js"),
    modulesRoot: join(dir, "bundle"),
    modulesRules: [{ type: "ESModule", include: ["**/*.js"] }, { type: "CompiledWasm", include: ["**/*.wasm"] }],
    compatibilityDate: "2025-09-01",
  });
  workerUrl = await mf.ready;
});

after(async () => {
  await mf?.dispose();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function inWorker(args) {
  const response = await fetch(workerUrl, { method: "POST", body: JSON.stringify(args) });
  const facts = await response.json();
  assert.equal(response.status, 200, facts.error);
  return facts;
}

for (const mode of MODES) {
  for (const kind of SCENARIOS) {
    test(`workerd, ${mode}: ${kind}`, async () => {
      const server = await startMcpServer();
      try {
        const facts = await inWorker({ kind, mode, url: server.url, stateUrl: server.stateUrl });
        await checkScenario(facts, { kind, mode, server });
      } finally {
        await server.close();
      }
    });
  }
}

test("workerd: clew/mcp's connectMcpServer (its workerd build) gives a client a task can use", async () => {
  const server = await startMcpServer();
  try {
    const facts = await inWorker({ kind: "call", mode: "xml", url: server.url, stateUrl: server.stateUrl, client: "clew/mcp" });
    await checkScenario(facts, { kind: "call", mode: "xml", server });
  } finally {
    await server.close();
  }
});
