import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { McpAgent } from "agents/mcp";
import { createDatabase } from "../db/client";
import type { Env } from "../env";
import { systemClock } from "../lib/clock";
import { parseAuthorization } from "../middleware/auth";
import { type TrackingApi, TrackingApiError } from "./api";
import { registerAll, SERVER_INFO, SERVER_INSTRUCTIONS } from "./register";
import { drawFromBucket, keyFingerprint, type McpSessionProps, type SessionOwner } from "./session";
import type { McpRequestScope } from "./tools/common";
import { WorkerTrackingApi } from "./worker-api";

/** A session lives at most this long after it was opened (seconds); then it is torn down and answers 404. */
export const SESSION_MAX_AGE_SECONDS = 24 * 60 * 60;

/** Request kinds that read account data and so draw one request from the account's default bucket. */
const COUNTED: ReadonlySet<McpRequestScope["kind"]> = new Set(["tool", "resource", "prompt"]);

/**
 * The MCP server of one session (DESIGN.md §6, SPEC.md §4.7): an `agents` McpAgent Durable Object (binding
 * `MCP_OBJECT`, one object per `mcp-session-id`) serving the tools, prompts and resources of `registerAll` over
 * the Worker's services. Reached only through `handleMcpRequest` (src/mcp/http.ts), which authenticates every
 * request and checks that the session belongs to the caller's key before forwarding.
 *
 * Props (set when the session is initialised): `{accountId, keyFingerprint}`. Per request, `resolveApi` checks
 * again that the live `Authorization` header carries the session's key (defence in depth behind the wrapper) and
 * draws one request from the account's `default` rate bucket for tool calls, resource reads and prompts
 * (DECISIONS.md §Rate limits); a refusal becomes a tool error saying when to retry.
 */
export class TrackingMcpAgent extends McpAgent<Env & Cloudflare.Env, unknown, McpSessionProps> {
  server = new McpServer({ ...SERVER_INFO }, { instructions: SERVER_INSTRUCTIONS, capabilities: { logging: {} } });

  async init(): Promise<void> {
    registerAll(this.server, { resolveApi: (scope) => this.resolveApi(scope), clock: systemClock });
    // Only real sessions (opened by an authenticated initialize) get an expiry; a probe of an unknown id stores nothing.
    if (this.props?.accountId) {
      await this.schedule(SESSION_MAX_AGE_SECONDS, "expireSession", undefined, { idempotent: true });
    }
  }

  /**
   * RPC for the `/mcp` wrapper: the account and key fingerprint that opened this session, or null when it was
   * never initialised (unknown session id).
   */
  async sessionOwner(): Promise<SessionOwner | null> {
    const props = await this.ctx.storage.get<McpSessionProps>("props");
    if (!props?.accountId || !props.keyFingerprint) return null;
    return { accountId: props.accountId, keyFingerprint: props.keyFingerprint };
  }

  /** Scheduled {@link SESSION_MAX_AGE_SECONDS} after the session opened: ends it (later requests get 404). */
  async expireSession(): Promise<void> {
    await this._cf_terminateSession();
  }

  /**
   * The caller's `TrackingApi` for one MCP request.
   * @throws TrackingApiError `unauthorized` when the session has no owner or the live header carries another key;
   *   `rate_limited` when the account's default bucket is exhausted.
   */
  private async resolveApi(scope: McpRequestScope): Promise<TrackingApi> {
    const props = this.props;
    if (!props?.accountId || !props.keyFingerprint) {
      throw new TrackingApiError("unauthorized", "This session is not authenticated.");
    }
    if (scope.headers) {
      const raw = scope.headers.authorization;
      const key = parseAuthorization(Array.isArray(raw) ? raw[0] : raw);
      if (!key || (await keyFingerprint(key)) !== props.keyFingerprint) {
        throw new TrackingApiError("unauthorized", "The API key does not match this session.");
      }
    }
    const env = this.env;
    const accountId = props.accountId;
    if (COUNTED.has(scope.kind)) await drawFromBucket(env, accountId, "default", systemClock.now());
    return new WorkerTrackingApi({
      db: createDatabase(env.DB),
      clock: systemClock,
      env,
      accountId,
      limitBucket: (bucket) => drawFromBucket(env, accountId, bucket, systemClock.now()),
    });
  }
}
