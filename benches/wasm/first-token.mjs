// The first token: the time from `new Task` to the first text said, warm, beside the floor's
// time from opening the same stream to its first parsed text delta (read, TextDecoder, line
// split, JSON.parse). The reply is an Anthropic stream of three text deltas and a completion,
// one SSE event per read; each clew run is paired with a floor run and the ratio is the
// median of the pairs' ratios (after warm-up runs).
//
// node benches/wasm/first-token.mjs PKG_DIR [AGAINST_PKG_DIR]: one row per package.
const [pkgDir, againstDir] = process.argv.slice(2);
if (!pkgDir) throw new Error("usage: node benches/wasm/first-token.mjs PKG_DIR [AGAINST_PKG_DIR]");
const builds = [["this build", await import(`${pkgDir}/node.js`)]];
if (againstDir) builds.push(["the earlier build", await import(`${againstDir}/node.js`)]);
const enc = new TextEncoder();
const RUNS = 201;

function streamOf(pieces) {
  let i = 0;
  return new ReadableStream({ pull(c) { if (i < pieces.length) c.enqueue(pieces[i++]); else c.close(); } });
}
const event = (name, data) => enc.encode(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`);
const delta = (text) => event("content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "text_delta", text } });
const events = [
  event("message_start", { type: "message_start", message: { id: "m", type: "message", role: "assistant", content: [], model: "m", usage: { input_tokens: 10, output_tokens: 1 } } }),
  event("content_block_start", { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }),
  delta("Hello"), delta(", I will finish now. "), delta("<attempt_completion><result>ok</result></attempt_completion>"),
  event("content_block_stop", { type: "content_block_stop", index: 0 }),
  event("message_delta", { type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: 20 } }),
  event("message_stop", { type: "message_stop" }),
];
const tools = [{ name: "read_file", readOnly: true, parameters: [{ name: "path", required: true }], execute: () => "ok" }];

/** ms from `new Task` to the first text said. */
async function clew({ Task }) {
  let first;
  const start = performance.now();
  const task = new Task({
    model: { format: "anthropic", request: () => streamOf(events) },
    tools, autoApprove: { readOnly: true },
    say: (m) => { if (first === undefined && m.say === "text") first = performance.now(); },
    ask: () => ({ response: "yesButtonClicked" }),
  });
  const outcome = await task.start("Say hello");
  task.free();
  if (outcome.status !== "completed" || first === undefined) throw new Error(JSON.stringify(outcome));
  return first - start;
}

/** ms from opening the stream to its first parsed text delta. */
async function floor() {
  const start = performance.now();
  const reader = streamOf(events).getReader();
  const decoder = new TextDecoder();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) throw new Error("no text");
    for (const line of decoder.decode(value, { stream: true }).split("\n")) {
      if (!line.startsWith("data: ")) continue;
      const data = JSON.parse(line.slice(6));
      if (data.delta?.text) { const at = performance.now(); reader.cancel(); return at - start; }
    }
  }
}

const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
console.log("| build | new Task to the first text said | floor: stream to its first parsed delta | clew / floor (median of pairs) |");
console.log("|---|---|---|---|");
for (let i = 0; i < 30; i++) for (const [, b] of builds) { await clew(b); await floor(); }
const rows = builds.map(() => ({ clew: [], floor: [], ratio: [] }));
for (let i = 0; i < RUNS; i++) {
  for (let k = 0; k < builds.length; k++) {
    const [c, f] = [await clew(builds[k][1]), await floor()];
    rows[k].clew.push(c); rows[k].floor.push(f); rows[k].ratio.push(c / f);
  }
}
for (let k = 0; k < builds.length; k++) {
  const r = rows[k];
  console.log(`| ${builds[k][0]} | ${median(r.clew).toFixed(3)} ms | ${median(r.floor).toFixed(3)} ms | ${median(r.ratio).toFixed(2)}x |`);
}
