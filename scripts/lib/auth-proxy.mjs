// A header-adding reverse proxy for MCP clients that cannot send an Authorization header (the conformance suite's
// CLI, docs/mcp.md §Conformance): every request is forwarded to `target` unchanged (method, path, body, every
// header including Host, so the server's Host/Origin guard still sees what the client sent) plus
// `Authorization` when the client sent none. Responses, including long-lived SSE streams, are piped back
// unbuffered. Loopback only.
import { createServer, request as httpRequest } from "node:http";

/**
 * Starts the proxy on 127.0.0.1 (`port` 0 = any free port).
 * @param {{ target: string, authorization: string, port?: number }} options `target` an http origin such as
 *   `http://127.0.0.1:8788`; `authorization` the header value, e.g. `Token svc_test_…`
 * @returns {Promise<{ origin: string, port: number, close: () => Promise<void> }>}
 */
export function startAuthProxy({ target, authorization, port = 0 }) {
  const upstream = new URL(target);
  const server = createServer((req, res) => {
    const headers = { ...req.headers };
    if (!headers.authorization) headers.authorization = authorization;
    const forward = httpRequest(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers,
      },
      (upstreamRes) => {
        res.writeHead(upstreamRes.statusCode ?? 502, upstreamRes.statusMessage, upstreamRes.headers);
        res.flushHeaders();
        upstreamRes.pipe(res);
      },
    );
    forward.on("error", () => {
      if (!res.headersSent) res.writeHead(502, { "Content-Type": "text/plain" });
      res.end("proxy: upstream unreachable");
    });
    // The client went away (e.g. closed its SSE stream): stop the upstream request too.
    res.on("close", () => forward.destroy());
    req.pipe(forward);
  });
  // SSE streams stay open for as long as the client wants.
  server.requestTimeout = 0;
  server.headersTimeout = 0;
  return new Promise((resolvePromise, reject) => {
    server.on("error", reject);
    server.listen(port, "127.0.0.1", () => {
      const { port: actual } = server.address();
      resolvePromise({
        origin: `http://127.0.0.1:${actual}`,
        port: actual,
        close: () =>
          new Promise((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}
