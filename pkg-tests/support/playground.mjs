// The playground (www/) in headless Chromium, for its tests and for recording its built-in
// tape (make-offline-tape.mjs).
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync"];

/** A fresh Chromium profile on the playground at `url`, ready: `{ page, errors, close }`. */
export async function openPlayground(url) {
  const profile = mkdtempSync(join(tmpdir(), "clew-chromium-"));
  const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: ARGS, viewport: { width: 1280, height: 900 } });
  const close = async () => {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  };
  try {
    const page = await context.newPage();
    const errors = [];
    page.on("pageerror", (error) => errors.push(error.message));
    await page.goto(url);
    await page.waitForSelector("body[data-state=ready]");
    return { page, errors, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/**
 * Takes the offline task on screen to its end: approves the README fix and the notes file,
 * answers the follow-up with its last option ("No, that's all") and accepts the result.
 */
export async function finishTheTask(page) {
  await page.waitForSelector(".ask-controls button.approve");
  assert.equal(await page.$eval("li:has(.ask-controls) .tool-name", (n) => n.textContent), "replace_in_file");
  await page.click(".ask-controls button.approve");
  await page.waitForFunction(() => document.querySelector("li:has(.ask-controls) .tool-name")?.textContent === "write_to_file");
  await page.click(".ask-controls button.approve");
  await answerAndAccept(page);
}

/** Answers the offline task's follow-up with its last option ("No, that's all") and accepts the result. */
export async function answerAndAccept(page) {
  await page.waitForSelector(".ask-controls button.option");
  await page.locator(".ask-controls button.option").last().click();
  await page.waitForSelector(".ask-controls button.accept");
  await page.click(".ask-controls button.accept");
  await page.waitForSelector("body[data-state=completed]");
}

