// Where the installed package lives, and which file an `exports` condition list selects.
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const here = dirname(fileURLToPath(import.meta.url));
export const packageDir = join(here, "node_modules", "clew");
export const repoRoot = join(here, "..");
export const manifest = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8"));

/** The file `exports["."]` gives for the first matching condition, as a bundler or runtime picks it. */
export function entryFor(conditions) {
  const entry = manifest.exports["."];
  const key = Object.keys(entry).find((k) => k !== "types" && (conditions.includes(k) || k === "default"));
  return join(packageDir, entry[key]);
}
