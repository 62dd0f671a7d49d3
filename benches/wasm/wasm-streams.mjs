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
for (const [name, format] of [["sse-anthropic-5000", "anthropic"], ["sse-openai-5000", "openai"]]) {
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
