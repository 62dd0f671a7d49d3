// The front door (issue 43): every fenced JavaScript example of README.md and js/README.md
// runs, as written, against the installed package. The blocks are read from the markdown at
// test time. Each is written to a folder under pkg-tests/ (so `import "clew"` is the installed
// package) and run in its own Node process after support/front-door-prelude.mjs, which gives
// what the examples leave free (apiKey, files, model, tools, say, ask, save/load, tape, …; an
// offline fetch: a scripted Anthropic model, and the MCP test server for *.example.com) and
// records every task started; the run fails when the example throws, when an assertion of its
// own fails, or when a task it started or resumed does not end `completed`. An example that
// imports node:test runs twice under `node --test` (the first run may record what the second
// replays); one written for the browser entry (it awaits `ready`) runs in Chromium as well.
// A block marked `<!-- fragment: why -->` on the line before its fence is not run.
// Run by scripts/test's front-door step (`node --test front-door-*.mjs`).
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isPageCode, jsBlocks, runExample, writeExample } from "./support/front-door-readme.mjs";
import { here, packageDir, repoRoot } from "./support/package-dir.mjs";
import { serve } from "./support/static-server.mjs";
import { openPlayground } from "./support/playground.mjs";

const blocks = ["README.md", join("js", "README.md")].flatMap((file) => jsBlocks(join(repoRoot, file), file));
const work = mkdtempSync(join(here, ".tmp-front-door-"));
let failed = false;

test("the READMEs have JavaScript examples, and each fragment says why it is one", () => {
  assert.ok(blocks.filter((b) => b.name.startsWith("README.md")).length >= 5, "README.md's examples were found");
  assert.ok(blocks.filter((b) => b.name.startsWith("js/")).length >= 2, "js/README.md's examples were found");
  for (const block of blocks.filter((b) => b.fragment !== undefined)) assert.ok(block.fragment.length > 0, `${block.name}: a fragment says why`);
  assert.ok(blocks.filter((b) => b.fragment === undefined).length > blocks.length / 2, "most examples run");
});

blocks.forEach((block, index) => {
  const skip = block.fragment !== undefined && `a fragment: ${block.fragment}`;
  test(`${block.name} runs in Node`, { skip }, async (t) => {
    const dir = join(work, String(index));
    writeExample(dir, block.code);
    try {
      const outputs = await runExample(dir, block.code);
      t.diagnostic(outputs.map((out) => out.split("\n").find((line) => line.startsWith("front-door:") || line.startsWith("# pass")) ?? "").join("; "));
    } catch (error) {
      failed = true;
      throw error;
    }
  });

  if (!skip && isPageCode(block.code)) {
    test(`${block.name} runs in a page (Chromium, the browser entry)`, async () => {
      const dir = join(work, `${index}-page`);
      writeExample(dir, block.code);
      writeFileSync(join(dir, "index.html"), `<!doctype html>
<script type="importmap">{ "imports": { "clew": "/pkg/browser.js" } }</script>
<script type="module">
  import("./example.mjs").then(
    () => { document.body.dataset.ran = "ok"; },
    (error) => { document.body.dataset.ran = String(error?.stack ?? error); },
  ).finally(() => { document.body.dataset.state = "ready"; });
</script>
<p>The README example runs here.</p>`);
      const server = await serve({ "/pkg/": packageDir, "/": dir });
      try {
        const browser = await openPlayground(server.url);
        try {
          assert.equal(await browser.page.getAttribute("body", "data-ran"), "ok");
          assert.deepEqual(browser.errors, []);
        } finally {
          await browser.close();
        }
      } finally {
        await server.close();
      }
    });
  }
});

test.after(() => {
  // Kept when something failed, to look at what ran.
  if (!failed) rmSync(work, { recursive: true, force: true });
  else console.log(`# the examples as run are in ${work}`);
});
