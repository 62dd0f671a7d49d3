// A tiny static file server for tests and scripts/serve: URL prefixes map to directories.
import { createServer } from "node:http";
import { readFile, stat } from "node:fs/promises";
import { extname, join, normalize } from "node:path";

const TYPES = {
  ".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8", ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8", ".json": "application/json", ".wasm": "application/wasm", ".txt": "text/plain; charset=utf-8",
};

/** Starts a server on 127.0.0.1; `mounts` maps URL prefixes ("/pkg/") to directories. Resolves to {url, close}. */
export async function serve(mounts, port = 0) {
  const prefixes = Object.keys(mounts).sort((a, b) => b.length - a.length);
  const server = createServer(async (req, res) => {
    try {
      const path = decodeURIComponent(new URL(req.url, "http://x").pathname);
      const prefix = prefixes.find((p) => path.startsWith(p));
      if (!prefix) throw Object.assign(new Error("no mount"), { code: "ENOENT" });
      let file = normalize(join(mounts[prefix], path.slice(prefix.length)));
      if (!file.startsWith(normalize(mounts[prefix]))) throw Object.assign(new Error("outside"), { code: "ENOENT" });
      if ((await stat(file)).isDirectory()) file = join(file, "index.html");
      const body = await readFile(file);
      res.writeHead(200, { "content-type": TYPES[extname(file)] ?? "application/octet-stream", "cache-control": "no-store" });
      res.end(body);
    } catch (error) {
      res.writeHead(error.code === "ENOENT" ? 404 : 500, { "content-type": "text/plain" });
      res.end(String(error.message));
    }
  });
  await new Promise((resolve) => server.listen(port, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${server.address().port}/`;
  // NOTE: a browser keeps idle connections open; close them, or close() waits for their timeout.
  return { url, close: () => new Promise((resolve) => { server.close(resolve); server.closeAllConnections(); }) };
}
