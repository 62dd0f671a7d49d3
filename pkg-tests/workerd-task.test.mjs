// A Task inside a Cloudflare Worker (workerd, through miniflare): the Worker runs a task
// against an SSE upstream (a local server) and streams its say messages back to the client.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync, rmSync } from "node:fs";
import { join, relative } from "node:path";
import { Miniflare } from "miniflare";
import { here, entryFor, workerOptions } from "./support/package-dir.mjs";
import { anthropicReply, startModelServer } from "./support/sse-server.mjs";

test("a Worker runs a Task against an SSE upstream and streams its messages", async () => {
  const upstream = await startModelServer({
    "/v1/messages": [
      anthropicReply("Reading.\n<read_file>\n<path>a.md</path>\n</read_file>"),
      anthropicReply("Done.\n<attempt_completion>\n<result>read a.md</result>\n</attempt_completion>"),
    ],
  });
  const dir = mkdtempSync(join(here, ".tmp-worker-"));
  try {
    const entry = relative(dir, entryFor(["workerd", "worker", "browser"])).split("\\").join("/");
    writeFileSync(join(dir, "worker.mjs"), `
      import { Task } from "./${entry}";
      export default {
        async fetch(request) {
          const { upstream, text } = await request.json();
          const { readable, writable } = new TransformStream();
          const writer = writable.getWriter();
          const encoder = new TextEncoder();
          const send = (value) => writer.write(encoder.encode(JSON.stringify(value) + "\\n"));
          const task = new Task({
            model: { format: "anthropic", id: "claude-test", baseUrl: upstream },
            tools: [{ name: "read_file", readOnly: true, parameters: [{ name: "path", required: true }],
                      execute: ({ path }) => "contents of " + path }],
            autoApprove: { readOnly: true },
            say: (m) => { if (!m.partial) send({ say: m.say, text: m.text }); },
            ask: (m) => { if (!m.partial) send({ ask: m.ask }); return { response: "yesButtonClicked" }; },
          });
          task.start(text).then((outcome) => { send({ outcome }); writer.close(); });
          return new Response(readable, { headers: { "content-type": "application/x-ndjson" } });
        },
      };`);
    const mf = new Miniflare(workerOptions(join(dir, "worker.mjs")));
    try {
      const url = await mf.ready;
      const response = await fetch(url, { method: "POST", body: JSON.stringify({ upstream: upstream.url, text: "read a.md" }) });
      assert.equal(response.status, 200);
      const lines = (await response.text()).trim().split("\n").map((l) => JSON.parse(l));
      assert.deepEqual(lines.at(-1), { outcome: { status: "completed", result: "read a.md" } });
      const says = lines.filter((l) => l.say).map((l) => l.say);
      assert.ok(says.includes("tool") && says.includes("completion_result"), JSON.stringify(lines));
      assert.equal(upstream.received.length, 2);
      assert.match(JSON.stringify(upstream.received[1].body.messages), /contents of a\.md/);
    } finally {
      await mf.dispose();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await upstream.close();
  }
});
