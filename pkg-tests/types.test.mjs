// The package's TypeScript declarations compile under --strict and type the real API.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { here } from "./package-dir.mjs";

test("types/usage.ts type-checks against the installed package", () => {
  const tsc = join(here, "node_modules", "typescript", "bin", "tsc");
  const args = [tsc, "--noEmit", "--strict", "--target", "es2022", "--module", "nodenext", "--moduleResolution", "nodenext",
    "--lib", "es2022,esnext.disposable,dom,dom.iterable", "--skipLibCheck", "false", join(here, "types", "usage.ts")];
  try {
    execFileSync(process.execPath, args, { cwd: here, encoding: "utf8", stdio: "pipe" });
  } catch (error) {
    assert.fail(`tsc failed:\n${error.stdout}${error.stderr}`);
  }
});
