import type { Database } from "./db/client";
import type { UserRole } from "./db/schema/users";
import type { Clock } from "./lib/clock";

// The Worker's bindings are the global `Env`, generated from wrangler.toml by `npm run types`
// (worker-configuration.d.ts) and completed in src/bindings.d.ts. This module holds only the Hono context types, so
// it imports nothing that imports it back.

/** The authenticated caller, set by the auth middleware. */
export interface Principal {
  accountId: string;
  /** The account's shard (src/db/shards.ts): the request's `db` is this shard's database. */
  shard: number;
  /** The API key's id; null for a dashboard session (src/sessions/session.ts) or an OAuth access token. */
  apiKeyId: string | null;
  /**
   * Non-secret fingerprint of the credential (`fingerprintOfKeyHash`, src/middleware/auth.ts; `session:<id>` for a
   * dashboard session): binds MCP sessions to it.
   */
  keyFingerprint: string;
}

/** The signed-in dashboard user of a request (set by `requireSignedIn`, src/sessions/session.ts, as `user`). */
export interface SignedInUser {
  userId: string;
  accountId: string;
  /** Lowercase e-mail address. */
  email: string;
  name: string | null;
  role: UserRole;
  /** `web_sessions.id` of the session the request came with. */
  sessionId: string;
  /** The session's CSRF token, which every state-changing dashboard form carries as `_csrf` (src/sessions/csrf.ts). */
  csrfToken: string;
}

/** Hono environment of the app: bindings plus per-request variables. */
export interface AppEnv {
  Bindings: Env;
  Variables: {
    requestId: string;
    principal: Principal;
    /** The signed-in dashboard user (src/sessions/session.ts `requireSignedIn`); unset on the API-key path. */
    user: SignedInUser;
    /**
     * The database of the caller's account rows: the primary until authentication, then the account's shard
     * (src/db/shards.ts; set by `requireApiKey`, `requireSignedIn` and the OAuth path).
     */
    db: Database;
    /** The primary database (`DB`): accounts, API keys, users, sessions, reference data, tracked equipment, vessels. */
    primaryDb: Database;
    clock: Clock;
  };
}
