// A long reply through the package's Task class: one round whose Anthropic reply streams a
// 1 MB and, separately, a 10 MB text in 1 KB `text_delta` events (one SSE event per read),
// ending with an attempt_completion, so the task completes in that round.
//
// Measured: the wall time of the task (median of a few runs, the two sizes alternating), its
// time per byte of text, the number of partial says and the bytes they carry (each partial
// say carries the whole text so far) over the text's length. Pacing that bounds what partial
// updates carry keeps the time per byte of the 10 MB reply near that of the 1 MB one.
//
// node benches/wasm/long-reply.mjs PKG_DIR [RUNS] [INTERVAL_MS]
//   RUNS per size, 3 by default; INTERVAL_MS sets presentationIntervalMs (the package's
//   default otherwise): 0 shows what pacing by time alone would let through on a machine far
//   slower than this one (before the growth rule, a 10 MB reply then takes minutes).
const [pkgDir, runsArg, intervalArg] = process.argv.slice(2);
if (!pkgDir) throw new Error("usage: node benches/wasm/long-reply.mjs PKG_DIR [RUNS] [INTERVAL_MS]");
const { Task } = await import(`${pkgDir}/node.js`);
const runs = Number(runsArg ?? 3);
const interval = intervalArg === undefined ? {} : { presentationIntervalMs: Number(intervalArg) };
const enc = new TextEncoder();
const DELTA = 1024;
const END = "<attempt_completion><result>ok</result></attempt_completion>";

function streamOf(pieces) {
  let i = 0;
  return new ReadableStream({
    pull(controller) {
      if (i < pieces.length) controller.enqueue(pieces[i++]);
      else controller.close();
    },
  });
}

const event = (name, data) => enc.encode(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`);

/** A `size`-byte text (ASCII prose, then the completion) as SSE events, one per read. */
function reply(size) {
  const prose = "The quick brown fox jumps over the lazy dog while the agent writes a long answer. ";
  const text = prose.repeat(Math.ceil(size / prose.length)).slice(0, size - END.length) + END;
  const events = [
    event("message_start", { type: "message_start", message: { id: "m", type: "message", role: "assistant", content: [], model: "m", usage: { input_tokens: 10, output_tokens: 1 } } }),
    event("content_block_start", { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }),
  ];
  for (let i = 0; i < text.length; i += DELTA) {
    const delta = { type: "text_delta", text: text.slice(i, i + DELTA) };
    events.push(event("content_block_delta", { type: "content_block_delta", index: 0, delta }));
  }
  events.push(
    event("content_block_stop", { type: "content_block_stop", index: 0 }),
    event("message_delta", { type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: Math.ceil(size / 4) } }),
    event("message_stop", { type: "message_stop" }),
  );
  return { text, events };
}

/** One task over `events`: wall time (ms), partial says and the characters they carry. */
async function run(events) {
  let partialSays = 0;
  let partialChars = 0;
  const task = new Task({
    model: { format: "anthropic", request: () => streamOf(events) },
    ...interval,
    say: (message) => {
      if (message.partial === true) {
        partialSays++;
        partialChars += message.text?.length ?? 0;
      }
    },
    ask: () => ({ response: "yesButtonClicked" }),
  });
  const start = process.hrtime.bigint();
  const outcome = await task.start("Write a long answer");
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  task.free();
  if (outcome.status !== "completed") throw new Error(`not completed: ${JSON.stringify(outcome)}`);
  return { ms, partialSays, partialChars };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const sizes = [
  ["1 MB", 1_000_000],
  ["10 MB", 10_000_000],
];
const replies = sizes.map(([, size]) => reply(size));
const results = sizes.map(() => []);
await run(replies[0].events); // warm-up
for (let r = 0; r < runs; r++) {
  for (let k = 0; k < sizes.length; k++) results[k].push(await run(replies[k].events));
}

console.log(`| reply | time | per byte | partial says | bytes in partial says / text |`);
console.log(`|---|---|---|---|---|`);
const perByte = [];
for (let k = 0; k < sizes.length; k++) {
  const ms = median(results[k].map((x) => x.ms));
  const says = median(results[k].map((x) => x.partialSays));
  const carried = median(results[k].map((x) => x.partialChars));
  const bytes = replies[k].text.length; // ASCII: characters are bytes
  perByte.push(ms / bytes);
  console.log(`| ${sizes[k][0]} (${replies[k].events.length} reads) | ${ms.toFixed(0)} ms | ${((ms * 1e6) / bytes).toFixed(1)} ns | ${says} | ${(carried / bytes).toFixed(2)} (${(carried / 1e6).toFixed(1)} MB) |`);
}
const pacing = intervalArg === undefined ? "default presentationIntervalMs" : `presentationIntervalMs: ${intervalArg}`;
console.log(`\n(10 MB per byte) / (1 MB per byte): ${(perByte[1] / perByte[0]).toFixed(2)} (median of ${runs} runs each, alternating; ${pacing})`);
