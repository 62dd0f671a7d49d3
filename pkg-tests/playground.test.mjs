// The playground (www/) in headless Chromium with the installed package: a newcomer's run of
// the offline task, with one tool approved and one denied, then a second run aborted mid-stream.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { serve } from "./static-server.mjs";
import { here, packageDir, repoRoot } from "./package-dir.mjs";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync"];
const OUTPUT = join(here, ".output");

test("the playground runs the offline task with an approval and a denial, and abort stops a run at once", async () => {
  const server = await serve({ "/pkg/": packageDir, "/": join(repoRoot, "www") });
  const profile = mkdtempSync(join(tmpdir(), "clew-chromium-"));
  const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: ARGS, viewport: { width: 1280, height: 900 } });
  try {
    const page = await context.newPage();
    const errors = [];
    page.on("pageerror", (error) => errors.push(error.message));
    await page.goto(server.url);
    await page.waitForSelector("body[data-state=ready]");
    await page.evaluate(() => { document.body.dataset.delay = "3"; });
    assert.match(await page.textContent("#file"), /Helo wrold/);
    await page.click("#start");

    // The first tool that asks is the README edit: approve it, and the file panel changes.
    const firstAsk = await page.waitForSelector(".ask-controls button.approve");
    const firstTool = await page.$eval("li:has(.ask-controls) .tool-name", (n) => n.textContent);
    assert.equal(firstTool, "replace_in_file");
    await firstAsk.click();
    await page.waitForFunction(() => document.querySelector("#file").textContent.includes("Hello world!"));
    assert.equal(await page.$eval("#file", (n) => n.dataset.path), "README.md");

    // The second is the notes file: deny it, and no file appears.
    await page.waitForSelector(".ask-controls button.deny");
    assert.equal(await page.$eval("li:has(.ask-controls) .tool-name", (n) => n.textContent), "write_to_file");
    await page.click(".ask-controls button.deny");

    // The follow-up question, then the completion.
    await page.waitForSelector(".ask-controls button.option");
    await page.locator(".ask-controls button.option").last().click();
    await page.waitForSelector(".ask-controls button.accept");
    await page.click(".ask-controls button.accept");
    await page.waitForSelector("body[data-state=completed]");
    const files = await page.$$eval("#files button", (nodes) => nodes.map((n) => n.textContent));
    assert.ok(!files.includes("NOTES.md"), `the denied write left no file: ${files}`);
    const kinds = await page.$$eval("#timeline li", (nodes) => nodes.map((n) => n.dataset.kind));
    for (const kind of ["say:reasoning", "say:tool", "ask:tool", "ask:followup", "say:completion_result", "outcome:completed"]) {
      assert.ok(kinds.includes(kind), `${kind} in ${kinds}`);
    }
    assert.match(await page.textContent("#timeline"), /Understood, I'll leave that/);
    assert.equal(await page.$eval('li[data-kind="say:tool"] .badge', (n) => n.textContent), "read-only", "auto-approved reads are marked");
    assert.notEqual(await page.textContent("#requests"), "0");
    assert.match(await page.textContent("#cost"), /^\$0\.\d{4}$/);
    mkdirSync(OUTPUT, { recursive: true });
    await page.screenshot({ path: join(OUTPUT, "playground.png"), fullPage: true });

    // A second run, aborted while the first reply streams: nothing arrives after it.
    await page.evaluate(() => { document.body.dataset.delay = "40"; });
    await page.click("#start");
    await page.waitForSelector("#timeline li.reasoning.partial");
    await page.click("#abort");
    await page.waitForSelector("body[data-state=aborted]");
    const snapshot = await page.$eval("#timeline", (n) => n.innerHTML);
    await page.waitForTimeout(400);
    assert.equal(await page.$eval("#timeline", (n) => n.innerHTML), snapshot, "nothing more arrived after abort");
    assert.equal(await page.textContent("#state"), "finished");
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
    await server.close();
    rmSync(profile, { recursive: true, force: true });
  }
});
