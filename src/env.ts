import type { Database } from "./db/client";
import type { Clock } from "./lib/clock";

/** Bindings and variables of the Worker (wrangler.toml). Numbers arrive as strings from `[vars]`. */
export interface Env {
  DB: D1Database;
  RATE_LIMITER: DurableObjectNamespace<import("./ratelimit/rate-limiter").RateLimiter>;
  TRACKER: DurableObjectNamespace<import("./tracking/tracker").Tracker>;
  /** The MCP session agents (src/mcp/agent.ts): one Durable Object per `mcp-session-id`. */
  MCP_OBJECT: DurableObjectNamespace<import("./mcp/agent").TrackingMcpAgent>;
  /** OAuth tokens of upstream credentials (src/tracking/sources/credentials.ts): one object per credential. */
  CREDENTIALS: DurableObjectNamespace<import("./tracking/sources/credentials").Credentials>;
  /**
   * Terminal providers' backoff after 429/5xx (src/tracking/sources/terminals/provider-gate.ts): one object per
   * provider, shared by every isolate.
   */
  PROVIDER_GATE: DurableObjectNamespace<import("./tracking/sources/terminals/provider-gate").ProviderGate>;
  TRACKING_REQUESTS_QUEUE: Queue<import("./tracking-requests/queue-message").TrackingRequestMessage>;
  TERMINAL_POLLS_QUEUE: Queue<import("./tracking/terminal-poll-message").TerminalPollMessage>;
  WEBHOOK_DELIVERIES_QUEUE: Queue<import("./webhooks/outbox").WebhookDeliveryMessage>;
  RATE_LIMIT_DEFAULT?: string;
  RATE_LIMIT_CREATE_TRACKING_REQUEST?: string;
  RATE_LIMIT_INFER_NUMBER?: string;
  RATE_LIMIT_REFRESH_CONTAINER?: string;
  AUTH_CACHE_TTL_SECONDS?: string;
  /**
   * Failed API key checks a client address may make per rolling 60 s before it is answered 429 (default 20; "0" turns
   * the throttle off), src/middleware/auth-throttle.ts.
   */
  AUTH_FAILURES_PER_MINUTE?: string;
  /** "true" to serve every supported SCAC from the journey simulator (local development; off in production). */
  SIMULATOR_ENABLED?: string;
  /** Simulated days per real minute of the simulator's clock (default 1). */
  SIMULATION_SPEED?: string;
  /**
   * Worker secret: JSON object of DCSA Track & Trace sources per SCAC, `{"MAEU":{"baseUrl":"https://…","auth":{…}}}`
   * (src/tracking/sources/dcsa.ts `parseDcsaSources`; README "Connecting a real carrier").
   */
  DCSA_SOURCES?: string;
  /**
   * Public origin of this Worker, e.g. `https://tracking.example.com` (https; http only for localhost): upstream push
   * subscriptions call back to `{PUBLIC_BASE_URL}/callbacks/dcsa/{id}` (src/callbacks/). Unset: no subscription is
   * created, polling alone tracks.
   */
  PUBLIC_BASE_URL?: string;
  /**
   * Worker secret: base64 of 32 random bytes, the AES-GCM key the signing secrets of upstream push subscriptions are
   * stored under (src/callbacks/secrets.ts). Unset: no subscription is created.
   */
  UPSTREAM_SUBSCRIPTION_KEY?: string;
  /**
   * Worker secret: JSON object of terminal operators' APIs by provider (`apmt`, `lbct`, `port_of_virginia`),
   * `{"apmt":{"baseUrl":"https://…","auth":{…},"facilities":{"W185":"USLAX"}}}` (src/tracking/sources/terminals/index.ts
   * `parseTerminalSources`; README "Connecting a real terminal"). A terminal configured here is polled by its
   * provider's adapter; an unconfigured one by nothing (the simulator never answers for a configured terminal).
   */
  TERMINAL_SOURCES?: string;
  /**
   * Comma-separated host names `/mcp` answers besides loopback (DNS-rebinding guard, src/mcp/http.ts), e.g.
   * `tracking.example.com,*.example.workers.dev`. Checked against the Host and Origin headers.
   */
  MCP_ALLOWED_HOSTS?: string;
  /**
   * Local development only (unset in production, DECISIONS.md §Webhooks): comma-separated hosts webhooks may reach
   * over plain `http://`, e.g. `127.0.0.1,localhost` for `npm run receiver`.
   */
  WEBHOOK_ALLOW_INSECURE_HOSTS?: string;
  /**
   * Comma-separated addresses or CIDR ranges `GET /v2/webhooks/ips` publishes as the sources of deliveries
   * (src/webhooks/source-ips.ts). Empty by default: a Worker's requests leave from Cloudflare's shared ranges.
   */
  WEBHOOK_SOURCE_IPS?: string;
  /** ISO 8601 date-time `WEBHOOK_SOURCE_IPS` last changed (`last_updated` of `GET /v2/webhooks/ips`). */
  WEBHOOK_SOURCE_IPS_UPDATED_AT?: string;
  /**
   * Bench instrumentation of the poll path (`trace` or `noop`, src/tracking/bench-trace.ts), set only by
   * `npm run bench -- engine`; unset everywhere else, where it changes nothing.
   */
  BENCH_ENGINE?: string;
}

/** The authenticated caller, set by the auth middleware. */
export interface Principal {
  accountId: string;
  apiKeyId: string;
  /** Non-secret fingerprint of the key (`fingerprintOfKeyHash`, src/middleware/auth.ts): binds MCP sessions to it. */
  keyFingerprint: string;
}

/** Hono environment of the app: bindings plus per-request variables. */
export interface AppEnv {
  Bindings: Env;
  Variables: {
    requestId: string;
    principal: Principal;
    db: Database;
    clock: Clock;
  };
}
