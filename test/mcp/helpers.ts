import { exports } from "cloudflare:workers";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";

/** `/mcp` of the Worker under test, on a loopback host (the DNS-rebinding guard allows loopback by default). */
export const MCP_URL = "http://localhost:8787/mcp";

/** A fetch that hands every request straight to the Worker's own fetch handler (no network). */
export const workerFetch = (input: string | URL | Request, init?: RequestInit): Promise<Response> =>
  exports.default.fetch(new Request(input, init));

/** Options of {@link connectMcp}. */
export interface ConnectOptions {
  /** Authorization scheme word (default `Token`). */
  scheme?: string;
  /** Extra headers on every request. */
  headers?: Record<string, string>;
}

/**
 * A real MCP client (SDK `Client` over streamable HTTP) connected to the Worker's `/mcp` with `key`; the
 * transport's fetch calls the Worker directly. Returns the client and its transport (for the session id).
 */
export async function connectMcp(key: string, options: ConnectOptions = {}) {
  const transport = new StreamableHTTPClientTransport(new URL(MCP_URL), {
    fetch: workerFetch,
    requestInit: { headers: { Authorization: `${options.scheme ?? "Token"} ${key}`, ...options.headers } },
  });
  // The SDK client validates every structuredContent against the tool's output schema; Ajv (its default) compiles
  // code at runtime, which workerd forbids, so the Workers-safe validator is used.
  const client = new Client(
    { name: "mcp-test-client", version: "1.0.0" },
    { jsonSchemaValidator: new CfWorkerJsonSchemaValidator() },
  );
  await client.connect(transport);
  return { client, transport };
}

/** Raw JSON-RPC POST to `/mcp` (for the auth and guard matrix, where no client could connect). */
export function rawMcp(body: unknown, headers: Record<string, string> = {}, url = MCP_URL): Promise<Response> {
  return workerFetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream", ...headers },
    body: JSON.stringify(body),
  });
}

/** An `initialize` request body. */
export function initializeBody(id = 1) {
  return {
    jsonrpc: "2.0",
    id,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
  };
}
