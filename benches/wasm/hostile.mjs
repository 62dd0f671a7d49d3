// node benches/wasm/hostile.mjs PKG_DIR: time on hostile input stays linear. Each shape runs at a
// size and at ten times that size; the last column is the ratio of time per byte (about 1
// when linear; a quadratic shape would show about 10).
import { pathToFileURL } from "node:url";
import { join } from "node:path";

const clew = await import(pathToFileURL(join(process.argv[2], "node.js")).href);
const encoder = new TextEncoder();

function time(f) {
  let best = Infinity;
  for (let i = 0; i < 3; i++) {
    const start = performance.now();
    f();
    best = Math.min(best, performance.now() - start);
  }
  return best;
}

const sse = (events) => encoder.encode(events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join(""));

const shapes = [
  ["parser: a thousand unclosed tags per 10 KB", (n) => "<read_file><path>".repeat(n / 17), (text) => clew.parseAssistantMessage(text)],
  ["parser: deep nesting of unknown tags", (n) => "<a>".repeat(n / 3), (text) => clew.parseAssistantMessage(text)],
  ["parser pushes: one line of 1 MB in 100 B chunks", (n) => "x".repeat(n), (text) => {
    const parser = new clew.AssistantMessageParser();
    for (let i = 0; i < text.length; i += 100) parser.push(text.slice(i, i + 100));
    parser.free();
  }],
  ["decoder: one SSE line of n bytes", (n) => encoder.encode(`data: {"choices":[{"index":0,"delta":{"content":"${"y".repeat(n)}"}}]}\n\n`), (bytes) => {
    const decoder = new clew.StreamDecoder("openai");
    decoder.push(bytes);
    decoder.free();
  }],
  ["decoder: deeply nested JSON in a line", (n) => encoder.encode(`data: {"x":${"[".repeat(n / 2)}${"]".repeat(n / 2)}}\n\n`), (bytes) => {
    const decoder = new clew.StreamDecoder("openai");
    try { decoder.push(bytes); } catch {}
    decoder.free();
  }],
  ["decoder: events opening many tool-call indexes", (n) => sse(Array.from({ length: n / 80 }, (_, i) => ({ choices: [{ index: 0, delta: { tool_calls: [{ index: i, id: `c${i}`, function: { name: "t", arguments: "{}" } }] } }] }))), (bytes) => {
    const decoder = new clew.StreamDecoder("openai");
    decoder.push(bytes);
    decoder.free();
  }],
  ["assembler: many distinct call ids", (n) => Array.from({ length: n / 60 }, (_, i) => ({ tool_call: { call_id: `c${i}`, function: { id: `c${i}`, name: "t", arguments: "{}" } } })), (pieces) => {
    const assembler = new clew.ToolCallAssembler();
    for (const piece of pieces) assembler.push(piece);
    assembler.free();
  }],
  ["assembler: one arguments object with many members", (n) => {
    const members = Array.from({ length: n / 12 }, (_, i) => `"k${i}":${i}`).join(",");
    return [{ tool_call: { call_id: "c", function: { id: "c", name: "t", arguments: `{${members}}` } } }];
  }, (pieces) => {
    const assembler = new clew.ToolCallAssembler();
    for (const piece of pieces) assembler.push(piece);
    assembler.free();
  }],
  ["tool set: many parameter names", (n) => ({ tools: ["t"], params: Array.from({ length: Math.min(n / 8, 60000) }, (_, i) => `p${i}`) }), (spec) => {
    new clew.AssistantMessageParser(spec).free();
  }],
];

const SIZE = 100_000;
console.log("| shape | n = 100 KB | n = 1 MB | per byte, 1 MB / 100 KB |\n|---|---|---|---|");
for (const [name, make, run] of shapes) {
  const small = make(SIZE), large = make(SIZE * 10);
  const a = time(() => run(small)), b = time(() => run(large));
  console.log(`| ${name} | ${a.toFixed(2)} ms | ${b.toFixed(2)} ms | ${(b / a / 10).toFixed(2)} |`);
}
