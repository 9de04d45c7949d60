/**
 * What the `/mcp` wrapper (src/mcp/http.ts) and the McpAgent (src/mcp/agent.ts) share: the session props, the
 * API key fingerprint, and drawing from the account's rate buckets (docs/decisions.md §Rate limits: the MCP endpoint
 * draws from `default`).
 */

import { sha256Hex } from "../lib/crypto";
import { fingerprintOfKeyHash } from "../middleware/auth";
import type { BucketName } from "../ratelimit/buckets";
import { checkRateLimit, type KeepAlive } from "../ratelimit/client";
import { TrackingApiError } from "./api-errors";

/**
 * Props of an MCP session (stored by the agent in its Durable Object, in plaintext): only the account id and a
 * fingerprint of the key that opened the session, never the key (docs/architecture.md §MCP).
 */
export interface McpSessionProps extends Record<string, unknown> {
  accountId: string;
  /**
   * {@link keyFingerprint} of the API key that initialised the session, or `oauth:<grant id>` for an OAuth access
   * token (src/oauth/mcp-bridge.ts): the session then belongs to the grant, across its token refreshes.
   */
  keyFingerprint: string;
}

/**
 * Who opened a session, or sends a request on it: an account and the fingerprint of its API key
 * (`TrackingMcpAgent.exchange` compares the two).
 */
export interface SessionOwner {
  accountId: string;
  keyFingerprint: string;
}

/**
 * The fingerprint of an API key (`fingerprintOfKeyHash`), for a key read from a live header. The `/mcp` guard takes
 * it from the authenticated principal instead, which already hashed the key.
 */
export async function keyFingerprint(key: string): Promise<string> {
  return fingerprintOfKeyHash(await sha256Hex(key));
}

/**
 * Counts one request of `bucket` for `accountId` in the account's RateLimiter Durable Object (the same object and
 * window as REST, src/middleware/rate-limit.ts), through `checkRateLimit` (src/ratelimit/client.ts): concurrent
 * checks of one account in this isolate — REST requests, session openings, tool calls of every session — ride in
 * one Durable Object call, each still decided exactly and in arrival order. `keepAlive` (the request's execution
 * context, or the object's state) lets a lease the check takes be settled when it ends.
 * @throws TrackingApiError `rate_limited` with `retryAfterSeconds` when the bucket is exhausted (not counted).
 */
export async function drawFromBucket(
  env: Pick<
    Env,
    | "RATE_LIMITER"
    | "RATE_LIMIT_DEFAULT"
    | "RATE_LIMIT_CREATE_TRACKING_REQUEST"
    | "RATE_LIMIT_INFER_NUMBER"
    | "RATE_LIMIT_REFRESH_CONTAINER"
  >,
  accountId: string,
  bucket: BucketName,
  nowMs: number,
  keepAlive?: KeepAlive,
): Promise<void> {
  // checkRateLimit reads only the binding and the limits picked above.
  const decision = await checkRateLimit(env as Env, accountId, bucket, nowMs, keepAlive);
  if (!decision.allowed) {
    const seconds = Math.max(1, decision.retryAfterSeconds);
    throw new TrackingApiError("rate_limited", `Rate limit exceeded; retry after ${seconds} s.`, {
      retryAfterSeconds: seconds,
    });
  }
}
