// MCP servers as tools (issue 19) in headless Chromium: a page of one origin imports the
// installed package (its browser entry, which loads mcp-servers.js on demand) and the MCP
// SDK's client (bundled by esbuild), and runs tasks against the MCP server of
// mcp-server.mjs on another origin (so its CORS headers matter), in XML and native mode: a
// call approved, a call denied, a task aborted during a slow call.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "esbuild";
import { chromium } from "playwright-core";
import { serve } from "./support/static-server.mjs";
import { here, packageDir, entryFor } from "./support/package-dir.mjs";
import { startMcpServer } from "./support/mcp-server.mjs";
import { MODES } from "./support/mcp-helpers.mjs";
import { SCENARIOS, checkScenario } from "./support/mcp-checks.mjs";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync"];

const PAGE = `<!doctype html>
<meta charset="utf-8">
<title>clew MCP</title>
<script type="importmap">{ "imports": { "clew": "/pkg/browser.js" } }</script>
<script type="module">
  import { Task } from "clew";
  import { scenario } from "/helpers/mcp-helpers.mjs";
  import { Client, StreamableHTTPClientTransport } from "/sdk/sdk.js";
  async function connect(url) {
    const client = new Client({ name: "clew-page", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    return client;
  }
  window.runScenario = (args) => scenario(Task, connect, args);
  document.body.dataset.state = "ready";
</script>
<body></body>`;

let dir;
let site;
let context;
let page;
const errors = [];

before(async () => {
  assert.match(entryFor(["browser", "import"]), /browser\.js$/);
  dir = mkdtempSync(join(tmpdir(), "clew-mcp-browser-"));
  writeFileSync(join(dir, "sdk-entry.mjs"), [
    'export { Client } from "@modelcontextprotocol/sdk/client/index.js";',
    'export { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";',
  ].join("\n"));
  await build({
    entryPoints: [join(dir, "sdk-entry.mjs")], bundle: true, format: "esm", platform: "browser",
    outfile: join(dir, "sdk", "sdk.js"), nodePaths: [join(here, "node_modules")], logLevel: "error",
  });
  writeFileSync(join(dir, "index.html"), PAGE);
  site = await serve({ "/pkg/": packageDir, "/sdk/": join(dir, "sdk"), "/helpers/": join(here, "support"), "/": dir });
  context = await chromium.launchPersistentContext(join(dir, "profile"), { executablePath: CHROMIUM, headless: true, args: ARGS });
  page = await context.newPage();
  page.on("pageerror", (error) => errors.push(error.message));
  await page.goto(site.url + "index.html");
  await page.waitForSelector("body[data-state=ready]", { state: "attached" });
});

after(async () => {
  await context?.close();
  await site?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

for (const mode of MODES) {
  for (const kind of SCENARIOS) {
    test(`Chromium, ${mode}: ${kind}`, async () => {
      const server = await startMcpServer();
      try {
        assert.notEqual(new URL(server.url).origin, new URL(site.url).origin, "the server is on another origin");
        const facts = await page.evaluate((args) => window.runScenario(args), { kind, mode, url: server.url, stateUrl: server.stateUrl });
        await checkScenario(facts, { kind, mode, server });
        assert.deepEqual(errors, []);
      } finally {
        await server.close();
      }
    });
  }
}
