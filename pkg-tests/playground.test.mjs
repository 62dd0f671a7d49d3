// The playground (www/) in headless Chromium with the installed package: a newcomer's run of
// the offline task, with one tool approved and one denied, then a second run aborted mid-stream;
// with "keep in this browser" on, reloads at an approval and in the middle of a reply; a cap
// on the context, whose compactions show in the timeline; and an
// MCP server connected by URL, whose tools the panel lists and the next task gets (the offline
// model names them; a scripted OpenAI-compatible model calls them).
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serve } from "./support/static-server.mjs";
import { answerAndAccept, connectMcp, finishTheTask, openPlayground, scriptedModel, startWithModel, stored, until } from "./support/playground.mjs";
import { here, packageDir, repoRoot } from "./support/package-dir.mjs";
import { scriptedReply } from "../www/offline-model.js";
import { bundleMcpSdk } from "../scripts/mcp-sdk-bundle.mjs";
import { startMcpServer } from "./support/mcp-server.mjs";

const OUTPUT = join(here, ".output");

test("the playground runs the offline task with an approval and a denial, and abort stops a run at once", async () => {
  const server = await serve({ "/pkg/": packageDir, "/": join(repoRoot, "www") });
  const browser = await openPlayground(server.url);
  try {
    const { page, errors } = browser;
    await page.evaluate(() => { document.body.dataset.delay = "3"; });
    assert.match(await page.textContent("#file"), /Helo wrold/);
    await page.click("#start");
    // The suggested task is the built-in tape's: its replies come from the tape.
    await page.waitForSelector("#modelSource:not([hidden])");
    assert.equal(await page.textContent("#modelSource"), "model: the built-in tape");

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

    // The follow-up question, then the completion. The tape approved the notes file: from the
    // request after the denial, the offline script answers, and the page says where it left.
    await answerAndAccept(page);
    assert.match(await page.textContent("#modelSource"), /^model: script from request 5 \(differs at \$\.messages\[\d+\]/);
    assert.match(await page.getAttribute("#modelSource", "title"), /recorded .*now .*denied/is);
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
    await browser.close();
    await server.close();
  }
});

/** The timeline's rows as `{ ts, kind, text }` (a reasoning row's text is its reasoning). */
const timeline = (page) => page.$$eval("#timeline li", (nodes) => nodes.map((n) => ({
  ts: n.dataset.ts, kind: n.dataset.kind, text: (n.querySelector("details pre") ?? n.querySelector(".body") ?? n).textContent,
})));

test("the playground downloads the tape of the task on screen, and a tape loaded back replays it to the same transcript", async () => {
  const server = await serve({ "/pkg/": packageDir, "/": join(repoRoot, "www") });
  const browser = await openPlayground(server.url);
  const dir = mkdtempSync(join(tmpdir(), "clew-tape-"));
  try {
    const { page, errors } = browser;
    await page.evaluate(() => { document.body.dataset.delay = "2"; });
    assert.equal(await page.isDisabled("#tape"), true, "no task yet");
    await page.click("#start");
    await finishTheTask(page);
    assert.equal(await page.textContent("#modelSource"), "model: the built-in tape", "the suggested task, approved, follows the tape to its end");
    const recorded = await page.$$eval("#timeline li", (nodes) => nodes.map((n) => n.dataset.kind + " " + n.textContent));
    const [download] = await Promise.all([page.waitForEvent("download"), page.click("#tape")]);
    const file = join(dir, "tape.json");
    await download.saveAs(file);
    const tape = JSON.parse(readFileSync(file, "utf8"));
    assert.equal(tape.format, "clew-cassette");
    assert.equal(tape.meta.app, "clew playground");
    // Back to other files and settings: the tape brings its own.
    await page.click("#reset");
    await page.uncheck("#readOnly");
    // NOTE: the page's state says completed from the first run until the replay starts.
    await page.evaluate(() => { document.body.dataset.state = "loading a tape"; });
    const started = Date.now();
    await page.setInputFiles("#replay", file);
    await page.waitForSelector("body[data-state=completed]");
    const replayMs = Date.now() - started;
    const replayed = await page.$$eval("#timeline li", (nodes) => nodes.map((n) => n.dataset.kind + " " + n.textContent));
    assert.deepEqual(replayed.filter((k) => !k.includes("ask-controls")), recorded.filter((k) => !k.includes("ask-controls")));
    assert.equal(await page.isChecked("#readOnly"), true, "the recorded settings came back");
    assert.equal(await page.textContent("#modelSource"), "model: the tape being replayed");
    assert.ok(replayMs < 5000, `replayed in ${replayMs} ms`);
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("the built-in tape replays in the page to the end it was recorded with", async () => {
  const server = await serve({ "/pkg/": packageDir, "/": join(repoRoot, "www") });
  const browser = await openPlayground(server.url);
  try {
    const { page, errors } = browser;
    await page.uncheck("#readOnly");
    await page.click("#builtinTape");
    await page.waitForSelector("body[data-state=completed], body[data-state=failed]");
    const rows = await page.$$eval("#timeline li", (nodes) => nodes.map((n) => n.dataset.kind + " " + n.textContent));
    const outcome = rows.at(-1);
    assert.match(outcome, /^outcome:completed Completed: I fixed the typos/,
      `${outcome}: if clew's requests changed on purpose, record the tape again (node pkg-tests/support/make-offline-tape.mjs)`);
    assert.equal(await page.isChecked("#readOnly"), true, "the recorded settings came back");
    assert.equal(rows.filter((r) => r.startsWith("ask:tool")).length, 2, "both approvals, answered as recorded");
    assert.ok(rows.some((r) => r.startsWith("ask:followup")), rows.join("\n"));
    assert.equal(await page.isDisabled("#builtinTape"), false);
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
    await server.close();
  }
});

test("with keep in this browser on, a reload at an approval asks it again and a reload mid-stream resumes the reply", async () => {
  const server = await serve({ "/pkg/": packageDir, "/": join(repoRoot, "www") });
  const browser = await openPlayground(server.url);
  try {
    const { page, errors } = browser;
    const api = await page.evaluate(async () => {
      const { Task } = await import("clew");
      return ["restore", "mergeSnapshot"].filter((name) => typeof Task[name] !== "function")
        .concat(["snapshot", "resume"].filter((name) => typeof Task.prototype[name] !== "function").map((name) => `prototype.${name}`));
    });
    assert.deepEqual(api, [], "the browser entry's Task has the durable-task API");
    assert.equal(await page.isVisible("#keepNote"), false);
    await page.check("#persist");
    await page.waitForSelector("body[data-kept=on]");
    assert.equal(await page.isVisible("#keepNote"), true, "the box says what it keeps");
    await page.evaluate(() => { document.body.dataset.delay = "3"; });
    await page.click("#start");

    // 1. Reload at the first approval: the same ask (same ts, tool and text) is asked again.
    await page.waitForSelector(".ask-controls button.approve");
    const ask = await page.$eval("li:has(.ask-controls)", (n) => ({ ts: n.dataset.ts, kind: n.dataset.kind, card: n.querySelector(".tool-card").textContent }));
    assert.equal(ask.kind, "ask:tool");
    assert.match(ask.card, /^replace_in_file/);
    // The ask is stored before it shows; the reply's stream may end after it, which the page
    // stores too (no waiting point comes then): wait for that, so the transcript is final.
    await until(async () => (await stored(page)).messages?.every((m) => !m.partial), "the stored transcript has no partial message");
    const before = await timeline(page);
    const saved = await stored(page);
    assert.equal(saved.history.length, saved.head.historyCount, "one record per history entry");
    assert.equal(saved.messages.length, saved.head.messagesCount, "one record per transcript entry");
    assert.deepEqual(saved.messages.map((m) => String(m.ts)), before.map((r) => r.ts), "every message shown is stored");
    assert.equal(saved.messages.at(-1).ask, "tool");
    assert.match(saved.files["README.md"], /Helo wrold/);
    assert.equal(saved.head.app.settings.taskText, "Fix the typos in the README.");

    await page.reload();
    await page.waitForSelector(".ask-controls button.approve");
    assert.equal(await page.isChecked("#persist"), true, "the box is remembered");
    const again = await page.$eval("li:has(.ask-controls)", (n) => ({ ts: n.dataset.ts, kind: n.dataset.kind, card: n.querySelector(".tool-card").textContent }));
    assert.deepEqual(again, ask, "the same ask is shown again");
    assert.deepEqual((await timeline(page)).map((r) => [r.ts, r.kind, r.text]), before.map((r) => [r.ts, r.kind, r.text]), "the transcript is rebuilt as it was");
    assert.equal(await page.$$eval(".ask-controls", (n) => n.length), 1, "one ask waits");
    assert.match(await page.textContent("#file"), /Helo wrold/);
    await finishTheTask(page);
    assert.match(await page.textContent("#timeline"), /Completed: I fixed the typos/);
    const files = await page.$$eval("#files button", (nodes) => nodes.map((n) => n.textContent));
    assert.ok(files.includes("NOTES.md"), `the approved write made its file: ${files}`);

    // A reload after the end shows the finished task, and resumes nothing.
    const finished = await timeline(page);
    await page.reload();
    await page.waitForSelector("body[data-state=completed]");
    assert.deepEqual((await timeline(page)).map((r) => [r.ts, r.kind]), finished.map((r) => [r.ts, r.kind]));
    assert.equal(await page.$$eval(".ask-controls", (n) => n.length), 0);
    assert.ok((await page.$$eval("#files button", (nodes) => nodes.map((n) => n.textContent))).includes("NOTES.md"), "the files are kept");

    // 2. Reload while the first reply streams: what streamed stays, and the reply goes on.
    await page.click("#reset");
    await page.evaluate(() => { document.body.dataset.delay = "60"; });
    await page.click("#start");
    let streamed;
    await until(async () => {
      streamed = (await stored(page)).messages?.find((m) => m.say === "reasoning" && m.text.length > 12);
      return streamed !== undefined;
    }, "some streamed reasoning is stored");
    assert.equal(await page.$eval("#state", (n) => n.textContent), "stream", "the reply still streams");
    await page.reload();
    await page.waitForSelector(`#timeline li.reasoning[data-ts="${streamed.ts}"]`);
    const keptRow = await page.$eval(`#timeline li[data-ts="${streamed.ts}"] pre`, (n) => n.textContent);
    const reasoning = scriptedReply({ messages: [{ role: "user", content: "<task>\nFix the typos in the README.\n</task>" }] }).reasoning;
    assert.ok(keptRow.length >= streamed.text.length && reasoning.startsWith(keptRow), `the streamed reasoning is kept: ${keptRow}`);
    await page.waitForSelector('li[data-kind="say:error_retry"]');
    await finishTheTask(page);
    const rows = await timeline(page);
    assert.equal(rows.find((r) => r.ts === String(streamed.ts)).text, keptRow, "what streamed before the reload stays as it was");
    assert.equal(rows.filter((r) => r.kind === "say:reasoning").map((r) => r.text).join(""), reasoning, "the reply went on from where it stopped");
    const kinds = rows.map((r) => r.kind);
    assert.equal(kinds.filter((k) => k === "say:tool").length, 2, `list_files and read_file ran once each: ${kinds}`);
    await page.click('#files button[data-path="README.md"]');
    assert.match(await page.textContent("#file"), /Hello world!/);
    assert.match(await page.textContent("#timeline"), /Completed: I fixed the typos/);
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
    await server.close();
  }
});

test("a task's options are locked while it runs and, kept in this browser, show after a reload what it runs with", async () => {
  const server = await serve({ "/pkg/": packageDir, "/": join(repoRoot, "www") });
  const browser = await openPlayground(server.url);
  try {
    const { page, errors } = browser;
    const locked = () => page.$$eval("#provider, #baseUrl, #modelId, #readOnly, #yolo, #parallel, #maxMistakes", (n) => n.filter((c) => c.disabled).map((c) => c.id));
    await page.check("#persist");
    await page.waitForSelector("body[data-kept=on]");
    await page.uncheck("#readOnly");
    await page.fill("#maxMistakes", "5");
    await page.click("#start");

    // Read-only tools are not auto-approved in this task: its first tool asks.
    await page.waitForSelector(".ask-controls button.approve");
    const asked = await page.$eval("li:has(.ask-controls) .tool-name", (n) => n.textContent);
    assert.deepEqual(await locked(), ["provider", "baseUrl", "modelId", "readOnly", "yolo", "parallel", "maxMistakes"]);
    assert.equal(await page.isChecked("#readOnly"), false);

    await page.reload();
    await page.waitForSelector(".ask-controls button.approve");
    assert.equal(await page.$eval("li:has(.ask-controls) .tool-name", (n) => n.textContent), asked, "the restored task asks the same tool");
    assert.equal(await page.isChecked("#readOnly"), false, "the box shows the option the task runs with");
    assert.equal(await page.inputValue("#maxMistakes"), "5");
    assert.equal((await locked()).length, 7, "locked while the restored task runs");

    await page.click("#abort");
    await page.waitForSelector("body[data-state=aborted]");
    assert.deepEqual(await locked(), [], "free for the next task");
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
    await server.close();
  }
});

test("the playground's context settings: a cap truncates, each compaction a row of its own; native where it cannot is refused", async () => {
  const server = await serve({ "/pkg/": packageDir, "/": join(repoRoot, "www") });
  const browser = await openPlayground(server.url);
  try {
    const { page, errors } = browser;
    await page.evaluate(() => { document.body.dataset.delay = "1"; });
    // The offline task's context passes 900 tokens from its fourth request on.
    await page.fill("#maxContextTokens", "900");
    await page.click("#start");
    await until(async () => {
      await page.click(".ask-controls button.approve", { timeout: 100 }).catch(() => {});
      return !!(await page.$('li[data-kind="say:compaction"]'));
    }, "a compaction row shows", 20_000);
    assert.match(await page.textContent('li[data-kind="say:compaction"]'), /^Truncated the conversation: \d+ tokens$/);
    assert.match(await page.textContent('li[data-kind="say:api_req_started"]'), /, context \d+$/, "a request shows the context it produced");
    assert.equal(await page.isDisabled("#strategy"), true, "locked while the task runs");
    await page.click("#abort");
    await page.waitForSelector("li.outcome");
    const dialogs = [];
    page.on("dialog", (dialog) => { dialogs.push(dialog.message()); dialog.dismiss(); });
    await page.selectOption("#strategy", "native");
    await page.click("#start");
    await until(async () => dialogs.length > 0, "the options' error is shown");
    assert.match(dialogs[0], /^CLEW_INVALID_OPTIONS: options\.contextManagement\.strategy "native"/);
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
    await server.close();
  }
});

test("the playground connects an MCP server by URL, lists its tools, and the next task gets them (kept across a reload)", async () => {
  await bundleMcpSdk(); // www/mcp-sdk.js, which scripts/build makes too
  const mcp = await startMcpServer();
  const server = await serve({ "/pkg/": packageDir, "/": join(repoRoot, "www") });
  const elsewhere = await serve({ "/": join(repoRoot, "www") }); // another origin, with no CORS headers
  const browser = await openPlayground(server.url);
  try {
    const { page, errors } = browser;
    const sdkLoaded = () => page.evaluate(() => performance.getEntriesByType("resource").some((e) => e.name.endsWith("/mcp-sdk.js")));
    assert.equal(await sdkLoaded(), false, "the SDK loads only when a server is connected");
    const error = () => page.$eval("#mcpError", (n) => (n.hidden ? "" : n.textContent));
    const connect = (url, name = "") => connectMcp(page, url, name);

    // What goes wrong is said: not a URL, and a server whose origin does not allow this page's.
    await connect("not a url");
    assert.match(await error(), /"not a url" is not a URL/);
    await connect(`${elsewhere.url}mcp`);
    assert.match(await error(), /^Could not connect to http:\/\/127\.0\.0\.1:\d+\/mcp: .*CORS/);
    assert.equal(await page.$$eval("#mcpServers > li", (n) => n.length), 0);

    // Connected: the tools are listed, read-only ones marked. The name comes from the host,
    // or from the name field, made a valid server name.
    await connect(mcp.url);
    await page.waitForSelector('#mcpServers > li[data-server="127_0_0_1"]');
    assert.equal(await error(), "", "a connection clears the last error");
    assert.equal(await sdkLoaded(), true);
    const tools = (name) => page.$$eval(`#mcpServers > li[data-server="${name}"] li[data-tool]`, (nodes) => nodes.map((n) => ({
      name: n.dataset.tool, readOnly: n.querySelector(".badge") !== null, description: n.querySelector(".description")?.textContent ?? "",
    })));
    const listed = await tools("127_0_0_1");
    assert.deepEqual(listed.map((t) => t.name), ["lookup", "write_note", "fail", "picture", "slow"]);
    assert.deepEqual(listed.filter((t) => t.readOnly).map((t) => t.name), ["lookup", "picture"]);
    assert.equal(listed[0].description, "Looks a key up.");
    assert.equal(await page.$eval("#mcpUrl", (n) => n.value), "", "the form is cleared");
    await connect(mcp.url, "Notes, again!");
    await page.waitForSelector('#mcpServers > li[data-server="Notes_again"]');
    // A name is the core's to judge (the TypeError new Task would throw): this one is taken.
    await connect(mcp.url, "Notes_again");
    assert.match(await error(), /^The name "Notes_again" is refused: options\.mcpServers\[2\]\.name must be .*unique among the servers$/);

    // A tool the server adds shows up (notifications/tools/list_changed); Disconnect removes one.
    mcp.addTool("added");
    await page.waitForSelector('#mcpServers > li[data-server="127_0_0_1"] li[data-tool="added"]');
    await page.click('#mcpServers > li[data-server="Notes_again"] button.disconnect');
    assert.deepEqual(await page.$$eval("#mcpServers > li", (nodes) => nodes.map((n) => n.dataset.server)), ["127_0_0_1"]);

    // The next task has the server: the offline model names the tools its system prompt lists.
    await page.check("#persist");
    await page.waitForSelector("body[data-kept=on]");
    await page.evaluate(() => { document.body.dataset.delay = "3"; });
    await page.click("#start");
    const sentence = "I can also use the tools of the MCP server 127_0_0_1 (lookup, write_note, fail, picture, slow, added)";
    await page.waitForFunction((text) => document.querySelector("#timeline").textContent.includes(text), sentence);
    assert.ok(!(await page.textContent("#timeline")).includes("Notes_again"), "a disconnected server is not in the task");
    // The server's tools changed the system prompt: the built-in tape does not have that request.
    assert.match(await page.textContent("#modelSource"), /^model: script from request 1 \(differs at \$\.system\b/);

    // Kept in this browser: after a reload the task's server is connected again, and the task goes on.
    await page.waitForSelector(".ask-controls button.approve");
    await page.reload();
    await page.waitForSelector(".ask-controls button.approve");
    assert.equal(await page.textContent("#modelSource"), "model: script (a restored task)");
    assert.deepEqual(await page.$$eval("#mcpServers > li", (nodes) => nodes.map((n) => n.dataset.server)), ["127_0_0_1"]);
    assert.equal((await tools("127_0_0_1")).length, 6);
    assert.equal(await error(), "");
    await finishTheTask(page);
    assert.deepEqual(mcp.calls, [], "the offline model calls no MCP tool");
    mkdirSync(OUTPUT, { recursive: true });
    await page.screenshot({ path: join(OUTPUT, "playground-mcp.png"), fullPage: true });
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
    await elsewhere.close();
    await server.close();
    await mcp.close();
  }
});

test("in the playground a model calls a connected MCP server's tools: a read-only one at once, another once approved", async () => {
  await bundleMcpSdk();
  const mcp = await startMcpServer();
  const call = (tool, args) => `\n\n<use_mcp_tool>\n<server_name>notes</server_name>\n<tool_name>${tool}</tool_name>\n<arguments>${JSON.stringify(args)}</arguments>\n</use_mcp_tool>`;
  const model = await scriptedModel([
    `I'll look the key up.${call("lookup", { key: "colour" })}`,
    `Now I'll save a note.${call("write_note", { text: "colour is known" })}`,
    "Done.\n\n<attempt_completion>\n<result>The note is saved.</result>\n</attempt_completion>",
  ]);
  const server = await serve({ "/pkg/": packageDir, "/": join(repoRoot, "www") });
  const browser = await openPlayground(server.url);
  try {
    const { page, errors } = browser;
    await connectMcp(page, mcp.url, "notes");
    await page.waitForSelector('#mcpServers > li[data-server="notes"] li[data-tool="lookup"]');
    await startWithModel(page, model.url, "Note down what colour is.");

    // lookup is read-only ("auto-approve read-only tools" is on): it runs without asking.
    // write_note asks, with the server, the tool and its arguments; approved, it runs.
    const ask = await page.waitForSelector('li[data-kind="ask:use_mcp_server"] .ask-controls button.approve');
    const said = await page.$eval('li[data-kind="say:use_mcp_server"] .tool-card', (n) => n.textContent);
    assert.match(said, /^notes › lookup read-only\s*arguments\{\s*"key": "colour"\s*\}$/);
    const card = await page.$eval('li[data-kind="ask:use_mcp_server"] .tool-card', (n) => n.textContent);
    assert.match(card, /^notes › write_note\s*arguments\{\s*"text": "colour is known"\s*\}$/);
    assert.deepEqual(mcp.notes, [], "nothing is written before the approval");
    await ask.click();
    await page.waitForSelector(".ask-controls button.accept");
    await page.click(".ask-controls button.accept");
    await page.waitForSelector("body[data-state=completed]");
    assert.deepEqual(mcp.calls, [{ name: "lookup", arguments: { key: "colour" } }, { name: "write_note", arguments: { text: "colour is known" } }]);
    assert.deepEqual(mcp.notes, ["colour is known"]);
    const responses = await page.$$eval('li[data-kind="say:mcp_server_response"]', (nodes) => nodes.map((n) => n.textContent));
    assert.deepEqual(responses, ["value of colour", "saved"]);

    // The model was told of the server in its system prompt, and got the results.
    const system = model.received[0].messages[0];
    assert.equal(system.role, "system");
    assert.match(system.content, /^# MCP servers$/m);
    assert.match(system.content, /^## notes$/m);
    assert.match(system.content, /^- write_note: Saves a note\.$/m);
    assert.match(JSON.stringify(model.received[1].messages.at(-1)), /value of colour/);
    assert.match(JSON.stringify(model.received[2].messages.at(-1)), /saved/);
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
    await server.close();
    await model.close();
    await mcp.close();
  }
});

test("the playground's picker runs a task on OpenAI Responses and on Gemini", async () => {
  const { responsesReply, geminiReply } = await import("./support/providers-replies.mjs");
  const { startModelServer } = await import("./support/sse-server.mjs");
  const done = "Done.\n<attempt_completion>\n<result>hello</result>\n</attempt_completion>";
  const cases = [
    ["openai-responses", "/responses", responsesReply({ round: 1, text: done }), (body) => body.input],
    ["gemini", "/models/scripted:streamGenerateContent?alt=sse", geminiReply({ round: 1, text: done }), (body) => body.contents],
  ];
  const server = await serve({ "/pkg/": packageDir, "/": join(repoRoot, "www") });
  try {
    for (const [format, path, reply, conversation] of cases) {
      const model = await startModelServer({ [path]: [reply] });
      const browser = await openPlayground(server.url);
      try {
        const { page, errors } = browser;
        await page.selectOption("#provider", format);
        await page.fill("#baseUrl", model.url);
        await page.fill("#modelId", "scripted");
        await page.fill("#apiKey", "test-key");
        await page.fill("#taskText", "Say hello.");
        await page.click("#start");
        await page.waitForSelector(".ask-controls button.accept");
        await page.click(".ask-controls button.accept");
        await page.waitForSelector("body[data-state=completed]");
        const received = model.received.filter((r) => r.path === path);
        assert.equal(received.length, 1, format);
        assert.match(JSON.stringify(conversation(received[0].body)), /Say hello\./);
        assert.deepEqual(errors, []);
      } finally {
        await browser.close();
        await model.close();
      }
    }
  } finally {
    await server.close();
  }
});
