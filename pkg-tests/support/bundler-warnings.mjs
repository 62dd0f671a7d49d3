// No bundler may warn about a file of the package (issue 28: `wrangler dev` printed 7
// `Duplicate key "./snippets/…/boundary.js"` warnings pointing into clew.js). The bundling tests
// collect each bundler's warnings as text and fail on any that names a package file.
import assert from "node:assert/strict";
import { cpSync, mkdirSync, symlinkSync } from "node:fs";
import { join, relative } from "node:path";
import { packageDir } from "./package-dir.mjs";

/**
 * The warnings (each turned into text) that name a file of the package: one under
 * `node_modules/clew/`, or under one of `roots` (a copy linked from elsewhere, by its absolute
 * path or its path from the working directory, as esbuild prints it).
 */
export function packageWarnings(warnings, roots = []) {
  const marks = ["node_modules/clew/", ...roots.flatMap((root) => [`${root}/`, `${relative(process.cwd(), root)}/`])];
  return warnings.map(String).filter((warning) => marks.some((mark) => warning.includes(mark)));
}

/** Fails with every warning of `bundler` that names a package file. */
export function assertNoPackageWarnings(bundler, warnings, roots = []) {
  const found = packageWarnings(warnings, roots);
  assert.equal(found.length, 0, `${bundler} warned about the package's files:\n${found.join("\n")}`);
}

/** esbuild's warnings (a build result's `warnings`) as text: `file:line:column: [id] text`. */
export const esbuildWarnings = (result) =>
  result.warnings.map((w) => `${w.location ? `${w.location.file}:${w.location.line}:${w.location.column}: ` : ""}[${w.id}] ${w.text}`);

/**
 * The installed package copied to `dir/clew` and linked as `dir/node_modules/clew`, as
 * `npm install ../pkg`, `npm link` and workspaces lay out a package: esbuild (and so wrangler)
 * follows the link and reports warnings that it keeps quiet about in a file under
 * node_modules. Returns the copy's directory, the root to give `packageWarnings`.
 */
export function linkPackage(dir) {
  const copy = join(dir, "clew");
  cpSync(packageDir, copy, { recursive: true });
  mkdirSync(join(dir, "node_modules"), { recursive: true });
  symlinkSync(copy, join(dir, "node_modules", "clew"));
  return copy;
}
