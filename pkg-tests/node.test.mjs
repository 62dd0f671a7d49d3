// The installed package, imported by name from Node ESM, against the reference vectors.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createRequire } from "node:module";
import { parseAssistantMessage, AssistantMessageParser } from "clew";
import { repoRoot, packageDir, entryFor } from "./support/package-dir.mjs";

const vectors = readFileSync(join(repoRoot, "tests/fixtures/parse-v2.jsonl"), "utf8")
  .split("\n").filter(Boolean).map((line) => JSON.parse(line));

const sortParams = (blocks) => blocks.map((b) => (b.type === "tool_use"
  ? { ...b, params: Object.fromEntries(Object.entries(b.params).sort(([a], [b]) => (a < b ? -1 : 1))) } : b));

test("the node condition resolves to the node entry", () => {
  const resolved = createRequire(import.meta.url).resolve("clew/package.json");
  assert.equal(resolved, join(packageDir, "package.json"));
  assert.equal(import.meta.resolve("clew"), new URL(`file://${join(packageDir, "node.js")}`).href);
  assert.equal(createRequire(import.meta.url).resolve("clew"), join(packageDir, "index.cjs"));
});

test("each runtime and bundler condition picks its entry", () => {
  const cases = [
    [["workerd", "worker", "browser", "import"], "workerd.js"],
    [["edge-light", "browser", "import"], "edge-light.js"],
    [["browser", "import", "module"], "browser.js"],
    [["node", "import"], "node.js"],
    [["node", "require"], "index.cjs"],
    [["require"], "index.cjs"],
    [["import", "module"], "inline.js"],
    [[], "inline.js"],
  ];
  for (const [conditions, file] of cases) assert.equal(entryFor(conditions), join(packageDir, file), conditions.join(","));
  assert.equal(entryFor(["browser", "import"], "./inline"), join(packageDir, "inline.js"));
  assert.equal(entryFor(["require"], "./inline"), join(packageDir, "index.cjs"));
});

test("every reference vector parses the same through the package", () => {
  assert.equal(vectors.length, 7005);
  for (const v of vectors) assert.deepEqual(sortParams(parseAssistantMessage(v.input)), sortParams(v.blocks), v.id);
});

test("streamed one UTF-16 unit at a time, blocks equal the whole parse of each prefix", () => {
  for (const v of vectors.filter((v) => !v.id.includes("@"))) {
    const parser = new AssistantMessageParser();
    for (let i = 0; i < v.input.length; i++) {
      const first = parser.push(v.input[i]);
      assert.ok(first <= parser.length);
      const code = v.input.charCodeAt(i);
      if (code >= 0xd800 && code <= 0xdbff) continue; // half a pair: held for the next push
      assert.deepEqual(parser.blocks(), parseAssistantMessage(v.input.slice(0, i + 1)), `${v.id} at ${i + 1}`);
    }
    assert.equal(parser.text(), v.input);
    assert.deepEqual(sortParams(parser.blocks()), sortParams(v.blocks), v.id);
  }
});

test("a surrogate pair split between chunks is rejoined; finish() flushes a lone half", () => {
  const parser = new AssistantMessageParser();
  const crab = "\u{1F980}";
  parser.push(`a${crab[0]}`);
  assert.equal(parser.text(), "a");
  parser.push(`${crab[1]}b <read_file><path>${crab[0]}`);
  parser.push(`${crab[1]}</path></read_file>`);
  assert.equal(parser.text(), `a${crab}b <read_file><path>${crab}</path></read_file>`);
  assert.deepEqual(parser.block(1).params, { path: crab });
  parser.push(`x${crab[0]}`);
  assert.equal(parser.finish(), 2);
  assert.equal(parser.text().slice(-2), "x\uFFFD");
  assert.throws(() => parser.push(42), (e) => e instanceof TypeError && e.code === "CLEW_INVALID_ARGUMENT");
});

test("push returns the first changed index and block(i) reads one block", () => {
  const parser = new AssistantMessageParser();
  assert.equal(parser.push("Checking <read_"), 0);
  assert.equal(parser.push("file><path>a.md"), 0);
  assert.equal(parser.length, 2);
  assert.equal(parser.push("</path>  "), 1);
  assert.deepEqual(parser.block(1), { type: "tool_use", name: "read_file", params: { path: "a.md" }, partial: true, isNativeToolCall: false });
  assert.equal(parser.push("  "), 2);
  assert.equal(parser.block(5), undefined);
});

test("a custom tool set recognises exactly its tags; a bad one throws a coded TypeError", () => {
  const tools = { tools: ["lookup"], params: ["term"] };
  assert.deepEqual(parseAssistantMessage("<lookup><term>x</term></lookup><read_file>", tools), [
    { type: "tool_use", name: "lookup", params: { term: "x" }, partial: false, isNativeToolCall: false },
    { type: "text", content: "<read_file>", partial: true },
  ]);
  assert.throws(() => new AssistantMessageParser({ tools: ["no spaces"], params: [] }),
    (e) => e instanceof TypeError && e.code === "CLEW_INVALID_TOOL_SET");
  assert.throws(() => parseAssistantMessage("x", { tools: 3 }), (e) => e instanceof TypeError && e.code === "CLEW_INVALID_ARGUMENT");
});
