// Where the installed package lives, and which file an `exports` condition list selects.
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The pkg-tests folder (this file sits in its support/ folder). */
export const here = join(dirname(fileURLToPath(import.meta.url)), "..");
export const packageDir = join(here, "node_modules", "clew");
export const repoRoot = join(here, "..");
export const manifest = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8"));

/**
 * The file `exports[subpath]` gives for a list of conditions, as a bundler or runtime picks it:
 * the first key (in order) that is listed or is "default", nested objects followed.
 */
export function entryFor(conditions, subpath = ".") {
  let entry = manifest.exports[subpath];
  while (typeof entry === "object") {
    const key = Object.keys(entry).find((k) => k !== "types" && (conditions.includes(k) || k === "default"));
    entry = entry[key];
  }
  return join(packageDir, entry);
}

/** Options of a Miniflare (workerd) instance running `scriptPath` with the installed package, as wrangler bundles it. */
export function workerOptions(scriptPath) {
  return {
    host: "127.0.0.1", port: 0, modules: true, scriptPath, modulesRoot: here,
    modulesRules: [{ type: "ESModule", include: ["**/*.js", "**/*.mjs"] }, { type: "CompiledWasm", include: ["**/*.wasm"] }],
    compatibilityDate: "2025-09-01",
  };
}

/** esbuild options as wrangler bundles a Worker: the `workerd` export condition, `.wasm` imports kept as modules. */
export const wranglerOptions = {
  bundle: true,
  format: "esm",
  platform: "neutral",
  conditions: ["workerd", "worker", "browser"],
  mainFields: ["module", "main"],
  external: ["cloudflare:*"],
  loader: { ".wasm": "copy" },
  assetNames: "[name]",
};
