// Durable tasks (issue 18): a 50-round task whose history grows ~5 KB a round (a streamed
// reply of ~1 KB, a tool result of ~3.6 KB).
//   node benches/wasm/snapshot.mjs PKG_DIR [OLD_PKG_DIR]
// - task.snapshot() of the finished task against JSON.stringify(task.history): time and size;
// - options.persist over the whole task: the bytes it was handed (JSON text of each
//   `changes`) against the final snapshot's size, and the task's time with persist against
//   without (the same task, run alternately; median of pair ratios);
// - with OLD_PKG_DIR, that overhead for both packages side by side in this one process (the
//   two packages' pairs interleaved), which a shared machine's drift cannot tilt.
// Prints markdown rows.
const [pkgDir, oldDir] = process.argv.slice(2);
const { Task } = await import(`${pkgDir}/node.js`);
const OldTask = oldDir ? (await import(`${oldDir}/node.js`)).Task : null;
const enc = new TextEncoder();
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

function streamOf(pieces) {
  let i = 0;
  return new ReadableStream({ pull(c) { if (i < pieces.length) c.enqueue(pieces[i++]); else c.close(); } });
}

// Each reply streams as a model's does: an Anthropic SSE body of about 150 text deltas
// (a short explanation, then the tool call), one event per read.
const explanation = "Let me look at the next file to see how the configuration is read and where the flag is set. ".repeat(12);
function reply(text) {
  const event = (name, data) => enc.encode(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`);
  const events = [event("message_start", { type: "message_start", message: { id: "m", type: "message", role: "assistant", content: [], usage: { input_tokens: 10, output_tokens: 1 } } }),
    event("content_block_start", { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } })];
  for (const piece of text.match(/.{1,8}/gs)) events.push(event("content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: piece } }));
  events.push(event("content_block_stop", { type: "content_block_stop", index: 0 }));
  events.push(event("message_delta", { type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: 200 } }));
  events.push(event("message_stop", { type: "message_stop" }));
  return events;
}
const replies = Array.from({ length: 50 }, (_, n) => reply(n === 49
  ? "<attempt_completion><result>done</result></attempt_completion>"
  : `${explanation}\n<read_file><path>f${n}</path></read_file>`));
const result = ("x".repeat(60) + "\n").repeat(60);
async function run(persist, TaskClass = Task) {
  let n = 0;
  const task = new TaskClass({
    model: { format: "anthropic", request: () => streamOf(replies[n++]) },
    tools: [{ name: "read_file", readOnly: true, parameters: [{ name: "path", required: true }], execute: () => result }],
    autoApprove: { readOnly: true }, say: () => {}, ask: () => ({ response: "yesButtonClicked" }),
    ...(persist ? { persist } : {}),
  });
  const start = performance.now();
  await task.start("go");
  return { task, ms: performance.now() - start };
}

// The bytes handed to persist, and how many calls.
let bytes = 0, calls = 0;
const { task } = await run((changes) => { bytes += JSON.stringify(changes).length; calls++; });
const snapshotText = JSON.stringify(task.snapshot());
const historyText = JSON.stringify(task.history);

// snapshot() against JSON.stringify(history), alternately.
const ratios = [], snaps = [], strs = [];
for (let i = 0; i < 41; i++) {
  let t = performance.now(); task.snapshot(); const a = performance.now() - t;
  t = performance.now(); JSON.stringify(task.history); const b = performance.now() - t;
  if (i >= 5) { snaps.push(a); strs.push(b); ratios.push(a / b); }
}
task.free();

// The task's time with a persist that keeps the changes, against without.
const keep = [];
const store = (changes) => { keep.push(changes); };
for (let i = 0; i < 5; i++) { (await run(store)).task.free(); (await run(null)).task.free(); keep.length = 0; }
// Many pairs, each pair's order alternating: on a shared machine single runs vary by more
// than the difference measured.
const timeRatios = [];
let withMs = [], withoutMs = [];
const timed = async (persist, TaskClass = Task) => {
  const { task, ms } = await run(persist, TaskClass);
  task.free();
  keep.length = 0;
  return ms;
};
for (let i = 0; i < 201; i++) {
  let a, b;
  if (i % 2) { a = await timed(store); b = await timed(null); } else { b = await timed(null); a = await timed(store); }
  withMs.push(a); withoutMs.push(b); timeRatios.push(a / b);
}

const kb = (n) => `${(n / 1024).toFixed(0)} KB`;
console.log("| measure | clew | against | ratio | target |");
console.log("|---|---|---|---|---|");
console.log(`| \`task.snapshot()\` of the finished task: time | ${median(snaps).toFixed(2)} ms | JSON.stringify(task.history): ${median(strs).toFixed(2)} ms | ${median(ratios).toFixed(2)}x (median of pairs) | at most 2x |`);
console.log(`| its size (JSON text) | ${kb(snapshotText.length)} | the history's JSON: ${kb(historyText.length)} | ${(snapshotText.length / historyText.length).toFixed(2)}x | – |`);
console.log(`| bytes handed to \`persist\` over the task (${calls} calls) | ${kb(bytes)} | the final snapshot: ${kb(snapshotText.length)} | ${(bytes / snapshotText.length).toFixed(2)}x | at most 3x |`);
console.log(`| the task's time with \`persist\` | ${median(withMs).toFixed(1)} ms | without: ${median(withoutMs).toFixed(1)} ms | ${median(timeRatios).toFixed(2)}x (median of pairs) | under 1.10x |`);

if (OldTask) {
  // Both packages' overhead, their pairs interleaved (which package goes first alternates too).
  const pairs = { new: [], old: [] };
  for (let i = 0; i < 3; i++) for (const T of [Task, OldTask]) { await timed(store, T); await timed(null, T); }
  for (let i = 0; i < 201; i++) {
    for (const [name, T] of i % 2 ? [["new", Task], ["old", OldTask]] : [["old", OldTask], ["new", Task]]) {
      let a, b;
      if ((i >> 1) % 2) { a = await timed(store, T); b = await timed(null, T); } else { b = await timed(null, T); a = await timed(store, T); }
      pairs[name].push(a / b);
    }
  }
  console.log(`| the same, side by side with the earlier build in one process (201 interleaved pairs each) | ${median(pairs.new).toFixed(3)}x | the earlier build: ${median(pairs.old).toFixed(3)}x | – | under 1.10x |`);
}
