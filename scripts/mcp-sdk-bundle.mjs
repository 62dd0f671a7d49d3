// node scripts/mcp-sdk-bundle.mjs: bundles the MCP SDK's client for the playground into
// www/mcp-sdk.js (one minified ES module), which www/index.html's import map gives for the two
// SDK modules that clew/mcp imports. scripts/build runs it; it needs esbuild and
// @modelcontextprotocol/sdk from pkg-tests/node_modules (scripts/setup installs them).
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const tests = join(root, "pkg-tests");

/** The two modules clew/mcp imports, re-exported from one entry. */
const ENTRY = [
  'export { Client } from "@modelcontextprotocol/sdk/client/index.js";',
  'export { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";',
].join("\n");

/** Writes the bundle to `outfile` (www/mcp-sdk.js by default) and resolves to its path. */
export async function bundleMcpSdk(outfile = join(root, "www", "mcp-sdk.js")) {
  if (!existsSync(join(tests, "node_modules", "esbuild"))) throw new Error("[build] esbuild is missing from pkg-tests/node_modules: run scripts/setup");
  const { build } = createRequire(join(tests, "package.json"))("esbuild");
  await build({
    stdin: { contents: ENTRY, resolveDir: tests, sourcefile: "mcp-sdk-entry.js" },
    bundle: true, platform: "browser", format: "esm", minify: true, legalComments: "none",
    outfile, logLevel: "error",
  });
  return outfile;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const outfile = await bundleMcpSdk();
  console.log(`[build] ${outfile.slice(root.length + 1)}: the MCP SDK client for the playground`);
}
