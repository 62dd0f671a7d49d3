// The demo page's glue: feeds the textarea to the package's parser and draws the blocks.
import { AssistantMessageParser, parseAssistantMessage, ready } from "clew";

await ready;

const SAMPLE = `I'll look at the config first.

<read_file>
<path>src/config.ts</path>
</read_file>

Then update the timeout:

<replace_in_file>
<path>src/config.ts</path>
<diff>
------- SEARCH
timeout: 30
=======
timeout: 60
+++++++ REPLACE
</diff>
</replace_in_file>`;

const $ = (id) => document.getElementById(id);
$("input").value = SAMPLE;

function renderBlock(block) {
  const item = document.createElement("li");
  item.className = `${block.type}${block.partial ? " partial" : ""}`;
  const kind = document.createElement("span");
  kind.className = "kind";
  kind.textContent = block.type === "text" ? "text" : `tool_use: ${block.name}`;
  item.append(kind, block.partial ? "(partial)" : "");
  const body = document.createElement("pre");
  body.textContent = block.type === "text"
    ? block.content
    : Object.entries(block.params).map(([k, v]) => `${k} = ${v}`).join("\n");
  item.append(body);
  return item;
}

/** Redraws blocks from index `first` on; earlier ones did not change. */
function redraw(list, blocks, first) {
  while (list.children.length > first) list.lastChild.remove();
  for (let i = first; i < blocks.length; i++) list.append(renderBlock(blocks[i]));
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function stream() {
  const text = $("input").value;
  const size = Math.max(1, Number($("chunk").value) || 1);
  const delay = Math.max(0, Number($("delay").value) || 0);
  const parser = new AssistantMessageParser();
  const list = $("blocks");
  list.replaceChildren();
  let redrawn = 0;
  for (let at = 0; at < text.length; at += size) {
    const first = parser.push(text.slice(at, at + size));
    if (first < parser.length) {
      const blocks = [];
      for (let i = 0; i < parser.length; i++) blocks.push(i < first ? null : parser.block(i));
      redraw(list, blocks, first);
      redrawn += parser.length - first;
    }
    $("status").textContent = `${Math.min(at + size, text.length)} / ${text.length} characters`;
    if (delay) await sleep(delay);
  }
  $("status").textContent = `done: ${parser.length} blocks, ${redrawn} block redraws`;
  document.body.dataset.state = "done";
}

$("stream").addEventListener("click", () => { document.body.dataset.state = "streaming"; stream(); });
$("parse").addEventListener("click", () => {
  const blocks = parseAssistantMessage($("input").value);
  redraw($("blocks"), blocks, 0);
  $("status").textContent = `done: ${blocks.length} blocks`;
  document.body.dataset.state = "done";
});
document.body.dataset.state = "ready";
