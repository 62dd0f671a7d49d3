// Two builds of the package side by side in one process:
//   node benches/wasm/compare.mjs OLD_PKG_DIR NEW_PKG_DIR FIXTURES_DIR [PARSER_FIXTURE]
// Each workload runs old and new alternately; the figure is the median of the ratios new/old
// of adjacent pairs (below 1: the new build is faster). Prints markdown.
import { readFileSync } from "node:fs";
import { FORMATS, TOOLS, completion, eventsOf } from "./replies.mjs";

const [oldDir, newDir, fixtures, parserFixture] = process.argv.slice(2);
const builds = [await import(`${oldDir}/node.js`), await import(`${newDir}/node.js`)];
const enc = new TextEncoder();
const PAIRS = 21;

function streamOf(pieces) {
  let i = 0;
  return new ReadableStream({ pull(c) { if (i < pieces.length) c.enqueue(pieces[i++]); else c.close(); } });
}

async function time(f) {
  const start = process.hrtime.bigint();
  await f();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

async function pairs(run) {
  for (let i = 0; i < 3; i++) for (const b of builds) await run(b);
  const ratios = [];
  for (let i = 0; i < PAIRS; i++) {
    const [a, b] = [await time(() => run(builds[0])), await time(() => run(builds[1]))];
    ratios.push(b / a);
  }
  return ratios.sort((x, y) => x - y)[ratios.length >> 1];
}

async function task({ Task }, format, replies, tools = [], toolCalling = "xml") {
  let n = 0;
  const t = new Task({
    model: { format, request: () => streamOf(replies[Math.min(n++, replies.length - 1)]) },
    tools, toolCalling, autoApprove: { readOnly: true }, say: () => {}, ask: () => ({ response: "yesButtonClicked" }),
  });
  const outcome = await t.start("bench");
  if (outcome.status !== "completed") throw new Error(JSON.stringify(outcome));
  t.free();
}

console.log("| workload | new / old (median of pairs) |");
console.log("|---|---|");
for (const [format, name] of FORMATS) {
  const body = readFileSync(`${fixtures}/${name}.txt`);
  const events = eventsOf(fixtures, name);
  const pieces = [];
  for (let at = 0; at < body.length; at += 4096) pieces.push(new Uint8Array(body.subarray(at, at + 4096)));
  const decode = (list) => ({ StreamDecoder }) => {
    const d = new StreamDecoder(format);
    for (const p of list) d.push(p);
    d.finish();
    d.free();
  };
  console.log(`| ${name}: StreamDecoder, one push per event | ${(await pairs(decode(events))).toFixed(2)}x |`);
  console.log(`| ${name}: StreamDecoder, 4 KiB pushes | ${(await pairs(decode(pieces))).toFixed(2)}x |`);
  const piped = async ({ sseDecoder }) => {
    const reader = streamOf(events).pipeThrough(sseDecoder(format)).getReader();
    while (!(await reader.read()).done);
  };
  console.log(`| ${name}: sseDecoder, one event per read | ${(await pairs(piped)).toFixed(2)}x |`);
  for (const mode of ["xml", "native"]) {
    const replies = [events, [enc.encode(completion(format, mode))]];
    console.log(`| ${name}: Task, one round, one event per read, ${mode} tools | ${(await pairs((b) => task(b, format, replies, TOOLS, mode))).toFixed(2)}x |`);
  }
}
const prose = "The quick brown fox jumps over the lazy dog while the agent reads files. ".repeat(40);
const rounds = [];
for (let r = 0; r < 50; r++) {
  const text = prose + (r === 49 ? "<attempt_completion><result>done</result></attempt_completion>" : `<read_file><path>src/file${r}.rs</path></read_file>`);
  const chars = [...text];
  const round = [];
  for (let i = 0; i < chars.length; i += 20) round.push(enc.encode(JSON.stringify({ type: "text", text: chars.slice(i, i + 20).join("") }) + "\n"));
  rounds.push(round);
}
const tools = [{ name: "read_file", readOnly: true, parameters: [{ name: "path", required: true }], execute: () => "file contents: ok" }];
console.log(`| Task, 50 rounds with a tool call each (chunk lines) | ${(await pairs((b) => task(b, "chunks", rounds, tools))).toFixed(2)}x |`);
if (parserFixture) {
  const { chunks } = JSON.parse(readFileSync(parserFixture, "utf8"));
  const parse = ({ AssistantMessageParser }) => {
    const parser = new AssistantMessageParser();
    for (const chunk of chunks) parser.push(chunk);
    parser.free();
  };
  console.log(`| AssistantMessageParser, ${chunks.length} pushes | ${(await pairs(parse)).toFixed(2)}x |`);
}
