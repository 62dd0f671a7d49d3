// Streams a model reply through the built package's AssistantMessageParser and prints the blocks.
import { readFileSync } from "node:fs";
import { AssistantMessageParser } from "../pkg/node.js";

const file = process.argv[2];
const raw = readFileSync(file, "utf8");
const chunks = file.endsWith(".json") ? JSON.parse(raw).chunks : raw.match(/[\s\S]{1,20}/gu) ?? [];
const parser = new AssistantMessageParser();
let redraws = 0;
for (const chunk of chunks) redraws += parser.length - Math.min(parser.push(chunk), parser.length);

const short = (s, n = 70) => {
  const line = s.replace(/\s+/g, " ");
  return line.length > n ? `${line.slice(0, n)}… (${s.length} chars)` : line;
};
console.log(`${chunks.length} chunks, ${parser.text().length} characters, ${parser.length} blocks, ${redraws} block updates while streaming\n`);
parser.blocks().forEach((block, i) => {
  const state = block.partial ? " (partial)" : "";
  if (block.type === "text") console.log(`${i}. text${state}: ${short(block.content)}`);
  else {
    console.log(`${i}. tool_use ${block.name}${state}`);
    for (const [name, value] of Object.entries(block.params)) console.log(`     ${name}: ${short(value, 60)}`);
  }
});
