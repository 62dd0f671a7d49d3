// wasm-in-Node agent-loop benchmarks (run by scripts/bench; prints markdown).
//
// 1. A 50-round scripted task through the package's Task class: each round streams ~3 KB of
//    text as 20-byte chunk lines (one line per read) and one tool call.
// 2. One task round over each format's 5,000-delta SSE body, delivered one SSE event per
//    read(), from bytes to the last say (plus a one-event completion round), in both tool
//    calling modes (the completion is XML text or a native call). Beside it, in the
//    same run, the floor: plain JS reading the same stream event by event with TextDecoder
//    and JSON.parse, doing nothing else. Judged by the median of the ratios of adjacent
//    pairs (clew, floor), which is steadier on a shared machine than the best of each.
// 3. A 50-round task whose history grows by a ~5 KB tool result a round: the cost of a
//    round at the start and at the end (from one request to the next, every read resolving
//    at once), beside JSON.stringify of the same requests.
// Times are wall clock (the work is CPU-bound: every read resolves at once).
import { FORMATS, TOOLS, completion, eventsOf } from "./replies.mjs";

const [pkgDir, fixtures] = process.argv.slice(2);
const { Task } = await import(`${pkgDir}/node.js`);
const enc = new TextEncoder();

function streamOf(pieces) {
  let i = 0;
  return new ReadableStream({
    pull(controller) {
      if (i < pieces.length) controller.enqueue(pieces[i++]);
      else controller.close();
    },
  });
}

/** Median wall times of `a` and `b` run alternately, and the median of the ratios a/b of each adjacent pair. */
async function pairs(runs, a, b) {
  for (let i = 0; i < 3; i++) { await a(); await b(); }
  const ta = [], tb = [], ratios = [];
  for (let i = 0; i < runs; i++) {
    const times = [];
    for (const f of [a, b]) {
      const start = process.hrtime.bigint();
      await f();
      times.push(Number(process.hrtime.bigint() - start) / 1e6);
    }
    ta.push(times[0]); tb.push(times[1]); ratios.push(times[0] / times[1]);
  }
  const median = (xs) => [...xs].sort((x, y) => x - y)[xs.length >> 1];
  return [median(ta), median(tb), median(ratios)];
}

/** Minimum wall times of `a` and `b`, run alternately so that both see the same machine load. */
async function minTimesInterleaved(runs, a, b) {
  for (let i = 0; i < 3; i++) { await a(); await b(); }
  const best = [Infinity, Infinity];
  for (let i = 0; i < runs; i++) {
    for (const [k, f] of [[0, a], [1, b]]) {
      const start = process.hrtime.bigint();
      await f();
      best[k] = Math.min(best[k], Number(process.hrtime.bigint() - start) / 1e6);
    }
  }
  return best;
}

async function runTask(format, replies, toolCalling = "xml") {
  let n = 0;
  let says = 0;
  const task = new Task({
    model: { format, request: () => streamOf(replies[Math.min(n++, replies.length - 1)]) },
    toolCalling,
    tools: TOOLS,
    autoApprove: { readOnly: true },
    say: () => { says++; },
    ask: () => ({ response: "yesButtonClicked" }),
  });
  const outcome = await task.start("benchmark task");
  if (outcome.status !== "completed") throw new Error(JSON.stringify(outcome));
  task.free();
  return says;
}

async function jsFloor(pieces) {
  const reader = streamOf(pieces).getReader();
  const decoder = new TextDecoder();
  let events = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    for (const line of decoder.decode(value, { stream: true }).split("\n")) {
      if (line.startsWith("data: ") && line !== "data: [DONE]") {
        JSON.parse(line.slice(6));
        events++;
      }
    }
  }
  return events;
}

const prose = "The quick brown fox jumps over the lazy dog while the agent reads files. ".repeat(40);
const rounds = [];
for (let r = 0; r < 50; r++) {
  const text = prose + (r === 49 ? "<attempt_completion><result>done</result></attempt_completion>" : `<read_file><path>src/file${r}.rs</path></read_file>`);
  const chars = [...text];
  const pieces = [];
  for (let i = 0; i < chars.length; i += 20) pieces.push(enc.encode(JSON.stringify({ type: "text", text: chars.slice(i, i + 20).join("") }) + "\n"));
  rounds.push(pieces);
}
const chunks = rounds.reduce((a, r) => a + r.length, 0);

console.log("| workload | reads | clew Task | per round | per read | plain JS floor (read + TextDecoder + JSON.parse) | clew / floor |");
console.log("|---|---|---|---|---|---|---|");
const asSse = rounds.map((r) => r.map((p) => enc.encode("data: " + new TextDecoder().decode(p))));
const [whole, roundsFloor] = await minTimesInterleaved(15, () => runTask("chunks", rounds), async () => { for (const r of asSse) await jsFloor(r); });
console.log(`| 50 rounds, one tool call each (chunk lines) | ${chunks} | ${whole.toFixed(2)} ms | ${(whole / 50).toFixed(2)} ms | ${(whole * 1e3 / chunks).toFixed(2)} µs | ${roundsFloor.toFixed(2)} ms | ${(whole / roundsFloor).toFixed(2)}x |`);

console.log();
console.log("| one round of a 5,000-delta body, one SSE event per read | tool calling | reads | clew Task | per read | plain JS floor per event | clew / floor (median of pairs) |");
console.log("|---|---|---|---|---|---|---|");
for (const [format, name] of FORMATS) {
  const events = eventsOf(fixtures, name);
  for (const mode of ["xml", "native"]) {
    const replies = [events, [enc.encode(completion(format, mode))]];
    const [clew, floor, ratio] = await pairs(25, () => runTask(format, replies, mode), () => jsFloor(events));
    const n = events.length;
    console.log(`| ${name} | ${mode} | ${n} | ${clew.toFixed(2)} ms | ${(clew * 1e3 / n).toFixed(2)} µs | ${(floor * 1e3 / n).toFixed(2)} µs | ${ratio.toFixed(2)}x |`);
  }
}

// 3. The growing history.
const result = ("x".repeat(60) + "\n").repeat(85);
async function historyTask() {
  let n = 0, last = 0;
  const costs = [], requests = [];
  const task = new Task({
    model: { format: "chunks", request: (req) => {
      const now = performance.now();
      if (n > 0) costs.push(now - last);
      requests.push(req);
      const text = n === 49 ? "<attempt_completion><result>done</result></attempt_completion>" : `Reading.<read_file><path>f${n}</path></read_file>`;
      n++;
      const stream = streamOf([enc.encode(JSON.stringify({ type: "text", text }) + "\n")]);
      last = performance.now();
      return stream;
    } },
    tools: [{ name: "read_file", readOnly: true, parameters: [{ name: "path", required: true }], execute: () => result }],
    autoApprove: { readOnly: true }, say: () => {}, ask: () => ({ response: "yesButtonClicked" }),
  });
  await task.start("go");
  task.free();
  return { costs, requests };
}
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
for (let i = 0; i < 3; i++) await historyTask();
const runs = [];
for (let i = 0; i < 15; i++) runs.push(await historyTask());
const costAt = (k) => median(runs.map((r) => r.costs[k]));
const early = median([costAt(0), costAt(1), costAt(2)]), late = median([costAt(46), costAt(47), costAt(48)]);
const stringify = (req) => { const xs = []; for (let i = 0; i < 41; i++) { const s = performance.now(); for (let j = 0; j < 10; j++) JSON.stringify(req); xs.push((performance.now() - s) / 10); } return median(xs); };
const reqs = runs[0].requests;
const sEarly = median([1, 2, 3].map((k) => stringify(reqs[k]))), sLate = median([47, 48, 49].map((k) => stringify(reqs[k])));
const kb = (JSON.stringify(reqs[48]).length / 1024).toFixed(0);
console.log();
console.log("| 50 rounds, history growing ~5 KB a round | round 2-4 | round 47-49 | growth | JSON.stringify of the request, round 2-4 → 47-49 | growth | clew growth / JSON.stringify growth |");
console.log("|---|---|---|---|---|---|---|");
console.log(`| model.request path, ${kb} KB request at round 49 | ${early.toFixed(3)} ms | ${late.toFixed(3)} ms | ${(late - early).toFixed(3)} ms | ${sEarly.toFixed(3)} → ${sLate.toFixed(3)} ms | ${(sLate - sEarly).toFixed(3)} ms | ${((late - early) / (sLate - sEarly)).toFixed(2)}x |`);
