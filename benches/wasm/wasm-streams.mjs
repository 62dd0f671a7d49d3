// wasm-in-Node stream-decoding benchmarks (run by scripts/bench; prints markdown). Each
// body is fed in 4 KiB Uint8Array pieces, as a fetch body arrives, to:
//   clew:     StreamDecoder.push(bytes) -> chunk objects (SSE framing, typed JSON, chunk shape)
//   baseline: plain JS, TextDecoder (streaming) + line split + JSON.parse of each data line
// Times are the minimum over repeated runs (wall clock, one thread).
import { readFileSync } from "node:fs";
import { minTime } from "./timing.mjs";

const [pkgDir, fixtures] = process.argv.slice(2);
const { StreamDecoder } = await import(`${pkgDir}/node.js`);
// The bench-only export lives in the bindings (initialised by the entry above).
const { benchDecodeOnly } = await import(`${pkgDir}/clew.js`);
const PIECE = 4096;
// The bodies and their formats (benches/fixtures; the Responses and Gemini ones are written by
// make-provider-bodies.mjs).
const BODIES = [
  ["sse-anthropic-5000", "anthropic"],
  ["sse-openai-5000", "openai"],
  ["sse-responses-5000", "openai-responses"],
  ["sse-gemini-5000", "gemini"],
];


function jsBaseline(pieces) {
  const decoder = new TextDecoder();
  const events = [];
  let rest = "";
  for (const piece of pieces) {
    const lines = (rest + decoder.decode(piece, { stream: true })).split(/\r\n|\r|\n/);
    rest = lines.pop();
    for (const line of lines) {
      if (line.startsWith("data: ") && line !== "data: [DONE]") events.push(JSON.parse(line.slice(6)));
    }
  }
  return events;
}

console.log("| body | clew StreamDecoder | per chunk | of which decoding inside wasm | plain JS baseline | clew / baseline |");
console.log("|---|---|---|---|---|---|");
for (const [name, format] of BODIES) {
  const body = new Uint8Array(readFileSync(`${fixtures}/${name}.txt`));
  const pieces = [];
  for (let at = 0; at < body.length; at += PIECE) pieces.push(body.subarray(at, at + PIECE));
  let count = 0;
  const clew = minTime(60, () => {
    const decoder = new StreamDecoder(format);
    count = 0;
    for (const piece of pieces) count += decoder.push(piece).length;
    count += decoder.finish().length;
    decoder.free();
  });
  const baseline = minTime(60, () => jsBaseline(pieces));
  const coreOnly = minTime(60, () => benchDecodeOnly(format, body));
  const mbps = (ms) => `${(body.length / ms / 1e3).toFixed(0)} MB/s`;
  console.log(`| ${name} (${body.length} B, ${count} chunks) | ${mbps(clew)} (${clew.toFixed(3)} ms) | ${(clew * 1e6 / count).toFixed(0)} ns | ${coreOnly.toFixed(3)} ms | ${mbps(baseline)} (${baseline.toFixed(3)} ms) | ${(clew / baseline).toFixed(2)}x |`);
}

// One push per SSE event, as a read loop that gets one event per read drives the decoder,
// beside the plain-JS floor doing the same reads: the median of the ratios of adjacent pairs.
function jsPerEvent(pieces) {
  const decoder = new TextDecoder();
  let events = 0;
  for (const piece of pieces) {
    for (const line of decoder.decode(piece, { stream: true }).split("\n")) {
      if (line.startsWith("data: ") && line !== "data: [DONE]") { JSON.parse(line.slice(6)); events++; }
    }
  }
  return events;
}
console.log();
console.log("| body, one push per SSE event | clew StreamDecoder per event | plain JS floor per event | clew / floor (median of pairs) |");
console.log("|---|---|---|---|");
for (const [name, format] of BODIES) {
  const events = readFileSync(`${fixtures}/${name}.txt`, "utf8").split(/(?<=\r?\n\r?\n)/).map((e) => new TextEncoder().encode(e));
  const clew = () => {
    const decoder = new StreamDecoder(format);
    for (const piece of events) decoder.push(piece);
    decoder.finish();
    decoder.free();
  };
  const time = (f) => { const start = process.hrtime.bigint(); f(); return Number(process.hrtime.bigint() - start) / 1e6; };
  for (let i = 0; i < 5; i++) { clew(); jsPerEvent(events); }
  const ta = [], tb = [], ratios = [];
  for (let i = 0; i < 31; i++) {
    const a = time(clew), b = time(() => jsPerEvent(events));
    ta.push(a); tb.push(b); ratios.push(a / b);
  }
  const median = (xs) => [...xs].sort((x, y) => x - y)[xs.length >> 1];
  const ns = (ms) => `${(ms * 1e6 / events.length).toFixed(0)} ns`;
  console.log(`| ${name} (${events.length} events) | ${ns(median(ta))} | ${ns(median(tb))} | ${median(ratios).toFixed(2)}x |`);
}
