import type { Database } from "./db/client";
import type { Clock } from "./lib/clock";

// The Worker's bindings are the global `Env`, generated from wrangler.toml by `npm run types`
// (worker-configuration.d.ts) and completed in src/bindings.d.ts. This module holds only the Hono context types, so
// it imports nothing that imports it back.

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
