// The playground (www/) in headless Chromium, for its tests and for recording its built-in
// tape (make-offline-tape.mjs), and a scripted OpenAI-compatible model for its remote tasks.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { openaiReply } from "./sse-server.mjs";

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


/** An OpenAI-compatible model on its own origin (with CORS): answers the requests with the SSE of `replies` in turn, and keeps them. */
/** Connects the MCP server at `url` as `name` in the panel, and waits until the panel is done. */
export async function connectMcp(page, url, name) {
  await page.fill("#mcpUrl", url);
  await page.fill("#mcpName", name);
  await page.click("#mcpConnect");
  await page.waitForSelector("#mcpConnect:not([disabled])");
}

/** Starts `text` as a task of the OpenAI-compatible model at `url` (a `scriptedModel`). */
export async function startWithModel(page, url, text) {
  await page.selectOption("#provider", "openai");
  await page.fill("#baseUrl", url);
  await page.fill("#modelId", "scripted");
  await page.fill("#apiKey", "sk-test");
  await page.fill("#taskText", text);
  await page.click("#start");
}

export async function scriptedModel(replies) {
  const received = [];
  const http = createServer(async (req, res) => {
    res.setHeader("access-control-allow-origin", "*");
    res.setHeader("access-control-allow-headers", req.headers["access-control-request-headers"] ?? "");
    if (req.method === "OPTIONS") return res.writeHead(204).end();
    let body = "";
    for await (const piece of req) body += piece;
    received.push(JSON.parse(body));
    const reply = replies[received.length - 1];
    if (reply === undefined) return res.writeHead(500, { "content-type": "application/json" }).end(JSON.stringify({ error: { message: "script ended" } }));
    res.writeHead(200, { "content-type": "text/event-stream" }).end(openaiReply(reply));
  });
  await new Promise((resolve) => http.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${http.address().port}/v1`, received, close: () => new Promise((resolve) => { http.close(resolve); http.closeAllConnections(); }) };
}

/** What the page stored in IndexedDB: `{ head, history, messages, files }`, every record. */
export const stored = (page) => page.evaluate(() => new Promise((resolve, reject) => {
  const open = indexedDB.open("clew-playground");
  open.onerror = () => reject(open.error);
  open.onsuccess = () => {
    const tx = open.result.transaction(["task", "history", "messages", "files"]);
    const out = {};
    const read = (name, request) => { request.onsuccess = () => { out[name] = request.result; }; };
    read("head", tx.objectStore("task").get("head"));
    read("history", tx.objectStore("history").getAll());
    read("messages", tx.objectStore("messages").getAll());
    read("files", tx.objectStore("files").get("workspace"));
    tx.oncomplete = () => { open.result.close(); resolve(out); };
  };
}));

/** Polls `check` (async) until it is true. */
export async function until(check, what, ms = 10000) {
  for (const end = Date.now() + ms; Date.now() < end;) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.fail(`timed out waiting until ${what}`);
}
