// The installed package through a bundler: esbuild resolves "clew" with the browser
// conditions, keeps the top-level await, and the bundle runs in headless Chromium with the
// .wasm file beside it (where `new URL("./clew_bg.wasm", import.meta.url)` points).
import { test } from "node:test";
import assert from "node:assert/strict";
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "esbuild";
import { chromium } from "playwright-core";
import { serve } from "./static-server.mjs";
import { here, packageDir } from "./package-dir.mjs";

const ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync"];

test("an esbuild browser bundle of the package runs in Chromium", async () => {
  const dir = mkdtempSync(join(here, ".tmp-bundle-"));
  const profile = mkdtempSync(join(tmpdir(), "clew-chromium-"));
  try {
    writeFileSync(join(dir, "entry.js"), `
      import { parseAssistantMessage, StreamDecoder } from "clew";
      const blocks = parseAssistantMessage("Hi <read_file><path>a.md</path></read_file>");
      const chunks = new StreamDecoder("openai").push(new TextEncoder().encode('data: {"choices":[{"index":0,"delta":{"content":"ok"}}]}\\n\\n'));
      document.body.dataset.result = JSON.stringify({ blocks, chunks });`);
    const result = await build({
      entryPoints: [join(dir, "entry.js")], bundle: true, format: "esm", platform: "browser", target: "es2022",
      outfile: join(dir, "out", "app.js"), nodePaths: [join(here, "node_modules")], logLevel: "silent", metafile: true,
    });
    const inputs = Object.keys(result.metafile.inputs).join("\n");
    assert.match(inputs, /clew\/browser\.js/, "the browser condition was chosen");
    copyFileSync(join(packageDir, "clew_bg.wasm"), join(dir, "out", "clew_bg.wasm"));
    writeFileSync(join(dir, "out", "index.html"), `<!doctype html><script type="module" src="app.js"></script>`);

    const server = await serve({ "/": join(dir, "out") });
    const context = await chromium.launchPersistentContext(profile, { executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium", headless: true, args: ARGS });
    try {
      const page = await context.newPage();
      const errors = [];
      page.on("pageerror", (error) => errors.push(error.message));
      await page.goto(server.url);
      await page.waitForFunction(() => document.body?.dataset.result, null, { timeout: 10000 });
      const { blocks, chunks } = JSON.parse(await page.evaluate(() => document.body.dataset.result));
      assert.equal(blocks[1].params.path, "a.md");
      assert.deepEqual(chunks, [{ type: "text", text: "ok" }]);
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
      await server.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
    rmSync(profile, { recursive: true, force: true });
  }
});
