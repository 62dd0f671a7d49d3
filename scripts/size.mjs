// node scripts/size.mjs [PKG_DIR] [--check]: the package's size, file by file, raw and
// gzipped (level 9), and what each entry point loads (its static import closure). With
// --check, fails when the browser entry (browser.js, everything it imports, and the wasm)
// passes the budget in size-budget.json, the one place the budget is written.
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { gzipSync } from "node:zlib";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);
const dir = resolve(args.find((a) => !a.startsWith("--")) ?? join(root, "pkg"));
const check = args.includes("--check");

const sizes = new Map();
function size(file) {
  if (!sizes.has(file)) {
    const bytes = readFileSync(file);
    sizes.set(file, { raw: bytes.length, gz: gzipSync(bytes, { level: 9 }).length });
  }
  return sizes.get(file);
}

/** Modules an entry loads only for a feature in use: listed apart, not in its size. */
const ON_DEMAND = ["mcp-servers.js"];

/** The files `entry` loads: itself, what it imports (transitively), and the wasm it fetches. */
function closure(entry, seen = new Set()) {
  if (seen.has(entry)) return seen;
  seen.add(entry);
  if (!entry.endsWith(".js") && !entry.endsWith(".cjs")) return seen;
  const text = readFileSync(entry, "utf8");
  const refs = [...text.matchAll(/(?:from\s*|import\s*\(?\s*|new URL\(\s*)["'](\.{1,2}\/[^"']+)["']/g)].map((m) => m[1]);
  // NOTE: mcp-servers.js loads only in a task that has MCP servers (js/boundary/options.js
  // `clew_mcp`): an entry's size is what every page pays.
  for (const ref of refs.filter((r) => !ON_DEMAND.some((f) => r.endsWith(f)))) closure(resolve(dirname(entry), ref), seen);
  return seen;
}

const kb = (n) => `${(n / 1000).toFixed(1)} KB`;
const rows = [];
for (const name of ["clew_bg.wasm", "clew.js", "api.js", "browser.js", "inline.js", "clew_wasm_base64.js", "node.js", "workerd.js", "edge-light.js", "index.cjs", ...ON_DEMAND, "mcp.js"]) {
  if (!existsSync(join(dir, name))) continue;
  const { raw, gz } = size(join(dir, name));
  rows.push(`| ${name} | ${raw} | ${gz} |`);
}
console.log("| file | raw bytes | gzipped bytes |\n|---|---|---|\n" + rows.join("\n"));

const entries = [];
let browserTotal = 0;
for (const name of ["browser.js", "inline.js", "workerd.js"]) {
  const files = [...closure(join(dir, name))];
  const total = files.reduce((sum, f) => sum + size(f).gz, 0);
  if (name === "browser.js") browserTotal = total;
  entries.push(`| ${name} | ${files.length} | ${kb(total)} | ${files.map((f) => relative(dir, f)).join(", ")} |`);
}
console.log("\n| entry | files | gzipped, each file as served | files loaded |\n|---|---|---|---|\n" + entries.join("\n"));

if (check) {
  const budget = JSON.parse(readFileSync(join(root, "size-budget.json"), "utf8"));
  const limit = budget.browserEntryGzipBytes;
  if (browserTotal > limit) {
    console.error(`[size] the browser entry is ${browserTotal} bytes gzipped, over the budget of ${limit} (size-budget.json)`);
    process.exit(1);
  }
  console.log(`\n[size] browser entry ${browserTotal} bytes gzipped, within the budget of ${limit} (size-budget.json)`);
}
