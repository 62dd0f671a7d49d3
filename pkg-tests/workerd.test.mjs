// The installed package inside a Cloudflare Worker (workerd, through miniflare), loaded
// through its `workerd` export condition as wrangler would pick it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync, rmSync } from "node:fs";
import { join, relative } from "node:path";
import { Miniflare } from "miniflare";
import { here, entryFor, workerOptions } from "./support/package-dir.mjs";

test("a Worker parses a streamed request body with the package", async () => {
  const dir = mkdtempSync(join(here, ".tmp-worker-"));
  try {
    const entry = relative(dir, entryFor(["workerd", "worker", "browser"])).split("\\").join("/");
    assert.match(entry, /workerd\.js$/);
    writeFileSync(join(dir, "worker.mjs"), `
      import { AssistantMessageParser, parseAssistantMessage } from "./${entry}";
      export default {
        async fetch(request) {
          const parser = new AssistantMessageParser();
          const reader = request.body.pipeThrough(new TextDecoderStream()).getReader();
          let pushes = 0;
          for (;;) {
            const { value, done } = await reader.read();
            if (done) break;
            parser.push(value);
            pushes++;
          }
          return Response.json({ pushes, blocks: parser.blocks(), whole: parseAssistantMessage(parser.text()) });
        },
      };`);
    const mf = new Miniflare(workerOptions(join(dir, "worker.mjs")));
    try {
      const url = await mf.ready;
      const message = "Let me look.\n<read_file>\n<path>src/main.rs</path>\n</read_file>\n" + "tail ".repeat(4000);
      const body = new ReadableStream({
        start(c) { const e = new TextEncoder(); for (let i = 0; i < message.length; i += 997) c.enqueue(e.encode(message.slice(i, i + 997))); c.close(); },
      });
      const response = await fetch(url, { method: "POST", body, duplex: "half" });
      assert.equal(response.status, 200, await response.clone().text());
      const result = await response.json();
      assert.ok(result.pushes >= 1);
      assert.deepEqual(result.blocks, result.whole);
      assert.deepEqual(result.blocks.slice(0, 2), [
        { type: "text", content: "Let me look.", partial: false },
        { type: "tool_use", name: "read_file", params: { path: "src/main.rs" }, partial: false, isNativeToolCall: false },
      ]);
      assert.equal(result.blocks[2].content, "tail ".repeat(4000).trim());
    } finally {
      await mf.dispose();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
