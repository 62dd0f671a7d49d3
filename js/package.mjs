// Turns wasm-pack's --target web output in pkg/ into the npm package `clew`: adds the entry
// modules for Node, browsers/bundlers and workerd, and writes package.json with `exports`.
import { copyFileSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const pkg = resolve(root, process.argv[2] ?? "pkg");
const generated = JSON.parse(readFileSync(join(pkg, "package.json"), "utf8"));
const entries = ["node.js", "browser.js", "workerd.js", "parser.js", "index.d.ts"];
for (const file of entries) copyFileSync(join(root, "js", file), join(pkg, file));
copyFileSync(join(root, "README.md"), join(pkg, "README.md"));
rmSync(join(pkg, ".gitignore"), { force: true });

const manifest = {
  name: "clew",
  version: generated.version,
  description: generated.description,
  license: generated.license,
  type: "module",
  files: ["clew.js", "clew.d.ts", "clew_bg.wasm", "clew_bg.wasm.d.ts", "snippets/", ...entries, "README.md"],
  types: "./index.d.ts",
  main: "./node.js",
  browser: "./browser.js",
  exports: {
    ".": {
      types: "./index.d.ts",
      workerd: "./workerd.js",
      node: "./node.js",
      browser: "./browser.js",
      default: "./browser.js",
    },
    "./clew_bg.wasm": "./clew_bg.wasm",
    "./package.json": "./package.json",
  },
  sideEffects: ["./node.js", "./browser.js", "./workerd.js"],
  keywords: generated.keywords,
  engines: { node: ">=18" },
};
writeFileSync(join(pkg, "package.json"), JSON.stringify(manifest, null, 2) + "\n");
console.log(`[build] ${pkg}/package.json written (${manifest.name}@${manifest.version})`);
