// Turns wasm-pack's --target web output in pkg/ into the npm package `clew`: the entry
// modules (Node ESM and CommonJS, browsers and bundlers, workerd and edge, the inlined wasm),
// one declaration file, the npm README, and package.json with its `exports`.
import { copyFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { execFileSync } from "node:child_process";
import { shortenWasmNames } from "./wasm-names.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const pkg = resolve(root, process.argv[2] ?? "pkg");
const generated = JSON.parse(readFileSync(join(pkg, "package.json"), "utf8"));

// The generated bindings import js/errors.js from snippets/clew-<hash>/js/errors.js; the
// entries export the classes from that same module, so `instanceof` holds.
const snippet = readdirSync(join(pkg, "snippets")).find((dir) => {
  try { return readFileSync(join(pkg, "snippets", dir, "js", "errors.js")); } catch { return false; }
});
if (!snippet) throw new Error("[build] snippets/*/js/errors.js not found in " + pkg);
const errorsModule = `./snippets/${snippet}/js/errors.js`;
// js/boundary/, one module per job, each imported by the wasm room that needs it; the one
// the wasm does not import (guards.js) is copied in too. They are bundled into
// clew.js below, which re-exports what the entries take from them.
const boundary = `./snippets/${snippet}/js/boundary`;
cpSync(join(root, "js", "boundary"), join(pkg, boundary), { recursive: true });

const entries = ["node.js", "browser.js", "workerd.js", "edge-light.js", "inline.js", "api.js"];
// The two classes that subclass the bindings', and Task's statics written in JavaScript
// (bundled into clew.js below).
const subclasses = ["parser.js", "assembler.js", "snapshot-parts.js"];
for (const file of [...entries, ...subclasses]) {
  const text = readFileSync(join(root, "js", file), "utf8")
    .replaceAll("__ERRORS_MODULE__", errorsModule)
    .replaceAll("__BOUNDARY_MODULE__", "./clew.js");
  writeFileSync(join(pkg, file), text);
}
// Modules the entries do not import: the MCP servers' glue (loaded on demand by a task with
// servers), `clew/mcp` (imports the MCP SDK, a peer dependency) and `clew/cassette` (record
// and replay: the folder cassette/, entered by its index.js, whose modules import the entry
// through the package's own name).
const cassette = readdirSync(join(root, "js", "cassette")).filter((f) => f.endsWith(".js")).sort().map((f) => `cassette/${f}`);
const onDemand = ["mcp-servers.js", "mcp-watch.js", "mcp.js", "mcp-workerd.js", ...cassette];
mkdirSync(join(pkg, "cassette"), { recursive: true });
for (const file of onDemand) {
  writeFileSync(join(pkg, file), readFileSync(join(root, "js", file), "utf8").replaceAll("__CLEW_VERSION__", generated.version));
}
// Every class the bindings export checks that its object is alive (js/boundary/guards.js).
let glue = readFileSync(join(pkg, "clew.js"), "utf8");
const classes = [...glue.matchAll(/^export class (\w+)/gm)].map((m) => m[1]);
// The public classes and functions keep their names (stack traces, `guardClasses`' messages)
// although the bindings are minified without --keep-names, which would wrap every function.
const exported = [...glue.matchAll(/^export (?:class|function) (\w+)/gm)].map((m) => `[${m[1]}, "${m[1]}"]`);
if (!glue.includes("guardClasses(")) {
  // Short names for the wasm's hashed imports and closure exports (scripts/wasm-names.mjs).
  const shortened = shortenWasmNames(readFileSync(join(pkg, "clew_bg.wasm")), glue);
  glue = shortened.glue;
  writeFileSync(join(pkg, "clew_bg.wasm"), shortened.wasm);
  const rawTypes = join(pkg, "clew_bg.wasm.d.ts");
  writeFileSync(rawTypes, readFileSync(rawTypes, "utf8").replace(
    /\bwasm_bindgen__convert__closures_+invoke__h[0-9a-f]{16}\b/g, (name) => shortened.exportNames.get(name) ?? name));
  // The exports that return one externref (`any` in the generated declarations) are called
  // through a Proxy: js/boundary/guards.js `clew_wasm_exports`.
  const refReturning = [...readFileSync(join(pkg, "clew_bg.wasm.d.ts"), "utf8").matchAll(/^export const (\w+): \(.*\) => any;$/gm)].map((m) => m[1]);
  const init = /^(\s*)wasm = instance\.exports;$/m;
  if (!init.test(glue)) throw new Error("[build] `wasm = instance.exports;` not found in the bindings");
  glue = glue.replace(init, `$1wasm = clew_wasm_exports(instance.exports, ${JSON.stringify(refReturning)});`);
  // wasm-bindgen imports a snippet once per function the wasm takes from it unchanged (`import * as
  // import1 from ".../calls.js"`, then import2, …) and names each in the wasm's import object:
  // duplicate keys, which esbuild (and so wrangler) reports as warnings. One of each is enough.
  const namespaces = new Map();
  const escape = (text) => text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
  for (const [line, name, module] of glue.matchAll(/^import \* as (\w+) from ("[^"]+");?\n/gm)) {
    if (!namespaces.has(module)) { namespaces.set(module, name); continue; }
    const key = new RegExp(`^\\s*${escape(`${module}: ${name},`)}\n`, "m");
    if (!key.test(glue)) throw new Error(`[build] the import object's ${module}: ${name} not found in the bindings`);
    glue = glue.replace(line, "").replace(key, "");
  }
  const keys = [...glue.matchAll(/^\s*("[^"]+"): \w+,$/gm)].map((m) => m[1]);
  const twice = keys.filter((key, i) => keys.indexOf(key) !== i);
  if (twice.length) throw new Error(`[build] the bindings' import object names ${twice.join(", ")} more than once`);
  // Every entry hands init or initSync the wasm (browser.js its URL), so the bindings' default
  // never runs; it goes, and with it an `import.meta` that esbuild reports in iife and CommonJS
  // bundles.
  const defaultUrl = /^\s*if \(module_or_path === undefined\) \{\n\s*module_or_path = new URL\('clew_bg\.wasm', import\.meta\.url\);\n\s*\}\n/m;
  if (!defaultUrl.test(glue)) throw new Error("[build] the bindings' default wasm URL not found");
  glue = glue.replace(defaultUrl, "");
  glue = `import { guardClasses, clew_wasm_exports } from "${boundary}/guards.js";\n${glue}
for (const [value, name] of [${exported.join(", ")}]) Object.defineProperty(value, "name", { value: name, configurable: true });
guardClasses([${classes.join(", ")}]);
export { clew_mcp_import } from "${boundary}/options.js";\n`;
  writeFileSync(join(pkg, "clew.js"), glue);
}
const wasm = readFileSync(join(pkg, "clew_bg.wasm"));
// A dependency that pulls in a host function shows as an import from "env": no runtime has it.
const envImports = WebAssembly.Module.imports(new WebAssembly.Module(wasm)).filter((i) => i.module === "env");
if (envImports.length) throw new Error(`[build] clew_bg.wasm imports from "env": ${envImports.map((i) => i.name).join(", ")}`);
writeFileSync(join(pkg, "clew_wasm_base64.js"), `// The wasm module, base64 (generated by scripts/build).\nexport default "${wasm.toString("base64")}";\n`);

const esbuild = join(root, "pkg-tests", "node_modules", ".bin", "esbuild");
if (!existsSync(esbuild)) throw new Error("[build] esbuild is missing from pkg-tests/node_modules: run scripts/setup");

// Every module is minified in place: the glue is a third smaller gzipped. Its documentation
// lives in index.d.ts. Names are kept (--keep-names) where a class or function name is seen
// by users (the entries, the error classes); the bindings name their exports themselves
// (above) and the boundary modules export only internal helpers, so the bindings and the
// boundary modules bundled into them go without it (-0.8 KB). clew.js is one module: the
// bindings, the boundary modules and the subclasses the entries export (AssistantMessageParser
// and ToolCallAssembler, which keep their names), about 430 B gzipped less than three files.
// errors.js stays a module of its own: the entries export its classes, and `instanceof`
// needs the one copy.
renameSync(join(pkg, "clew.js"), join(pkg, "clew-bindings.js"));
for (const file of subclasses) {
  writeFileSync(join(pkg, file), readFileSync(join(pkg, file), "utf8").replaceAll('"./clew.js"', '"./clew-bindings.js"'));
}
writeFileSync(join(pkg, "clew-bundle.js"), `export * from "./clew-bindings.js";
export { default } from "./clew-bindings.js";
import { AssistantMessageParser } from "./parser.js";
import { ToolCallAssembler } from "./assembler.js";
import { withSnapshotParts } from "./snapshot-parts.js";
import { Task } from "./clew-bindings.js";
withSnapshotParts(Task);
for (const [value, name] of [[AssistantMessageParser, "AssistantMessageParser"], [ToolCallAssembler, "ToolCallAssembler"]]) Object.defineProperty(value, "name", { value: name, configurable: true });
export { AssistantMessageParser, ToolCallAssembler };
`);
execFileSync(esbuild, [join(pkg, "clew-bundle.js"), "--bundle", "--format=esm", "--minify", `--external:${errorsModule}`,
  `--outfile=${join(pkg, "clew.js")}`, "--log-level=error"], { stdio: "inherit" });
for (const file of ["clew-bindings.js", "clew-bundle.js", ...subclasses]) rmSync(join(pkg, file));
rmSync(join(pkg, boundary), { recursive: true });
const snippetFiles = readdirSync(join(pkg, "snippets", snippet), { recursive: true })
  .filter((f) => f.endsWith(".js"))
  .map((f) => join("snippets", snippet, f));
for (const file of [...entries, ...onDemand, ...snippetFiles]) {
  execFileSync(esbuild, [join(pkg, file), "--minify", "--keep-names", "--allow-overwrite", `--outfile=${join(pkg, file)}`,
    "--log-level=error"], { stdio: "inherit" });
}

// The minifier drops every comment, the two that keep bundlers away from the MCP support's
// run-time import included (js/inline.js, js/browser.js): they go back in.
for (const file of ["inline.js", "browser.js"]) {
  const text = readFileSync(join(pkg, file), "utf8");
  const imports = text.match(/\bimport\((\w+)\)/g) ?? [];
  if (imports.length !== 1) throw new Error(`[build] ${file} has ${imports.length} run-time imports, not the MCP support's one`);
  writeFileSync(join(pkg, file), text.replace(/\bimport\((\w+)\)/, "import(/* webpackIgnore: true */ /* @vite-ignore */ $1)"));
}

// CommonJS: one bundle of the inline entry.
// `import.meta.url` is the package root's (the MCP support is imported from beside it).
execFileSync(esbuild, [join(pkg, "inline.js"), "--bundle", "--format=cjs", "--platform=node", "--target=node18",
  "--define:import.meta.url=__clew_url", '--banner:js=var __clew_url = require("url").pathToFileURL(__filename).href;',
  `--outfile=${join(pkg, "index.cjs")}`, "--log-level=error"], { stdio: "inherit" });

// Declarations: the generated ones without wasm-bindgen's init internals (and without
// `Symbol.dispose`, which needs lib esnext.disposable), plus the entries' own exports.
let types = readFileSync(join(pkg, "clew.d.ts"), "utf8");
const init = types.indexOf("export type InitInput");
if (init >= 0) types = types.slice(0, init);
types = types.replace(/^\s*\[Symbol\.dispose\]\(\): void;\n/gm, "");
types += readFileSync(join(root, "js", "index.d.ts"), "utf8");
writeFileSync(join(pkg, "index.d.ts"), types);
writeFileSync(join(pkg, "index.d.cts"), types);
rmSync(join(pkg, "clew.d.ts"), { force: true });
copyFileSync(join(root, "js", "README.md"), join(pkg, "README.md"));
copyFileSync(join(root, "js", "mcp.d.ts"), join(pkg, "mcp.d.ts"));
copyFileSync(join(root, "js", "cassette", "index.d.ts"), join(pkg, "cassette", "index.d.ts"));
// cassette.js and its declarations at the root, where the cassette was before it became a
// folder: an import map or a script that named the file keeps working.
const cassetteRoot = "// `clew/cassette`, kept at its earlier path: the cassette is the folder cassette/.\nexport * from \"./cassette/index.js\";\n";
writeFileSync(join(pkg, "cassette.js"), cassetteRoot);
writeFileSync(join(pkg, "cassette.d.ts"), cassetteRoot);
writeFileSync(join(pkg, "mcp-servers.d.ts"), "// `import \"clew/mcp-servers\"` puts clew's MCP support in a bundle; it exports nothing.\nexport {};\n");
rmSync(join(pkg, ".gitignore"), { force: true });

const manifest = {
  name: "clew",
  version: generated.version,
  description: generated.description,
  license: generated.license,
  type: "module",
  files: ["clew.js", "clew_bg.wasm", "clew_bg.wasm.d.ts", "clew_wasm_base64.js", "snippets/", ...entries, ...onDemand, "index.cjs", "index.d.ts", "index.d.cts", "mcp.d.ts", "mcp-servers.d.ts", "cassette/index.d.ts", "cassette.js", "cassette.d.ts", "README.md"],
  types: "./index.d.ts",
  main: "./index.cjs",
  module: "./inline.js",
  browser: "./browser.js",
  exports: {
    ".": {
      workerd: { types: "./index.d.ts", default: "./workerd.js" },
      "edge-light": { types: "./index.d.ts", default: "./edge-light.js" },
      browser: { types: "./index.d.ts", default: "./browser.js" },
      node: { import: { types: "./index.d.ts", default: "./node.js" }, require: { types: "./index.d.cts", default: "./index.cjs" } },
      require: { types: "./index.d.cts", default: "./index.cjs" },
      import: { types: "./index.d.ts", default: "./inline.js" },
      default: { types: "./index.d.ts", default: "./inline.js" },
    },
    "./inline": {
      require: { types: "./index.d.cts", default: "./index.cjs" },
      default: { types: "./index.d.ts", default: "./inline.js" },
    },
    "./mcp": {
      workerd: { types: "./mcp.d.ts", default: "./mcp-workerd.js" },
      default: { types: "./mcp.d.ts", default: "./mcp.js" },
    },
    "./mcp-servers": { types: "./mcp-servers.d.ts", default: "./mcp-servers.js" },
    "./cassette": { types: "./cassette/index.d.ts", default: "./cassette/index.js" },
    "./clew_bg.wasm": "./clew_bg.wasm",
    "./package.json": "./package.json",
  },
  sideEffects: ["./node.js", "./browser.js", "./workerd.js", "./edge-light.js", "./inline.js", "./index.cjs", "./mcp-servers.js", "./mcp.js", "./mcp-workerd.js"],
  keywords: generated.keywords,
  engines: { node: ">=20" },
  peerDependencies: { "@modelcontextprotocol/sdk": "^1.20.0" },
  peerDependenciesMeta: { "@modelcontextprotocol/sdk": { optional: true } },
};
writeFileSync(join(pkg, "package.json"), JSON.stringify(manifest, null, 2) + "\n");
console.log(`[build] ${pkg}/package.json written (${manifest.name}@${manifest.version})`);
