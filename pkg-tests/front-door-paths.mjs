// The front door (issue 43): every repository path the scripts name exists. A helper moved
// without its scripts (scripts/demo naming pkg-tests/static-server.mjs after it went to
// support/) fails here, naming the script, its line and the path. What counts as a named path,
// and which are build outputs left out, is in support/front-door-paths.mjs.
// Run by scripts/test's front-door step (`node --test front-door-*.mjs`), not by the plain
// `node --test` of the package step.
import { test } from "node:test";
import assert from "node:assert/strict";
import { missingPaths, namedPaths, scriptFiles, topLevel } from "./support/front-door-paths.mjs";
import { repoRoot } from "./support/package-dir.mjs";

test("every path that scripts/ and .ci/run name exists (build outputs aside)", () => {
  const top = topLevel(repoRoot);
  const named = scriptFiles(repoRoot).flatMap((file) => namedPaths(repoRoot, file, top));
  // The reader sees the cases that broke or could: an inline `node -e` import, a script's
  // module import, a glob-free argument of a heredoc's prose, a bare test file name.
  const seen = (file, path) => named.some((n) => n.file === file && n.path.replace(/^\.\//, "") === path);
  assert.ok(seen("scripts/demo", "pkg-tests/support/static-server.mjs"), "the extractor reads scripts/demo's inline node -e import");
  assert.ok(seen("scripts/demo-cli.mjs", "../www/workspace.js"), "the extractor reads an .mjs script's imports");
  assert.ok(seen("scripts/test", "node.test.mjs"), "the extractor reads bare test file names");

  const missing = missingPaths(repoRoot, named);
  assert.deepEqual(missing.map(({ file, line, path, tried }) => `${file}:${line} names ${path} (looked for ${tried.join(", ")})`), [],
    "paths named by scripts that do not exist");
});
