// wasm-in-Node parser benchmarks (run by scripts/bench against a build with the `bench`
// feature; prints markdown). Each figure is beside its floor, measured in the same run:
//   push:  AssistantMessageParser.push per chunk  vs  the same calls into a no-op export
//   whole: parseAssistantMessage(text)            vs  moving the text in and the block strings out
//   scale: incremental vs the reference strategy (parseAssistantMessage of the accumulated
//          text after every chunk), and 200k vs 50k (linear is 4x the bytes).
// Times are the minimum over repeated runs (wall clock, one thread).
import { readFileSync } from "node:fs";
import { minTime } from "./timing.mjs";

const pkgDir = process.argv[2];
const fixtures = process.argv[3];
const { AssistantMessageParser, parseAssistantMessage } = await import(`${pkgDir}/node.js`);
// The bench-only exports live in the bindings (initialised by the entry above).
const { benchNoop, benchStringSpans, benchCopyInOut } = await import(`${pkgDir}/clew.js`);

const ms = (t) => `${t.toFixed(3)} ms`;
const x = (a, b) => `${(a / b).toFixed(2)}x`;

const rows = [];
const pushTimes = {};
for (const name of ["stream-50k", "stream-200k"]) {
  const { chunks } = JSON.parse(readFileSync(`${fixtures}/${name}.json`, "utf8"));
  const text = chunks.join("");
  const utf8Bytes = Buffer.byteLength(text);

  const push = minTime(30, () => {
    const parser = new AssistantMessageParser();
    for (const chunk of chunks) parser.push(chunk);
    parser.free();
  });
  const noop = minTime(30, () => { for (const chunk of chunks) benchNoop(chunk); });
  const reparse = minTime(name === "stream-200k" ? 1 : 3, () => {
    let accumulated = "";
    for (const chunk of chunks) { accumulated += chunk; parseAssistantMessage(accumulated); }
  });
  const whole = minTime(200, () => parseAssistantMessage(text));
  const spans = benchStringSpans(text);
  const copy = minTime(200, () => benchCopyInOut(text, spans));
  pushTimes[name] = push;
  rows.push({ name, bytes: utf8Bytes, chunks: chunks.length, push, noop, reparse, whole, copy });
}

console.log("| workload | push, chunk by chunk | no-op export, same calls | push / no-op | reparse on every chunk | incremental speed-up | parseAssistantMessage(whole) | copy in + strings out | whole / copy |");
console.log("|---|---|---|---|---|---|---|---|---|");
for (const r of rows) {
  console.log(`| ${r.name} (${r.bytes} B, ${r.chunks} chunks) | ${ms(r.push)} | ${ms(r.noop)} | ${x(r.push, r.noop)} | ${ms(r.reparse)} | ${(r.reparse / r.push).toFixed(0)}x | ${ms(r.whole)} (${(r.bytes / r.whole / 1e3).toFixed(0)} MB/s) | ${ms(r.copy)} | ${x(r.whole, r.copy)} |`);
}
console.log();
console.log(`Linearity: pushing stream-200k costs ${x(pushTimes["stream-200k"], pushTimes["stream-50k"])} what stream-50k costs, for ${x(rows[1].bytes, rows[0].bytes)} the bytes.`);
