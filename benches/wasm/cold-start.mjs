// node benches/wasm/cold-start.mjs PKG_DIR: what loading the package costs before its first call,
// beside its size: WebAssembly.compile and instantiate of clew_bg.wasm in Node, and in
// headless Chromium (Debian's, driven by playwright-core from pkg-tests). Every compile gets
// bytes no engine has seen (a custom section with a fresh name is appended), so no module
// cache answers; the figure is the median over the runs.
import { readFileSync, mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const dir = resolve(process.argv[2]);
const bytes = readFileSync(join(dir, "clew_bg.wasm"));
const RUNS = 15;

/** `wasm` plus a custom section named `name`. */
function unique(wasm, name) {
  const label = Buffer.from(name);
  const body = Buffer.concat([Buffer.from([label.length]), label]);
  return Buffer.concat([wasm, Buffer.from([0, body.length]), body]);
}

const median = (xs) => xs.sort((a, b) => a - b)[xs.length >> 1];

async function node() {
  const compile = [], instantiate = [];
  for (let i = 0; i < RUNS; i++) {
    // A fresh copy of the glue each time (its state is per module instance).
    const glue = await import(`${pathToFileURL(join(dir, "clew.js")).href}?run=${i}`);
    const input = unique(bytes, `cold-${i}-${Math.random()}`.slice(0, 40));
    let t = performance.now();
    const module = await WebAssembly.compile(input);
    compile.push(performance.now() - t);
    t = performance.now();
    // The glue's own initialisation: instantiate with its imports and run its start code.
    glue.initSync({ module });
    instantiate.push(performance.now() - t);
  }
  return { compile: median(compile), instantiate: median(instantiate) };
}

async function chromium() {
  const require = createRequire(join(process.cwd(), "pkg-tests", "package.json"));
  let playwright;
  try {
    playwright = require("playwright-core");
  } catch {
    return null;
  }
  const profile = mkdtempSync(join(tmpdir(), "clew-cold-"));
  const context = await playwright.chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    headless: true,
    args: ["--no-sandbox", "--disable-gpu"],
  });
  try {
    const page = await context.newPage();
    const result = await page.evaluate(async ({ b64, runs }) => {
      const wasm = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
      // Instantiation with stand-in imports (a function for each function import, a table
      // for the table import): its cost does not depend on what the imports do.
      const stubs = (module) => {
        const imports = {};
        for (const { module: from, name, kind } of WebAssembly.Module.imports(module)) {
          imports[from] ??= {};
          imports[from][name] = kind === "function" ? () => {} : kind === "table"
            ? new WebAssembly.Table({ element: "externref", initial: 128 }) : undefined;
        }
        return imports;
      };
      const compile = [], instantiate = [];
      for (let i = 0; i < runs; i++) {
        const label = new TextEncoder().encode(`cold-${i}-${Math.random()}`.slice(0, 40));
        const input = new Uint8Array(wasm.length + 3 + label.length);
        input.set(wasm);
        input.set([0, label.length + 1, label.length], wasm.length);
        input.set(label, wasm.length + 3);
        let t = performance.now();
        const module = await WebAssembly.compile(input);
        compile.push(performance.now() - t);
        const imports = stubs(module);
        t = performance.now();
        await WebAssembly.instantiate(module, imports);
        instantiate.push(performance.now() - t);
      }
      const median = (xs) => xs.sort((a, b) => a - b)[xs.length >> 1];
      return { compile: median(compile), instantiate: median(instantiate) };
    }, { b64: bytes.toString("base64"), runs: RUNS });
    return result;
  } finally {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  }
}

const n = await node();
const c = await chromium();
console.log("| engine | WebAssembly.compile | instantiate |\n|---|---|---|");
console.log(`| Node ${process.version} | ${n.compile.toFixed(2)} ms | ${n.instantiate.toFixed(2)} ms (the glue's initSync) |`);
console.log(c ? `| headless Chromium | ${c.compile.toFixed(2)} ms | ${c.instantiate.toFixed(2)} ms (stand-in imports) |` : "| headless Chromium | not available (pkg-tests not installed) | – |");
