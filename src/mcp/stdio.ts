/**
 * The local (stdio) MCP server (docs/mcp.md §stdio "a local stdio variant … reads the API key from an environment
 * setting"), as a relay: it serves no tools itself but pipes every MCP message between its stdin/stdout and the
 * service's own `/mcp` endpoint over streamable HTTP, with the SDK's `StdioServerTransport` on one side and its
 * `StreamableHTTPClientTransport` on the other. So the tools, prompts and resources are the Worker's, answered from the
 * same services, and a session draws from the account's rate limits exactly as a remote client's does. Built by
 * `npm run build:mcp` into dist/mcp-stdio.mjs, the package's `container-tracking-mcp` bin (Node; not the Worker).
 *
 * Environment:
 * - `SVC_API_KEY` (required): the API key, sent as `Authorization: Token <key>` on every HTTP request. Missing or
 *   blank → a message on stderr and exit code 1 before anything starts (fail fast, docs/mcp.md §stdio).
 * - `SVC_API_BASE_URL` (optional): the REST API's base URL, default {@link DEFAULT_BASE_URL} (`npm start`'s); the MCP
 *   endpoint is its origin + `/mcp` ({@link mcpEndpointOf}).
 *
 * stdout carries only MCP messages; logs go to stderr (the MCP client's server log), never the key.
 */

import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { FetchLike, Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  type CallToolResult,
  isInitializeRequest,
  isJSONRPCErrorResponse,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
  type JSONRPCRequest,
  type RequestId,
} from "@modelcontextprotocol/sdk/types.js";
import { normaliseBaseUrl } from "../client/client";

/** Name of the bin, used in messages. */
export const BIN_NAME = "container-tracking-mcp";
/** Version the relay announces in its `User-Agent` (the MCP server's own is the Worker's). */
const RELAY_VERSION = "0.2.0";
/** The REST API `npm start` serves locally; used when `SVC_API_BASE_URL` is not set. */
export const DEFAULT_BASE_URL = "http://127.0.0.1:8787/v2";

/** What the stdio server needs, read from the environment by {@link readStdioConfig}. */
export interface StdioConfig {
  apiKey: string;
  /** Normalised (see `normaliseBaseUrl`): ends in the version segment, no trailing slash. */
  baseUrl: string;
}

/** The result of {@link readStdioConfig}: the config, or the message to print before exiting 1. */
export type StdioConfigResult = { ok: true; config: StdioConfig } | { ok: false; message: string };

/**
 * Reads `SVC_API_KEY` and `SVC_API_BASE_URL` from `env`. A missing or blank key, a key with spaces, or a base URL
 * that is not an http(s) URL is an error whose message says what to set; it never echoes the key.
 */
export function readStdioConfig(env: Record<string, string | undefined>): StdioConfigResult {
  const apiKey = env.SVC_API_KEY?.trim() ?? "";
  if (apiKey === "") {
    return {
      ok: false,
      message:
        `${BIN_NAME}: SVC_API_KEY is not set. Set it to an API key of the container tracking service ` +
        "(svc_live_… or, for `npm start`, the svc_test_… key it prints; `npm run keys -- create --account <name>` " +
        'makes one), e.g. in the "env" block of your MCP client\'s server entry. ' +
        `SVC_API_BASE_URL sets the REST API (default ${DEFAULT_BASE_URL}).`,
    };
  }
  if (/\s/.test(apiKey)) {
    return { ok: false, message: `${BIN_NAME}: SVC_API_KEY must be a single key without spaces.` };
  }
  const rawBase = env.SVC_API_BASE_URL?.trim() || DEFAULT_BASE_URL;
  try {
    return { ok: true, config: { apiKey, baseUrl: normaliseBaseUrl(rawBase) } };
  } catch (err) {
    return {
      ok: false,
      message: `${BIN_NAME}: SVC_API_BASE_URL is not usable (${(err as Error).message.replace(/^TrackingClient: /, "")}); expected e.g. https://api.example.com/v2.`,
    };
  }
}

/** The service's MCP endpoint for a REST base URL: its origin + `/mcp` (`https://api.example.com/v2` → `…/mcp`). */
export function mcpEndpointOf(baseUrl: string): URL {
  return new URL("/mcp", baseUrl);
}

/** Options of {@link startRelay}. */
export interface RelayOptions {
  /** The HTTP client's fetch (default the global fetch); tests inject the Worker's. */
  fetch?: FetchLike;
  /** Where log lines go (default stderr). */
  log?: (line: string) => void;
}

/** What the relay says for a request the service refused by its HTTP status (it never repeats the key). */
function refusalText(status: number, serverMessage: string | null): string {
  if (status === 401) {
    return "Unauthorized: the API key (SVC_API_KEY) was rejected (missing, unknown or revoked). Set a valid key and restart the server.";
  }
  return serverMessage ?? `The tracking service refused the request (HTTP ${status}); retry later.`;
}

/** The JSON-RPC error message of a refused POST, as the SDK's error carries the response body; null when none. */
function serverMessageOf(err: StreamableHTTPError): string | null {
  const body = err.message.slice(err.message.indexOf("{"));
  try {
    const parsed: unknown = JSON.parse(body);
    return isJSONRPCErrorResponse(parsed) ? parsed.error.message : null;
  } catch {
    return null;
  }
}

/**
 * The answer to `request` when it could not be forwarded: for `tools/call` a tool error result (as a tool reports
 * every failure, so the model reads it), for anything else (`initialize` included) a JSON-RPC error.
 */
function failureAnswer(request: JSONRPCRequest, text: string): JSONRPCMessage {
  if (request.method === "tools/call") {
    const result: CallToolResult = { isError: true, content: [{ type: "text", text }] };
    return { jsonrpc: "2.0", id: request.id, result };
  }
  return { jsonrpc: "2.0", id: request.id, error: { code: -32000, message: text } };
}

/** A running relay: {@link startRelay}. */
export interface Relay {
  /** Ends the service's session (`DELETE /mcp`, best effort) and closes both transports. */
  close(): Promise<void>;
}

/**
 * Starts relaying MCP between `local` (the client's side: stdio in the bin, an in-memory transport in tests) and the
 * service's `/mcp` for `config`. Every message from `local` is POSTed as it comes; what the service answers
 * (responses, and the log and progress notifications sent while a request runs) goes back to `local` as it arrives.
 * The HTTP transport keeps the session: it reads `mcp-session-id` from the `initialize` answer and sends it, with the
 * negotiated `mcp-protocol-version` (set here, as a `Client` would), on every later request.
 *
 * - A request the service refuses (401 for the key, 429, 5xx, no answer) is answered here, by {@link failureAnswer};
 *   the details go to the log.
 * - A session the service no longer knows (404: expired after its 24 hours, or ended) is opened again by replaying the
 *   client's `initialize` (and its last `logging/setLevel`), and the message is sent once more, so a long-lived
 *   client does not have to restart the bin.
 * - When `local` closes, the session is ended and the HTTP transport closed.
 */
export async function startRelay(local: Transport, config: StdioConfig, options: RelayOptions = {}): Promise<Relay> {
  const log = options.log ?? ((line: string) => console.error(line));
  const endpoint = mcpEndpointOf(config.baseUrl);
  let initialize: JSONRPCRequest | undefined;
  let logLevel: JSONRPCRequest | undefined;
  let reopening: Promise<void> | undefined;
  let closed = false;
  let internalIds = 0;
  /** Answers to the relay's own requests (the replayed initialize and setLevel), by id. */
  const internal = new Map<RequestId, (message: JSONRPCMessage) => void>();

  const connect = (): StreamableHTTPClientTransport => {
    const transport = new StreamableHTTPClientTransport(endpoint, {
      ...(options.fetch ? { fetch: options.fetch } : {}),
      requestInit: {
        headers: { Authorization: `Token ${config.apiKey}`, "User-Agent": `${BIN_NAME}/${RELAY_VERSION}` },
      },
    });
    transport.onmessage = (message) => {
      const answered = isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message) ? message.id : undefined;
      const waiting = answered === undefined ? undefined : internal.get(answered);
      if (waiting) {
        waiting(message);
        return;
      }
      if (isJSONRPCResultResponse(message) && initialize && message.id === initialize.id) {
        const version = message.result.protocolVersion;
        if (typeof version === "string") transport.setProtocolVersion(version);
      }
      local.send(message).catch((err) => report("error", "stdout", err));
    };
    // Transport-level trouble (a broken SSE stream, an unreadable event); the request it concerns fails on its own.
    transport.onerror = (err) => report("warn", "http", err);
    return transport;
  };

  const report = (level: "warn" | "error", where: string, err: unknown, status?: number) => {
    log(
      JSON.stringify({
        level,
        component: "relay",
        where,
        ...(status !== undefined ? { status } : {}),
        message: String((err as Error)?.message ?? err),
      }),
    );
  };

  /** Sends one of the relay's own requests on `transport` and waits for its answer. */
  const request = async (transport: Transport, message: JSONRPCRequest): Promise<JSONRPCMessage> => {
    internalIds += 1;
    const id = `${BIN_NAME}/relay/${internalIds}`;
    const answer = new Promise<JSONRPCMessage>((resolve) => internal.set(id, resolve));
    try {
      await transport.send({ ...message, id });
      return await answer;
    } finally {
      internal.delete(id);
    }
  };

  /** A new session for the same client: its initialize (and log level) replayed on a fresh transport. */
  const reopen = async (stale: Transport): Promise<void> => {
    if (!initialize) throw new Error("no initialize to replay");
    const transport = connect();
    await transport.start();
    const answer = await request(transport, initialize);
    if (!isJSONRPCResultResponse(answer)) throw new Error("the service refused to open a new session");
    const version = answer.result.protocolVersion;
    if (typeof version === "string") transport.setProtocolVersion(version);
    await transport.send({ jsonrpc: "2.0", method: "notifications/initialized" });
    if (logLevel) await request(transport, logLevel);
    upstream = transport;
    await stale.close().catch(() => undefined);
    log(JSON.stringify({ level: "info", component: "relay", message: "session reopened" }));
  };

  const forward = async (message: JSONRPCMessage, retried = false): Promise<void> => {
    const transport = upstream;
    try {
      await transport.send(message);
    } catch (err) {
      const status = err instanceof StreamableHTTPError ? err.code : undefined;
      if (status === 404 && !retried && initialize && !isInitializeRequest(message)) {
        try {
          reopening ??= reopen(transport).finally(() => {
            reopening = undefined;
          });
          await reopening;
          return forward(message, true);
        } catch (reopenErr) {
          report("error", "reopen", reopenErr);
        }
      }
      report("error", "http", err, status);
      if (!isJSONRPCRequest(message)) return;
      const text =
        status === undefined
          ? `Service unavailable: the tracking service at ${endpoint.origin} could not be reached; retry later.`
          : refusalText(status, err instanceof StreamableHTTPError ? serverMessageOf(err) : null);
      await local.send(failureAnswer(message, text));
    }
  };

  let upstream = connect();
  await upstream.start();
  local.onmessage = (message) => {
    if (isJSONRPCRequest(message) && isInitializeRequest(message)) initialize = message;
    else if (isJSONRPCRequest(message) && message.method === "logging/setLevel") logLevel = message;
    // Each message is its own POST, as a streamable-HTTP client sends them; answers come back as they arrive.
    forward(message).catch((err) => report("error", "forward", err));
  };
  const close = async () => {
    if (closed) return;
    closed = true;
    await upstream.terminateSession().catch(() => undefined);
    await upstream.close().catch(() => undefined);
    await local.close().catch(() => undefined);
  };
  local.onclose = () => {
    close().catch(() => undefined);
  };
  await local.start();
  return { close };
}

/**
 * The bin's main: reads the environment, exits 1 with a message when it is unusable, otherwise relays MCP between
 * stdin/stdout and the service's `/mcp` until stdin closes or SIGINT/SIGTERM, then ends the session.
 */
export async function runStdioServer(): Promise<void> {
  const result = readStdioConfig(process.env);
  if (!result.ok) {
    console.error(result.message);
    process.exit(1);
    return;
  }
  // Loaded here, not at the top: the module needs Node's process streams, and tests import this file in workerd.
  const { StdioServerTransport } = await import("@modelcontextprotocol/sdk/server/stdio.js");
  const relay = await startRelay(new StdioServerTransport(), result.config);
  const stop = async () => {
    await relay.close().catch(() => undefined);
    process.exit(0);
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  // The stdio transport does not watch for the end of stdin: the client has gone.
  process.stdin.on("end", stop);
  console.error(
    `${BIN_NAME} ${RELAY_VERSION}: relaying MCP on stdio to ${mcpEndpointOf(result.config.baseUrl).href} (REST API ${result.config.baseUrl})`,
  );
}
