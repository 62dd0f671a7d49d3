// The playground's entry: wires every panel, then restores the task kept in this browser (if
// any) or waits for a Start. The playground is a Task from the package, a workspace of files
// with tools over it, and a timeline of the task's say/ask messages with real UI for every
// ask; it holds no loop logic. Each module has one job: state.js (the page's only state),
// files.js, timeline.js, asks.js, settings.js, keeping.js with store.js, mcp-panel.js,
// running.js and tapes.js.
import { ready } from "clew";
import { renderFiles, wireFiles } from "./files.js";
import { loadKept, wireKeeping } from "./keeping.js";
import { wireMcpPanel } from "./mcp-panel.js";
import { restore, wireRunning } from "./running.js";
import { loadBuiltinTape, wireSettings } from "./settings.js";
import { wireTapes } from "./tapes.js";

wireFiles();
wireKeeping();
wireSettings();
wireMcpPanel();
wireRunning();
wireTapes();
loadBuiltinTape();
renderFiles();
const saved = await loadKept();
if (saved?.snapshot) {
  // NOTE: Task.restore is synchronous: the browser entry's wasm must have loaded.
  await ready;
  await restore(saved);
} else {
  document.body.dataset.state = "ready";
}
