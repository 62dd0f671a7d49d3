// A forward HTTP proxy for the headless wasm suite (scripts/wasm-web): one upstream connection
// per request, closed after its response.
//
// Why: wasm-bindgen-test-runner serves the test page with tiny_http, whose thread pool can queue
// a new connection's task while every thread sits on another keep-alive connection. Chromium
// opens up to six keep-alive connections at once when the page imports its snippet modules, and
// about one run in three the last one is never read: the page stays at "Loading scripts..." until
// the runner times out. Through this proxy every connection to the runner closes after one
// request, so a queued task starts as soon as any response is sent.
//
// Prints the port it listens on, then serves until killed.
import http from "node:http";

const server = http.createServer((req, res) => {
  let target;
  try {
    target = new URL(req.url);
  } catch {
    res.writeHead(400).end("absolute-form request URL expected");
    return;
  }
  const upstream = http.request(
    {
      host: target.hostname,
      port: target.port,
      path: target.pathname + target.search,
      method: req.method,
      headers: { ...req.headers, connection: "close" },
      agent: false,
    },
    (reply) => {
      res.writeHead(reply.statusCode ?? 502, reply.headers);
      reply.pipe(res);
    },
  );
  upstream.on("error", (error) => {
    if (!res.headersSent) res.writeHead(502);
    res.end(String(error));
  });
  req.pipe(upstream);
});
server.listen(0, "127.0.0.1", () => console.log(server.address().port));
