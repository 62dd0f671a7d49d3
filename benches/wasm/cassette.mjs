// Replaying a tape (issue 31): a 50-round task (each reply an Anthropic SSE body of about 150
// text deltas, one event per read, then a read_file call; a tool result of ~3.6 KB) run with
// its bodies from memory (a `model.fetch` that answers each request with the next body, so
// the task does all it does against a provider), against the same task replayed from its tape
// (recorded once; each replay gets the tape freshly parsed from its JSON text, as a test that
// reads it from a file does). Each time runs from `new Task` (a replay's includes reading the
// tape) to the task's end.
//   node benches/wasm/cassette.mjs PKG_DIR [EARLIER_PKG_DIR]
// The two runs alternate, 20 pairs to warm up (the replay's JavaScript takes longer to reach
// its steady speed), then 100 measured; the figure is the median of the pairs' ratios, and
// beside it the lowest and highest median of its five windows of 20 pairs. (The garbage
// collector's cycles span several pairs, so a few dozen pairs can all fall in a slow or a
// quick phase: 30 pairs gave medians from 1.08x to 1.24x between runs of one build, windows
// of 20 within one run of 100 pairs move as much, and medians of 100 pairs ranged from 1.07x to
// 1.15x.) Prints markdown rows. With EARLIER_PKG_DIR (another build, loaded in the same
// process), a second row: the replay of the same tape by this build against that one,
// alternately, measured the same way.
import { readFileSync } from "node:fs";
import { join } from "node:path";

const [pkgDir, earlierDir] = process.argv.slice(2);
/** A package's `clew/cassette` module, where its package.json's `exports` puts it (an earlier build's too). */
function cassetteOf(dir) {
  const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
  return import(join(dir, manifest.exports["./cassette"].default));
}
const { Task } = await cassetteOf(pkgDir);
const enc = new TextEncoder();
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

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

function options() {
  let n = 0;
  return {
    model: { format: "anthropic", id: "m", fetch: () => {
      const pieces = replies[n++];
      let i = 0;
      const body = new ReadableStream({ pull(c) { if (i < pieces.length) c.enqueue(pieces[i++]); else c.close(); } });
      return new Response(body, { headers: { "content-type": "text/event-stream" } });
    } },
    autoApprove: { readOnly: true },
    tools: [{ name: "read_file", description: "Read", readOnly: true, parameters: [{ name: "path", description: "p", required: true }], execute: () => result }],
    ask: async () => ({ response: "yesButtonClicked" }),
  };
}

async function timed(cassette, TaskClass = Task) {
  if (cassette?.data) cassette = { ...cassette, data: JSON.parse(cassette.data) };
  const started = performance.now();
  const task = new TaskClass(cassette ? { ...options(), cassette } : options());
  const outcome = await task.start("Go through the files");
  const ms = performance.now() - started;
  if (outcome.status !== "completed") throw new Error(`the task ended ${outcome.status}: ${outcome.error?.code} ${outcome.error?.message}`);
  return { ms, task };
}

const recorder = await timed({ mode: "record" });
const tape = await recorder.task.cassette();
const text = JSON.stringify(tape);
const reads = tape.interactions.reduce((n, e) => n + (e.response?.reads.n.length ?? 0), 0);
const WARM = 20, PAIRS = 100, WINDOW = 20;
/** The median of `ratios` and the range of its windows' medians, as the table shows them. */
function summary(ratios) {
  const windows = [];
  for (let k = 0; k < ratios.length; k += WINDOW) windows.push(median(ratios.slice(k, k + WINDOW)));
  return `${median(ratios).toFixed(2)}x (windows ${Math.min(...windows).toFixed(2)}-${Math.max(...windows).toFixed(2)})`;
}
const memory = [], replayed = [], ratios = [];
for (let i = 0; i < WARM; i++) { await timed(); await timed({ mode: "replay", data: text }); }
for (let i = 0; i < PAIRS; i++) {
  const a = (await timed()).ms;
  const b = (await timed({ mode: "replay", data: text })).ms;
  memory.push(a);
  replayed.push(b);
  ratios.push(b / a);
}
const f = (ms) => `${ms.toFixed(1)} ms`;
console.log(`| 50 rounds, ${tape.interactions.length} interactions, ${reads} reads, ${tape.wakes.length} timer firings | ${f(median(memory))} | ${f(median(replayed))} | ${summary(ratios)} |`);
if (earlierDir) {
  const { Task: EarlierTask } = await cassetteOf(earlierDir);
  const replay = (TaskClass) => timed({ mode: "replay", data: text }, TaskClass).then((r) => r.ms);
  const now = [], before = [], pairs = [];
  for (let i = 0; i < WARM; i++) { await replay(Task); await replay(EarlierTask); }
  for (let i = 0; i < PAIRS; i++) {
    const b = await replay(EarlierTask);
    const a = await replay(Task);
    before.push(b);
    now.push(a);
    pairs.push(a / b);
  }
  console.log(`| the same tape replayed by this build against the earlier one | ${f(median(before))} (earlier) | ${f(median(now))} (this) | ${summary(pairs)} |`);
}
