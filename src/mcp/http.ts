/**
 * The `/mcp` endpoint (SPEC.md §4.7, §5; DESIGN.md §6): a guard in front of the McpAgent that runs on every
 * request before the agent does —
 * 1. Host/Origin guard against DNS rebinding: loopback hosts and the hosts of `MCP_ALLOWED_HOSTS` only → else 403;
 * 2. `Authorization: Token <key>` or `Bearer <key>` (scheme case-insensitive), checked with the REST key lookup
 *    (src/middleware/auth.ts: unknown or revoked → rejected) → else 401 with `WWW-Authenticate` and a JSON-RPC
 *    error body;
 * 3. a request naming a session (`mcp-session-id`) must come with the key that opened it: another key (of this or
 *    another account) or an unknown session → 404 "Session not found", the answer for a session that does not
 *    exist, so a session id grants nothing by itself and reveals nothing (DECISIONS.md: another account's data →
 *    404); MCP clients re-initialise on 404. The owner is asked of the session's Durable Object once per isolate
 *    and then remembered (`sessionOwnerOf`);
 * 4. a request opening a session (no session id) draws one request from the account's default rate bucket, so
 *    sessions (Durable Objects) cannot be created without limit → 429 with `Retry-After`;
 * then the agent's streamable-HTTP handler with props `{accountId, keyFingerprint}` (new sessions only).
 * OPTIONS (CORS preflight) passes after the Host/Origin guard without a key.
 */

import ipaddr from "ipaddr.js";
import type { Env } from "../env";
import { authenticate, parseAuthorization } from "../middleware/auth";
import { TrackingMcpAgent } from "./agent";
import { TrackingApiError } from "./api";
import { drawFromBucket, type McpSessionProps, type SessionOwner } from "./session";

/** Path of the MCP endpoint. */
export const MCP_PATH = "/mcp";

const mcp = TrackingMcpAgent.serve(MCP_PATH, { binding: "MCP_OBJECT" });

/** Challenge of every 401: Bearer first, as MCP clients read it (`error="invalid_token"` when a key was rejected). */
export const MCP_WWW_AUTHENTICATE = 'Bearer realm="mcp"';

/** Longest session id accepted (the agent's ids are 64 hex digits). */
const MAX_SESSION_ID_LENGTH = 128;

/** A JSON-RPC error response (no request id: the request was refused before it was read). */
function jsonRpcError(status: number, code: number, message: string, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }), {
    status,
    headers: { "Content-Type": "application/json", ...headers },
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

/** DNS-rebinding guard: the Host (or URL host) and, when sent, the Origin must be allowed hosts. */
function hostGuard(request: Request, allowed: readonly string[]): Response | null {
  const host = request.headers.get("host") ?? new URL(request.url).host;
  if (!isAllowedHost(host, allowed)) return jsonRpcError(403, -32000, "Forbidden: host not allowed.");
  const origin = request.headers.get("origin");
  if (origin !== null) {
    let originHost = "";
    try {
      originHost = new URL(origin).host;
    } catch {
      // "null" or garbage: not an allowed origin.
    }
    if (!isAllowedHost(originHost, allowed)) return jsonRpcError(403, -32000, "Forbidden: origin not allowed.");
  }
  return null;
}

function authCacheTtl(raw: string | undefined): number {
  return raw !== undefined && /^\d+$/.test(raw) ? Number.parseInt(raw, 10) : 5;
}

/** Most session owners {@link sessionOwnerOf} keeps per isolate; the map is emptied when full. */
const MAX_CACHED_SESSION_OWNERS = 10_000;
/** Session id → who opened it, for the sessions this isolate has seen (see {@link sessionOwnerOf}). */
const sessionOwners = new Map<string, SessionOwner>();

/**
 * Who opened the session `sessionId` (the agent's `sessionOwner()` RPC), or null for a session that was never
 * initialised. Remembered per isolate once known, which saves a Durable Object round trip on every request of a
 * session (bench/README.md §bench/mcp). Safe because an owner never changes once bound: props are written once, at
 * initialize, and an initialize request cannot name an existing session id (the agent refuses it), so an id is
 * never re-bound to another key. What can change is that the session ends (DELETE, or expiry after
 * `SESSION_MAX_AGE_SECONDS`); a remembered owner of an ended session still only lets the request reach the agent,
 * which answers 404 "Session not found" itself for a session it no longer has (test/mcp/auth.test.ts). Unknown
 * sessions are not remembered.
 */
async function sessionOwnerOf(env: Env, sessionId: string): Promise<SessionOwner | null> {
  const known = sessionOwners.get(sessionId);
  if (known) return known;
  const agent = env.MCP_OBJECT.get(env.MCP_OBJECT.idFromName(`streamable-http:${sessionId}`));
  const owner = await agent.sessionOwner();
  if (owner) {
    if (sessionOwners.size >= MAX_CACHED_SESSION_OWNERS) sessionOwners.clear();
    sessionOwners.set(sessionId, { accountId: owner.accountId, keyFingerprint: owner.keyFingerprint });
  }
  return owner;
}

/** The owner {@link sessionOwnerOf} remembers for `sessionId` in this isolate, if any (for tests and diagnostics). */
export function knownSessionOwner(sessionId: string): SessionOwner | undefined {
  return sessionOwners.get(sessionId);
}

/** The execution context handed to the agent's handler: the Worker's, with the session props. */
function withProps(ctx: ExecutionContext, props: McpSessionProps | undefined): ExecutionContext {
  return {
    waitUntil: (promise: Promise<unknown>) => ctx.waitUntil(promise),
    passThroughOnException: () => ctx.passThroughOnException(),
    props,
  } as unknown as ExecutionContext;
}

/**
 * Serves one request to `/mcp` (see the module comment for the order of checks and their answers). Never throws:
 * an unexpected failure is logged and answered 500 with a generic JSON-RPC error.
 */
export async function handleMcpRequest(request: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
  try {
    const refused = hostGuard(request, allowedHostsOf(env));
    if (refused) return refused;
    if (request.method === "OPTIONS") return mcp.fetch(request, env, ctx);

    const header = request.headers.get("authorization");
    const key = parseAuthorization(header);
    if (!key) {
      return jsonRpcError(
        401,
        -32001,
        header
          ? "Unauthorized: invalid API key. Send Authorization: Token <key> (or Bearer <key>)."
          : "Unauthorized: missing API key. Send Authorization: Token <key> (or Bearer <key>).",
        { "WWW-Authenticate": header ? `${MCP_WWW_AUTHENTICATE}, error="invalid_token"` : MCP_WWW_AUTHENTICATE },
      );
    }
    const now = Date.now();
    const principal = await authenticate(env.DB, key, now, authCacheTtl(env.AUTH_CACHE_TTL_SECONDS));
    if (!principal) {
      return jsonRpcError(401, -32001, "Unauthorized: invalid, unknown or revoked API key.", {
        "WWW-Authenticate": `${MCP_WWW_AUTHENTICATE}, error="invalid_token"`,
      });
    }
    const fingerprint = principal.keyFingerprint;

    const sessionId = request.headers.get("mcp-session-id");
    if (sessionId !== null) {
      if (sessionId.length === 0 || sessionId.length > MAX_SESSION_ID_LENGTH || !/^[\w.:-]+$/.test(sessionId)) {
        return jsonRpcError(404, -32001, "Session not found");
      }
      const owner = await sessionOwnerOf(env, sessionId);
      if (!owner || owner.accountId !== principal.accountId || owner.keyFingerprint !== fingerprint) {
        return jsonRpcError(404, -32001, "Session not found");
      }
      const response = await mcp.fetch(request, env, withProps(ctx, undefined));
      if (request.method === "DELETE") sessionOwners.delete(sessionId);
      return response;
    }

    if (request.method === "POST") {
      try {
        await drawFromBucket(env, principal.accountId, "default", now);
      } catch (err) {
        if (err instanceof TrackingApiError && err.kind === "rate_limited") {
          const seconds = err.retryAfterSeconds ?? 60;
          return jsonRpcError(429, -32000, `Rate limited: retry after ${seconds} s.`, {
            "Retry-After": String(seconds),
          });
        }
        throw err;
      }
    }
    return mcp.fetch(request, env, withProps(ctx, { accountId: principal.accountId, keyFingerprint: fingerprint }));
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
