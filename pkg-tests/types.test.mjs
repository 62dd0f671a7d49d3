// The package's TypeScript declarations compile under --strict and type the real API.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { here } from "./support/package-dir.mjs";

/** Type-checks `types/<file>` with exactly the libraries `lib` (no @types package). */
function tsc(file, lib, module = "nodenext") {
  const bin = join(here, "node_modules", "typescript", "bin", "tsc");
  const config = join(here, "types", `.tsconfig-${file}.json`);
  writeFileSync(config, JSON.stringify({
    compilerOptions: { noEmit: true, strict: true, target: "es2022", module, moduleResolution: module, lib: lib.split(","), types: [], skipLibCheck: false },
    files: [file],
  }));
  try {
    execFileSync(process.execPath, [bin, "-p", config], { cwd: here, encoding: "utf8", stdio: "pipe" });
  } catch (error) {
    assert.fail(`tsc failed (${file}, lib ${lib}):\n${error.stdout}${error.stderr}`);
  } finally {
    rmSync(config, { force: true });
  }
}

test("types/usage.ts type-checks against the installed package, with the DOM library", () => {
  tsc("usage.ts", "es2022,dom,dom.iterable");
  tsc("usage.ts", "es2022,esnext.disposable,dom,dom.iterable,dom.asynciterable");
});

test("the declarations compile without the DOM library (lib ES2022 only)", () => {
  tsc("no-dom.ts", "es2022");
});

test("require(\"clew\") has types from a CommonJS file", () => {
  tsc("commonjs.cts", "es2022", "node16");
});
