// OpenAI Responses and Gemini through the installed package (issue 29), in Node, Chromium
// and workerd, against a scripted server: a multi-round task with a tool whose reasoning and
// signatures travel back, an incomplete reply, a failed response (retried), and a request
// that a retry cannot help (a blocked prompt, an exhausted quota: asked, never retried).
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { chromium } from "playwright-core";
import { Miniflare } from "miniflare";
import { Task, readModelStream } from "clew";
import { here, packageDir, entryFor, workerOptions } from "./support/package-dir.mjs";
import { serve } from "./support/static-server.mjs";
import { startModelServer } from "./support/sse-server.mjs";
import { responsesReply, geminiReply } from "./support/providers-replies.mjs";
import { runProviderTask, decodeBody } from "./support/providers-runner.mjs";

const PATHS = { "openai-responses": "/responses", gemini: "/models/m-test:streamGenerateContent?alt=sse" };
const reply = (format, options) => (format === "gemini" ? geminiReply : responsesReply)(options);
const completion = (format, round) => reply(format, {
  round, text: "Done.", call: { id: `call_${round}`, name: "attempt_completion", args: { result: "read a.md" } },
});

/** Each scenario: the replies it scripts, and what the run and the requests must show. */
const SCENARIOS = {
  "a multi-round task carries reasoning and signatures": {
    replies: (format) => [
      reply(format, { round: 1, text: "Reading a.md.", call: { id: "call_1", name: "read_file", args: { path: "a.md" } } }),
      completion(format, 2),
    ],
    check(format, run, received) {
      assert.equal(run.outcome.status, "completed", JSON.stringify(run));
      assert.equal(received.length, 2);
      const second = received[1];
      if (format === "openai-responses") {
        const input = second.body.input;
        assert.deepEqual(input.map((item) => item.type ?? item.role), ["user", "reasoning", "message", "function_call", "function_call_output"]);
        assert.deepEqual(input[1], { type: "reasoning", summary: [{ type: "summary_text", text: "Plan 1." }], encrypted_content: "ZW5j-1" });
        assert.equal(input[2].phase, "commentary");
        assert.equal(input[4].call_id, "call_1");
        assert.match(input[4].output, /contents of a\.md/);
        assert.equal(second.body.store, false);
        assert.deepEqual(second.body.include, ["reasoning.encrypted_content"]);
        assert.doesNotMatch(JSON.stringify(second.body), /"id":|rs_1|msg_1|fc_/);
        assert.equal(second.headers.authorization, "Bearer test-key");
      } else {
        const [, model, user] = second.body.contents;
        assert.deepEqual(model.parts, [
          { text: "Plan 1.", thought: true, thoughtSignature: "dGhvdWdodA-1" },
          { text: "Reading a.md." },
          { functionCall: { name: "read_file", args: { path: "a.md" } }, thoughtSignature: "Y2FsbA-1" },
        ]);
        assert.equal(user.parts[0].functionResponse.name, "read_file");
        assert.match(user.parts[0].functionResponse.response.output, /contents of a\.md/);
        assert.equal(second.headers["x-goog-api-key"], "test-key");
        assert.doesNotMatch(second.path, /key=/);
      }
      // Usage: cached input apart, reasoning inside the output, never added twice.
      const expected = format === "gemini" ? { inputTokens: 200, outputTokens: 60 } : { inputTokens: 120, outputTokens: 60 };
      assert.equal(run.usage.inputTokens, expected.inputTokens);
      assert.equal(run.usage.outputTokens, expected.outputTokens);
    },
  },
  "an incomplete reply ends its round and the task goes on": {
    replies: (format) => [
      reply(format, { round: 1, text: "Thinking about it", end: format === "gemini" ? "MAX_TOKENS" : "incomplete" }),
      completion(format, 2),
    ],
    check(format, run, received) {
      assert.equal(run.outcome.status, "completed", JSON.stringify(run));
      assert.equal(received.length, 2);
      assert.match(JSON.stringify(received[1].body), /Thinking about it/);
    },
  },
  "a failed response is retried": {
    replies: (format) => [reply(format, { round: 1, text: "", end: format === "gemini" ? "unavailable" : "failed" }), completion(format, 2)],
    check(format, run, received) {
      assert.equal(run.outcome.status, "completed", JSON.stringify(run));
      assert.equal(received.length, 2);
      assert.deepEqual(run.asks.filter((ask) => ask === "api_req_failed"), []);
      assert.ok(run.says.some((m) => m.say === "error_retry"), JSON.stringify(run.says));
    },
  },
  "a request no retry can help is asked about, never retried": {
    replies: (format) => [format === "gemini"
      ? geminiReply({ round: 1, end: "blocked" })
      : `data: ${JSON.stringify({ type: "error", code: "insufficient_quota", message: "You exceeded your current quota." })}\n\n`],
    check(format, run, received) {
      assert.notEqual(run.outcome.status, "completed");
      assert.equal(received.length, 1, "never retried");
      assert.deepEqual(run.asks, ["api_req_failed"]);
    },
  },
};

/** Runs every scenario in both formats with `run(args)` (a runtime's way to run a task). */
async function everyScenario(run) {
  for (const format of ["openai-responses", "gemini"]) {
    for (const [name, scenario] of Object.entries(SCENARIOS)) {
      const upstream = await startModelServer({ [PATHS[format]]: scenario.replies(format) });
      try {
        const result = await run({ format, baseUrl: upstream.url, text: "Read a.md" });
        const received = upstream.received.filter((r) => r.path === PATHS[format]);
        try {
          scenario.check(format, result, received);
        } catch (error) {
          error.message = `${format}, ${name}: ${error.message}`;
          throw error;
        }
      } finally {
        await upstream.close();
      }
    }
  }
}

test("Node: both formats run every scenario", async () => {
  await everyScenario((args) => runProviderTask(Task, args));
});

test("Node: readModelStream gives the new chunks (reasoning's end, a text part's end, stop reasons)", async () => {
  const responses = await decodeBody(readModelStream, responsesReply({ round: 1, text: "Hi", end: "incomplete" }), "openai-responses");
  assert.deepEqual(responses.chunks.find((c) => c.type === "reasoning" && c.encrypted_content),
    { type: "reasoning", reasoning: "", encrypted_content: "ZW5j-1", summary: ["Plan 1."] });
  assert.deepEqual(responses.chunks.find((c) => c.type === "text_end"), { type: "text_end", phase: "commentary" });
  assert.deepEqual(responses.chunks.at(-1), { type: "stop", reason: "max_tokens", raw: "max_output_tokens" });
  assert.deepEqual(responses.chunks.find((c) => c.type === "usage"),
    { type: "usage", inputTokens: 60, outputTokens: 30, cacheReadTokens: 40, reasoningTokens: 20 });
  const gemini = await decodeBody(readModelStream, geminiReply({ round: 1, text: "Hi", call: { name: "read_file", args: {} } }), "gemini");
  const call = gemini.chunks.find((c) => c.type === "tool_calls");
  assert.equal(call.tool_call.signature, "Y2FsbA-1");
  assert.equal(call.tool_call.function.arguments, "{}");
  assert.equal(gemini.chunks.find((c) => c.type === "reasoning").signature, "dGhvdWdodA-1");
  const blocked = await decodeBody(readModelStream, geminiReply({ round: 1, end: "blocked" }), "gemini");
  assert.deepEqual(blocked.error, { code: "CLEW_PROVIDER_ERROR", kind: "prompt_blocked", retryable: false });
});

test("Chromium: both formats run every scenario in a page", async () => {
  const server = await serve({ "/pkg/": packageDir, "/tests/": join(here, "support") });
  const profile = mkdtempSync(join(tmpdir(), "clew-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium", headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"],
  });
  try {
    const page = await context.newPage();
    const errors = [];
    page.on("pageerror", (error) => errors.push(error.message));
    await page.goto(server.url + "pkg/package.json");
    const entry = relative(packageDir, entryFor(["browser", "import"])).split("\\").join("/");
    await everyScenario((args) => page.evaluate(async ({ entry, args }) => {
      const { Task } = await import(`/pkg/${entry}`);
      const { runProviderTask } = await import("/tests/providers-runner.mjs");
      return runProviderTask(Task, args);
    }, { entry, args }));
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
    await server.close();
    rmSync(profile, { recursive: true, force: true });
  }
});

test("workerd: both formats run every scenario in a Worker", async () => {
  const dir = mkdtempSync(join(here, ".tmp-providers-"));
  try {
    const entry = relative(dir, entryFor(["workerd", "worker", "browser"])).split("\\").join("/");
    writeFileSync(join(dir, "worker.mjs"), `
      import { Task } from "./${entry}";
      import { runProviderTask } from "../support/providers-runner.mjs";
      export default {
        async fetch(request) {
          return Response.json(await runProviderTask(Task, await request.json()));
        },
      };`);
    const mf = new Miniflare(workerOptions(join(dir, "worker.mjs")));
    try {
      const url = await mf.ready;
      await everyScenario(async (args) => (await fetch(url, { method: "POST", body: JSON.stringify(args) })).json());
    } finally {
      await mf.dispose();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
