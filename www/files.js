// The workspace panel: the list of files, the one shown, and the Reset button.
import { $ } from "./dom.js";
import { state, workspace } from "./state.js";
import { SAMPLE_FILES } from "./workspace.js";

/** Draws the file list and the shown file; `changedPath` is marked as just changed. */
export function renderFiles(changedPath) {
  const list = $("files");
  list.replaceChildren();
  for (const path of [...workspace.files.keys()].sort()) {
    const li = document.createElement("li");
    const button = document.createElement("button");
    button.type = "button";
    button.textContent = path;
    button.dataset.path = path;
    if (path === state.shown) button.classList.add("shown");
    if (path === changedPath) li.classList.add("changed");
    button.addEventListener("click", () => { state.shown = path; renderFiles(); });
    li.append(button);
    list.append(li);
  }
  $("file").textContent = workspace.files.get(state.shown) ?? "";
  $("file").dataset.path = state.shown;
}

/** Shows each change of the files (the changed one), and resets them on Reset. */
export function wireFiles() {
  workspace.addEventListener("change", (event) => {
    if (event.path) state.shown = event.path;
    renderFiles(event.path);
  });
  $("reset").addEventListener("click", () => workspace.load(SAMPLE_FILES));
}
