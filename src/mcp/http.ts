/**
 * The `/mcp` endpoint (docs/mcp.md §Transport, docs/api.md §Authentication; docs/architecture.md §MCP): MCP streamable
 * HTTP in front of the McpAgent. On every request, before the agent runs:
 * 1. Host/Origin guard against DNS rebinding: loopback hosts and the hosts of `MCP_ALLOWED_HOSTS` only (unset: the
 *    Worker's own host over HTTPS, see `ownHostOf`) → else 403;
 * 2. `Authorization: Token <key>` or `Bearer <key>` (scheme case-insensitive), checked with the REST key lookup
 *    (src/middleware/auth.ts: unknown or revoked → rejected) → else 401 with `WWW-Authenticate` and a JSON-RPC
 *    error body; a client address over `AUTH_FAILURES_PER_MINUTE` failed keys → 429 with `Retry-After` (shared with
 *    REST, `checkApiKey`). With OAuth on (`MCP_OAUTH = "on"`, src/oauth/provider.ts) only `Token <key>` reaches this
 *    step: `Bearer` carries OAuth access tokens only (SPEC.md §5), which the provider validated before calling
 *    {@link handleMcpRequest} with the token's caller (src/oauth/mcp-bridge.ts); a `Bearer` API key → 401 whose
 *    challenge names the protected resource metadata (RFC 9728 §5.1);
 * 3. the request itself, as the streamable-HTTP transport of the MCP spec (2025-06-18) requires: `Accept` of both
 *    `application/json` and `text/event-stream` (406), a JSON body (415, 413 over 4 MiB, 400 unparsable or not
 *    JSON-RPC), `initialize` alone and only without a session id (400), a session id on everything else (400), a
 *    supported `mcp-protocol-version` (400);
 * 4. a request opening a session (`initialize`) draws one request from the account's default rate bucket, so
 *    sessions (Durable Objects) cannot be created without limit → 429 with `Retry-After`;
 * then one call to the session's agent (`TrackingMcpAgent.exchange`), which also checks that the session was opened
 * by this caller's account and key: another key (of this or another account), an unknown or an ended session →
 * 404 "Session not found", so a session id grants nothing by itself and reveals nothing (docs/decisions.md: another
 * account's data → 404); MCP clients re-initialise on 404.
 *
 * Answers: an SSE stream (`event: message`) with what the server sent (log notifications before a tool's result,
 * then the responses); 202 for notifications and responses only. `GET` (a standalone server-to-client stream)
 * answers 405: this server sends nothing outside its responses, which the spec allows. `DELETE` ends the session. `OPTIONS` (CORS preflight) passes after the Host/Origin guard without a key.
 */

import {
  isInitializeRequest,
  type JSONRPCMessage,
  SUPPORTED_PROTOCOL_VERSIONS,
} from "@modelcontextprotocol/sdk/types.js";
import { RPC_DO_PREFIX } from "agents/mcp";
import ipaddr from "ipaddr.js";
import { checkApiKey, parseAuthorization } from "../middleware/auth";
import { clientAddress } from "../middleware/auth-throttle";
import { oauthEnabled, protectedResourceMetadataUrl } from "../oauth/provider";
import type { McpExchangeResult } from "./agent";
import { TrackingApiError } from "./api-errors";
import { drawFromBucket, type SessionOwner } from "./session";

/** Path of the MCP endpoint. */
export const MCP_PATH = "/mcp";

/** Largest POST body accepted (bytes), as `agents`' own streamable-HTTP handler. */
export const MAX_MCP_MESSAGE_BYTES = 4 * 1024 * 1024;

/** CORS headers of every `/mcp` answer (browser-based MCP clients read `mcp-session-id`). */
const CORS_HEADERS: Record<string, string> = {
  "Access-Control-Allow-Origin": "*",
  "Access-Control-Allow-Headers": "Content-Type, Accept, Authorization, mcp-session-id, mcp-protocol-version",
  "Access-Control-Allow-Methods": "POST, DELETE, OPTIONS",
  // WWW-Authenticate: browser-based clients read the 401's challenge to find the OAuth metadata (MCP authorization).
  "Access-Control-Expose-Headers": "mcp-session-id, WWW-Authenticate",
  "Access-Control-Max-Age": "86400",
};

/** Challenge of every 401: Bearer first, as MCP clients read it (`error="invalid_token"` when a key was rejected). */
export const MCP_WWW_AUTHENTICATE = 'Bearer realm="mcp"';

/**
 * Who a request speaks for when it is already authenticated (an OAuth access token the provider validated,
 * src/oauth/mcp-bridge.ts): the account, the session fingerprint (`oauth:<grant id>`) and whether the user's role
 * only reads (a viewer: write tools refused).
 */
export interface McpAuthenticatedCaller extends SessionOwner {
  readOnly: boolean;
}

/**
 * The Bearer challenge of a 401 with OAuth on: `resource_metadata` names this origin's RFC 9728 document, from which
 * MCP clients discover the authorization server (MCP 2025-06-18 "Authorization" §2.3), and `scope` the one scope.
 */
export function oauthChallenge(origin: string, error?: "invalid_token"): string {
  return `Bearer realm="mcp"${error ? `, error="${error}"` : ""}, resource_metadata="${protectedResourceMetadataUrl(origin)}", scope="mcp"`;
}

/** Longest session id accepted (the agent's ids are 64 hex digits). */
const MAX_SESSION_ID_LENGTH = 128;

/** A JSON-RPC error response (no request id: the request was refused before it was read). */
function jsonRpcError(status: number, code: number, message: string, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }), {
    status,
    headers: { "Content-Type": "application/json", ...CORS_HEADERS, ...headers },
  });
}

/**
 * Whether a host name may address this server: loopback (`localhost`, `*.localhost`, 127.0.0.0/8, ::1) or one
 * of `allowed` (exact, case-insensitive; an entry `*.example.com` allows its subdomains). `host` may carry a port
 * and IPv6 brackets.
 */
export function isAllowedHost(host: string, allowed: readonly string[]): boolean {
  const name = hostnameOf(host);
  if (name === "") return false;
  if (name === "localhost" || name.endsWith(".localhost")) return true;
  if (ipaddr.isValid(name)) {
    const addr = ipaddr.process(name);
    return addr.range() === "loopback";
  }
  return allowed.some((entry) => {
    const e = entry.trim().toLowerCase();
    if (e === "") return false;
    if (e.startsWith("*.")) return name.endsWith(e.slice(1)) && name.length > e.length - 1;
    return name === hostnameOf(e);
  });
}

/** `Example.com:8787` → `example.com`; `[::1]:80` → `::1`. */
function hostnameOf(host: string): string {
  const h = host.trim().toLowerCase();
  if (h.startsWith("[")) return h.slice(1, h.indexOf("]") > 0 ? h.indexOf("]") : undefined);
  const colons = h.split(":").length - 1;
  // One colon: host:port. Several: a bare IPv6 address.
  return colons === 1 ? (h.split(":")[0] ?? "") : h;
}

/** The comma-separated `MCP_ALLOWED_HOSTS` setting as a list. */
export function allowedHostsOf(env: Pick<Env, "MCP_ALLOWED_HOSTS">): string[] {
  return (env.MCP_ALLOWED_HOSTS ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
}

/**
 * Verdicts of the DNS-rebinding guard by raw header value (`host:` or `origin:` prefix), `MCP_ALLOWED_HOSTS`
 * setting and own host: a client sends the same Host and Origin on every request, and parsing them (URL, ipaddr.js)
 * and the setting was a visible share of an MCP request's CPU in `npm run bench -- mcp`. Bounded.
 */
const guardVerdicts = new Map<string, boolean>();
const MAX_GUARD_VERDICTS = 1_000;

/**
 * Whether the raw `Host` (`kind` "host") or `Origin` ("origin") value names an allowed host (memoised): loopback,
 * an `MCP_ALLOWED_HOSTS` entry, or `ownHost` (see {@link ownHostOf}).
 */
function allowedHeader(
  kind: "host" | "origin",
  value: string,
  env: Pick<Env, "MCP_ALLOWED_HOSTS">,
  ownHost: string | null,
): boolean {
  const key = `${kind}:${value}\n${env.MCP_ALLOWED_HOSTS ?? ""}\n${ownHost ?? ""}`;
  const known = guardVerdicts.get(key);
  if (known !== undefined) return known;
  let host = value;
  if (kind === "origin") {
    try {
      host = new URL(value).host;
    } catch {
      host = ""; // "null" or garbage: not an allowed origin.
    }
  }
  const allowed = allowedHostsOf(env);
  const verdict = isAllowedHost(host, ownHost === null ? allowed : [...allowed, ownHost]);
  if (guardVerdicts.size >= MAX_GUARD_VERDICTS) guardVerdicts.clear();
  guardVerdicts.set(key, verdict);
  return verdict;
}

/**
 * The Worker's own host name when `MCP_ALLOWED_HOSTS` is unset (or empty) and the request came over HTTPS: its
 * `Host`. Else null. Why this keeps the DNS-rebinding guard (issue 16 §10): rebinding makes a browser send an
 * attacker's host name to the victim's server (e.g. `wrangler dev` on 127.0.0.1). Over HTTPS that cannot happen —
 * the browser only completes TLS when the server holds a valid certificate for the name it asked for, and on
 * Cloudflare a name reaches this Worker only when it is bound to it (workers.dev, route, custom domain). A plain
 * HTTP request gets no such proof, so over HTTP only loopback and the configured hosts are served, as before.
 * A configured `MCP_ALLOWED_HOSTS` replaces the default (the own host is not added).
 */
export function ownHostOf(request: Request, env: Pick<Env, "MCP_ALLOWED_HOSTS">): string | null {
  if (allowedHostsOf(env).length > 0) return null;
  const url = new URL(request.url);
  if (url.protocol !== "https:") return null;
  return request.headers.get("host") ?? url.host;
}

/**
 * DNS-rebinding guard: the Host (or URL host) and, when sent, the Origin must be allowed hosts (loopback,
 * `MCP_ALLOWED_HOSTS`, or by default the Worker's own host over HTTPS: {@link ownHostOf}).
 */
export function hostGuard(request: Request, env: Pick<Env, "MCP_ALLOWED_HOSTS">): Response | null {
  const host = request.headers.get("host") ?? new URL(request.url).host;
  const own = ownHostOf(request, env);
  if (!allowedHeader("host", host, env, own)) return jsonRpcError(403, -32000, "Forbidden: host not allowed.");
  const origin = request.headers.get("origin");
  if (origin !== null && !allowedHeader("origin", origin, env, own)) {
    return jsonRpcError(403, -32000, "Forbidden: origin not allowed.");
  }
  return null;
}

/** The session's agent: the Durable Object `rpc:<session id>` (the name gives it McpAgent's RPC transport). */
function sessionAgent(env: Env, sessionId: string) {
  return env.MCP_OBJECT.get(env.MCP_OBJECT.idFromName(`${RPC_DO_PREFIX}${sessionId}`));
}

/** What a JSON-RPC 2.0 message is: a request (method and id), a notification (method, no id) or a response. */
export type JsonRpcKind = "request" | "notification" | "response";

/**
 * The kind of a JSON-RPC 2.0 message (JSON-RPC 2.0 §4–5, MCP 2025-06-18 "Base protocol": `jsonrpc: "2.0"`; an id
 * is a string or an integer; params, when present, an object), or null when `value` is none of them. A structural
 * check, deliberately not the SDK's zod schemas (about five zod parses per POST in this Worker before): the agent's
 * transport validates every message again with `JSONRPCMessageSchema` and answers invalid ones itself.
 */
export function jsonRpcKindOf(value: unknown): JsonRpcKind | null {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return null;
  const m = value as Record<string, unknown>;
  if (m.jsonrpc !== "2.0") return null;
  const hasId = "id" in m;
  const validId = typeof m.id === "string" || (typeof m.id === "number" && Number.isInteger(m.id));
  if (typeof m.method === "string") {
    if (m.params !== undefined && (typeof m.params !== "object" || m.params === null || Array.isArray(m.params))) {
      return null;
    }
    if (!hasId) return "notification";
    return validId ? "request" : null;
  }
  if ("method" in m) return null;
  if ("result" in m || "error" in m) return validId || (m.id === null && "error" in m) ? "response" : null;
  return null;
}

/**
 * The checks of step 3 (module comment) on a POST: the validated messages and whether they open a session, or the
 * error answer.
 */
async function readMessages(
  request: Request,
  sessionId: string | null,
): Promise<{ messages: JSONRPCMessage[]; opening: boolean } | Response> {
  const accept = request.headers.get("accept") ?? "";
  if (!accept.includes("application/json") || !accept.includes("text/event-stream")) {
    return jsonRpcError(406, -32000, "Not Acceptable: Client must accept both application/json and text/event-stream");
  }
  if (!(request.headers.get("content-type") ?? "").includes("application/json")) {
    return jsonRpcError(415, -32000, "Unsupported Media Type: Content-Type must be application/json");
  }
  const tooLarge = () => jsonRpcError(413, -32000, `Request body too large (at most ${MAX_MCP_MESSAGE_BYTES} bytes).`);
  if (Number.parseInt(request.headers.get("content-length") ?? "0", 10) > MAX_MCP_MESSAGE_BYTES) return tooLarge();
  const text = await request.text();
  if (text.length > MAX_MCP_MESSAGE_BYTES) return tooLarge();
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return jsonRpcError(400, -32700, "Parse error: Invalid JSON");
  }
  const list = Array.isArray(raw) ? raw : [raw];
  if (list.length === 0) return jsonRpcError(400, -32600, "Invalid Request: empty batch");
  if (!list.every((m) => jsonRpcKindOf(m) !== null)) {
    return jsonRpcError(400, -32700, "Parse error: Invalid JSON-RPC message");
  }
  const messages = list as JSONRPCMessage[];
  const opening = messages.some((m) => "method" in m && m.method === "initialize");
  if (opening && !messages.every((m) => !("method" in m) || m.method !== "initialize" || isInitializeRequest(m))) {
    return jsonRpcError(400, -32600, "Invalid Request: malformed initialize request");
  }
  if (opening) {
    if (sessionId !== null) {
      return jsonRpcError(400, -32600, "Invalid Request: Initialization requests must not include a sessionId");
    }
    if (messages.length > 1)
      return jsonRpcError(400, -32600, "Invalid Request: Only one initialization request is allowed");
    return { messages, opening };
  }
  const version = request.headers.get("mcp-protocol-version");
  if (version !== null && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
    return jsonRpcError(
      400,
      -32000,
      `Bad Request: Unsupported protocol version: ${version} (supported versions: ${SUPPORTED_PROTOCOL_VERSIONS.join(", ")})`,
    );
  }
  if (sessionId === null) return jsonRpcError(400, -32000, "Bad Request: Mcp-Session-Id header is required");
  return { messages, opening };
}

/**
 * The HTTP answer to a POST the agent handled: 202 without a body when the POST held no request; otherwise an SSE
 * stream with one `event: message` per message the server sent (log notifications before a tool's result, then the
 * responses). SSE rather than a JSON body, though the spec allows either: it carries notifications alongside a
 * response, and it is what `conformance server`'s stream scenarios check in full (server-sse-multiple-streams).
 */
function answerOf(sent: JSONRPCMessage[], received: JSONRPCMessage[], sessionId: string): Response {
  const headers: Record<string, string> = { ...CORS_HEADERS, "mcp-session-id": sessionId };
  if (received.length === 0 || sent.every((m) => jsonRpcKindOf(m) !== "request")) {
    return new Response(null, { status: 202, headers });
  }
  const events = received.map((m) => `event: message\ndata: ${JSON.stringify(m)}\n\n`).join("");
  return new Response(events, {
    status: 200,
    headers: { ...headers, "Content-Type": "text/event-stream", "Cache-Control": "no-cache" },
  });
}

const SESSION_NOT_FOUND = () => jsonRpcError(404, -32001, "Session not found");

/**
 * Serves one request to `/mcp` (see the module comment for the order of checks and their answers). `authenticated`:
 * the caller of a validated OAuth access token (src/oauth/mcp-bridge.ts), which replaces step 2. Never throws: an
 * unexpected failure is logged and answered 500 with a generic JSON-RPC error.
 */
export async function handleMcpRequest(
  request: Request,
  env: Env,
  ctx?: ExecutionContext,
  authenticated?: McpAuthenticatedCaller,
): Promise<Response> {
  try {
    const refused = hostGuard(request, env);
    if (refused) return refused;
    if (request.method === "OPTIONS") return new Response(null, { status: 204, headers: CORS_HEADERS });
    const caller = authenticated ?? (await apiKeyCaller(request, env));
    if (caller instanceof Response) return caller;
    return await serveAuthenticated(request, env, ctx, caller);
  } catch (err) {
    const reference = crypto.randomUUID();
    console.error(
      JSON.stringify({
        level: "error",
        component: "mcp-http",
        reference,
        message: String(err),
        stack: (err as Error)?.stack,
      }),
    );
    return jsonRpcError(500, -32603, `Internal error (reference ${reference}).`);
  }
}

/**
 * Step 2 of the module comment: the caller of the request's API key, or the 401/429 answer. With OAuth on, only the
 * `Token` scheme carries an API key; `Bearer` is for OAuth access tokens (SPEC.md §5).
 */
async function apiKeyCaller(request: Request, env: Env): Promise<McpAuthenticatedCaller | Response> {
  const header = request.headers.get("authorization");
  const oauth = oauthEnabled(env);
  const origin = new URL(request.url).origin;
  // With OAuth on, every 401 names the protected resource metadata, so a client can switch to signing in.
  const rejected = oauth ? oauthChallenge(origin, "invalid_token") : `${MCP_WWW_AUTHENTICATE}, error="invalid_token"`;
  if (oauth && !/^\s*token\s/i.test(header ?? "")) {
    return jsonRpcError(
      401,
      -32001,
      header
        ? "Unauthorized: Bearer takes an OAuth access token here. Sign in with OAuth, or send Authorization: Token <API key>."
        : "Unauthorized: sign in with OAuth (Bearer access token), or send Authorization: Token <API key>.",
      { "WWW-Authenticate": oauthChallenge(origin, header ? "invalid_token" : undefined) },
    );
  }
  const key = parseAuthorization(header);
  if (!key) {
    return jsonRpcError(
      401,
      -32001,
      header
        ? "Unauthorized: invalid API key. Send Authorization: Token <key> (or Bearer <key>)."
        : "Unauthorized: missing API key. Send Authorization: Token <key> (or Bearer <key>).",
      { "WWW-Authenticate": header ? rejected : MCP_WWW_AUTHENTICATE },
    );
  }
  const now = Date.now();
  const check = await checkApiKey(env, key, () => clientAddress(request.headers.get("cf-connecting-ip")), now);
  if (check.outcome === "throttled") {
    return jsonRpcError(
      429,
      -32000,
      `Too many requests with an invalid API key from this address: retry after ${check.retryAfterSeconds} s.`,
      { "Retry-After": String(check.retryAfterSeconds) },
    );
  }
  if (check.outcome === "unauthorized") {
    return jsonRpcError(401, -32001, "Unauthorized: invalid, unknown or revoked API key.", {
      "WWW-Authenticate": rejected,
    });
  }
  const principal = check.principal;
  return { accountId: principal.accountId, keyFingerprint: principal.keyFingerprint, readOnly: false };
}

/**
 * Steps 3 and 4 of the module comment and the agent's exchange, for an authenticated `caller` (an API key's, or an
 * OAuth grant's with its role).
 */
async function serveAuthenticated(
  request: Request,
  env: Env,
  ctx: ExecutionContext | undefined,
  caller: McpAuthenticatedCaller,
): Promise<Response> {
  const owner: SessionOwner = { accountId: caller.accountId, keyFingerprint: caller.keyFingerprint };
  const sessionId = request.headers.get("mcp-session-id");
  if (
    sessionId !== null &&
    (sessionId.length === 0 || sessionId.length > MAX_SESSION_ID_LENGTH || !/^[\w.:-]+$/.test(sessionId))
  ) {
    return SESSION_NOT_FOUND();
  }

  if (request.method === "DELETE") {
    if (sessionId === null) return jsonRpcError(400, -32000, "Bad Request: Mcp-Session-Id header is required");
    const ended = await sessionAgent(env, sessionId).endSession(owner);
    return ended ? new Response(null, { status: 200, headers: CORS_HEADERS }) : SESSION_NOT_FOUND();
  }
  if (request.method !== "POST") {
    return jsonRpcError(405, -32000, "Method Not Allowed: use POST (this server opens no standalone SSE stream).", {
      Allow: "POST, DELETE, OPTIONS",
    });
  }

  const read = await readMessages(request, sessionId);
  if (read instanceof Response) return read;
  let id = sessionId;
  if (read.opening) {
    try {
      await drawFromBucket(env, caller.accountId, "default", Date.now(), ctx);
    } catch (err) {
      if (err instanceof TrackingApiError && err.kind === "rate_limited") {
        const seconds = err.retryAfterSeconds ?? 60;
        return jsonRpcError(429, -32000, `Rate limited: retry after ${seconds} s.`, {
          "Retry-After": String(seconds),
        });
      }
      throw err;
    }
    id = env.MCP_OBJECT.newUniqueId().toString();
  }
  const sid = id as string;
  // The stub's inferred RPC type loses the JSON-RPC message union; the agent's method is typed McpExchangeResult.
  const result = (await sessionAgent(env, sid).exchange({
    messages: read.messages,
    caller: owner,
    opening: read.opening,
    readOnly: caller.readOnly,
  })) as McpExchangeResult;
  if (result.session === "not_found") return SESSION_NOT_FOUND();
  if (result.session === "refused") return jsonRpcError(result.status, -32600, result.message);
  return answerOf(read.messages, result.messages, sid);
}
