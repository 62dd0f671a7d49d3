// Small DOM helpers the playground's modules share; no state and no knowledge of tasks.

/** The element with id `id`. */
export const $ = (id) => document.getElementById(id);

/** A `<button type=button>` with `label` and `className` that calls `onClick`. */
export function button(label, className, onClick) {
  const b = document.createElement("button");
  b.type = "button";
  b.textContent = label;
  b.className = className;
  b.addEventListener("click", onClick);
  return b;
}

/** `text` parsed as JSON, or null when it is not JSON. */
export function parseJson(text) {
  try { return JSON.parse(text); } catch { return null; }
}

/** Offers `value` as a JSON file named `name` for download. */
export function download(name, value, indent) {
  const url = URL.createObjectURL(new Blob([JSON.stringify(value, null, indent)], { type: "application/json" }));
  const a = Object.assign(document.createElement("a"), { href: url, download: name });
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
