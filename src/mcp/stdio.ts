/**
 * The local (stdio) MCP server (SPEC.md §4.7 "a local stdio variant … reads the API key from an environment
 * setting"): the same tools, prompts and resources as `/mcp` (`registerAll`), backed by the REST API through the
 * typed client (`HttpTrackingApi` over `TrackingClient`). Built by `npm run build:mcp` into dist/mcp-stdio.mjs, the
 * package's `container-tracking-mcp` bin.
 *
 * Environment:
 * - `SVC_API_KEY` (required): the API key, sent as `Authorization: Token <key>`. Missing or blank → a message on
 *   stderr and exit code 1 before anything starts (fail fast, MCP.md §3.5).
 * - `SVC_API_BASE_URL` (optional): the REST API's base URL, default {@link DEFAULT_BASE_URL} (`npm start`'s).
 *
 * stdout carries only MCP messages; logs go to stderr (the MCP client's server log), never the key.
 */

import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { type FetchLike, TrackingClient } from "../client/client";
import type { TrackingClientError } from "../client/errors";
import { HttpTrackingApi } from "./http-api";
import { registerAll, SERVER_INFO, SERVER_INSTRUCTIONS } from "./register";

/** Name of the bin, used in messages. */
export const BIN_NAME = "container-tracking-mcp";
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
    // The client validates and normalises the URL; constructing one is the check.
    const client = new TrackingClient({ apiKey, baseUrl: rawBase });
    return { ok: true, config: { apiKey, baseUrl: client.baseUrl } };
  } catch (err) {
    return {
      ok: false,
      message: `${BIN_NAME}: SVC_API_BASE_URL is not usable (${(err as Error).message.replace(/^TrackingClient: /, "")}); expected e.g. https://api.example.com/v2.`,
    };
  }
}

/** Options of {@link createStdioServer}. */
export interface StdioServerOptions {
  /** Transport of the REST client (default the global fetch); tests inject the Worker's fetch. */
  fetch?: FetchLike;
  /** Where log lines go (default stderr). */
  log?: (line: string) => void;
}

/**
 * The MCP server of the stdio variant, not yet connected: SDK v1 `McpServer` with the same info, instructions and
 * capabilities as the Worker's agent, every tool/prompt/resource registered against an `HttpTrackingApi`.
 */
export function createStdioServer(config: StdioConfig, options: StdioServerOptions = {}): McpServer {
  const log = options.log ?? ((line: string) => console.error(line));
  const client = new TrackingClient({
    apiKey: config.apiKey,
    baseUrl: config.baseUrl,
    userAgent: `${BIN_NAME}/${SERVER_INFO.version}`,
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  const api = new HttpTrackingApi(client, {
    onError: (err: TrackingClientError) =>
      log(
        JSON.stringify({
          level: err.status >= 500 || err.status === 0 ? "error" : "warn",
          component: "rest",
          method: err.method,
          path: err.path,
          status: err.status,
          code: err.code,
          detail: err.detail,
          requestId: err.requestId,
        }),
      ),
  });
  const server = new McpServer(
    { ...SERVER_INFO },
    { instructions: SERVER_INSTRUCTIONS, capabilities: { logging: {} } },
  );
  registerAll(server, {
    resolveApi: async () => api,
    reportError: (err, reference, where) =>
      log(JSON.stringify({ level: "error", component: "mcp", reference, where, message: String(err) })),
  });
  return server;
}

/**
 * The bin's main: reads the environment, exits 1 with a message when it is unusable, otherwise serves MCP on
 * stdin/stdout until stdin closes or SIGINT/SIGTERM.
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
  const server = createStdioServer(result.config);
  const stop = async () => {
    await server.close().catch(() => undefined);
    process.exit(0);
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  await server.connect(new StdioServerTransport());
  console.error(`${BIN_NAME} ${SERVER_INFO.version}: serving MCP on stdio, REST API ${result.config.baseUrl}`);
}
