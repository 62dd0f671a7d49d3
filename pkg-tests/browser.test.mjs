// The installed package in headless Chromium: the parser demo page in www/ imports it by name
// (import map to the package's browser entry), streams its sample and draws the blocks.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { serve } from "./support/static-server.mjs";
import { packageDir, repoRoot, entryFor } from "./support/package-dir.mjs";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync"];

test("the demo page streams its sample through the package in Chromium, and the page decodes a fetched model stream", async () => {
  assert.match(entryFor(["browser", "import"]), /browser\.js$/);
  const fixtures = join(repoRoot, "tests/fixtures/streams");
  const server = await serve({ "/pkg/": packageDir, "/fixtures/": fixtures, "/": join(repoRoot, "www") });
  const profile = mkdtempSync(join(tmpdir(), "clew-chromium-"));
  const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: ARGS });
  try {
    const page = await context.newPage();
    const errors = [];
    page.on("pageerror", (error) => errors.push(error.message));
    await page.goto(server.url + "parser.html");
    await page.waitForSelector("body[data-state=ready]");
    await page.fill("#delay", "0");
    await page.click("#stream");
    await page.waitForSelector("body[data-state=done]");
    const kinds = await page.$$eval("#blocks li .kind", (nodes) => nodes.map((n) => n.textContent));
    assert.deepEqual(kinds, ["text", "tool_use: read_file", "text", "tool_use: replace_in_file"]);
    assert.match(await page.textContent("#blocks li:nth-child(2) pre"), /^path = src\/config\.ts$/);
    const streamed = await page.$$eval("#blocks li", (nodes) => nodes.map((n) => n.textContent));
    await page.click("#parse");
    const whole = await page.$$eval("#blocks li", (nodes) => nodes.map((n) => n.textContent));
    assert.deepEqual(streamed, whole);
    // A model stream fetched by the page and decoded by the package.
    const chunks = await page.evaluate(async () => {
      const { readModelStream } = await import("clew");
      const stream = await readModelStream(await fetch("/fixtures/anthropic-thinking-tool.sse"), "anthropic");
      const out = [];
      const reader = stream.getReader();
      for (let r = await reader.read(); !r.done; r = await reader.read()) out.push(r.value);
      return out;
    });
    const expected = JSON.parse(readFileSync(join(repoRoot, "tests/fixtures/streams/anthropic-thinking-tool.expected.json"), "utf8"));
    assert.deepEqual(chunks, expected.chunks);
    assert.deepEqual(errors, []);
    if (process.env.CLEW_SCREENSHOT) await page.screenshot({ path: process.env.CLEW_SCREENSHOT, fullPage: true });
  } finally {
    await context.close();
    await server.close();
    rmSync(profile, { recursive: true, force: true });
  }
});
