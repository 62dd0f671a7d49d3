// The comparison of a recorded task with its replay: equal up to the tape's placeholders.

/**
 * Whether `replayed` is `recorded` with each redacted value (`redacted-<n>`, also inside a
 * string) standing for one recorded value everywhere, and each recorded value for one
 * placeholder: the history a tape gives back is the recorded one, redacted.
 */
export function sameRedacted(recorded, replayed, bound = new Map(), back = new Map(), path = "$") {
  if (typeof recorded === "string" && typeof replayed === "string" && recorded !== replayed) {
    const parts = replayed.split(/(redacted-\d+)/);
    if (parts.length === 1) return `${path}: ${recorded.slice(0, 60)} / ${replayed.slice(0, 60)}`;
    const pattern = new RegExp("^" + parts.map((p, i) => (i % 2 ? "(.+?)" : p.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))).join("") + "$", "s");
    const found = recorded.match(pattern);
    if (!found) return `${path}: ${recorded.slice(0, 60)} / ${replayed.slice(0, 60)}`;
    for (let j = 1; j < parts.length; j += 2) {
      const [placeholder, value] = [parts[j], found[(j + 1) / 2]];
      if ((bound.get(placeholder) ?? value) !== value || (back.get(value) ?? placeholder) !== placeholder) return `${path}: ${placeholder} stands for two values`;
      bound.set(placeholder, value);
      back.set(value, placeholder);
    }
    return null;
  }
  if (replayed && typeof replayed === "object" && recorded && typeof recorded === "object") {
    for (const key of new Set([...Object.keys(recorded), ...Object.keys(replayed)])) {
      const d = sameRedacted(recorded[key], replayed[key], bound, back, `${path}.${key}`);
      if (d) return d;
    }
    return null;
  }
  return recorded === replayed ? null : `${path}: ${JSON.stringify(recorded)} / ${JSON.stringify(replayed)}`;
}
