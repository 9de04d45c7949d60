import type { Database } from "./db/client";
import type { Clock } from "./lib/clock";

/** Bindings and variables of the Worker (wrangler.toml). Numbers arrive as strings from `[vars]`. */
export interface Env {
  DB: D1Database;
  RATE_LIMITER: DurableObjectNamespace<import("./ratelimit/rate-limiter").RateLimiter>;
  TRACKING_REQUESTS_QUEUE: Queue<TrackingRequestMessage>;
  TERMINAL_POLLS_QUEUE: Queue<unknown>;
  WEBHOOK_DELIVERIES_QUEUE: Queue<unknown>;
  RATE_LIMIT_DEFAULT?: string;
  RATE_LIMIT_CREATE_TRACKING_REQUEST?: string;
  RATE_LIMIT_INFER_NUMBER?: string;
  RATE_LIMIT_REFRESH_CONTAINER?: string;
  AUTH_CACHE_TTL_SECONDS?: string;
  /** JSON object of DCSA Track & Trace sources per SCAC: `{"MAEU":{"baseUrl":"https://…","headers":{…}}}`. */
  DCSA_SOURCES?: string;
}

/** Message on the `tracking-requests` queue: look up this tracking request at its carrier. */
export interface TrackingRequestMessage {
  trackingRequestId: string;
  accountId: string;
}

/** The authenticated caller, set by the auth middleware. */
export interface Principal {
  accountId: string;
  apiKeyId: string;
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
