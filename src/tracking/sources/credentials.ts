import { DurableObject } from "cloudflare:workers";
import {
  type AccessToken,
  createTokenBroker,
  isTokenFresh,
  TOKEN_REFUSAL_MEMORY_MS,
  type TokenBroker,
  type TokenCoordinator,
  type TokenGrant,
  type TokenOutcome,
} from "./auth";

/** Longest one caller may hold the right to fetch a token before another may take it over (ms; > TOKEN_TIMEOUT_MS). */
export const TOKEN_LEASE_MS = 20_000;

type Failure = Exclude<TokenOutcome, { kind: "token" }>;

interface Lease {
  id: string;
  /** When it was granted, by the caller's clock (ms). */
  grantedAtMs: number;
  /** When the lease lapses, by the caller's clock (ms). */
  untilMs: number;
  waiters: ((grant: TokenGrant | null) => void)[];
}

/**
 * One OAuth client credential's token, shared by every isolate (docs/architecture.md §Credentials, one place), named by
 * `credentialKey` (a hash: the name reveals nothing). It never sees the client secret and makes no request itself:
 * it hands out the cached token while fresh, or a lease to one caller, who asks the token endpoint through its own
 * (injected) fetch and publishes the token or abandons the lease with the failure. Callers arriving meanwhile wait
 * for that outcome, so all isolates together make one token request per credential at a time, and a refused secret
 * is reported to every waiter from one refusal, and to every caller for `TOKEN_REFUSAL_MEMORY_MS` after it. The token is kept in memory only (not in storage): an evicted object
 * costs one more token request, a bearer token never rests on disk. A lease lapses after {@link TOKEN_LEASE_MS}
 * (its holder died): waiters are then released to try again.
 */
export class Credentials extends DurableObject<Env> implements TokenCoordinator {
  private token: AccessToken | null = null;
  private lease: Lease | null = null;
  /** The token endpoint's last refusal of the client, remembered until `untilMs` (caller's clock). */
  private refusal: { outcome: Failure; untilMs: number } | null = null;

  /** A fresh token, the lease, or (after waiting for the current holder) its token or its failure. */
  async acquire(nowMs: number): Promise<TokenGrant> {
    if (this.token && isTokenFresh(this.token, nowMs)) return { kind: "token", token: this.token };
    if (this.refusal && nowMs < this.refusal.untilMs) return { kind: "failed", outcome: this.refusal.outcome };
    const current = this.lease;
    if (current && nowMs < current.untilMs) {
      const grant = await new Promise<TokenGrant | null>((resolve) => {
        current.waiters.push(resolve);
        // The holder may never come back; the waiters must not hang on it.
        setTimeout(() => resolve(null), TOKEN_LEASE_MS);
      });
      if (grant) return grant;
      if (this.lease === current) this.lease = null;
      return this.acquire(nowMs);
    }
    const lease: Lease = { id: crypto.randomUUID(), grantedAtMs: nowMs, untilMs: nowMs + TOKEN_LEASE_MS, waiters: [] };
    this.lease = lease;
    return { kind: "lease", leaseId: lease.id };
  }

  /** The lease holder's new token: cached, and handed to everyone waiting. A lapsed lease's token is still kept. */
  async publish(leaseId: string, token: AccessToken): Promise<void> {
    if (!this.token || token.expiresAtMs >= this.token.expiresAtMs) this.token = token;
    this.refusal = null;
    this.release(leaseId, { kind: "token", token });
  }

  /** The lease holder got no token: everyone waiting gets the same failure; the next caller gets a new lease. */
  async abandon(leaseId: string, outcome: Failure): Promise<void> {
    const lease = this.lease;
    if (outcome.kind === "rejected" && lease?.id === leaseId) {
      this.refusal = { outcome, untilMs: lease.grantedAtMs + TOKEN_REFUSAL_MEMORY_MS };
    }
    this.release(leaseId, { kind: "failed", outcome });
  }

  /** An upstream answered 401 to `value`: forgotten, unless a newer token has replaced it already. */
  async invalidate(value: string): Promise<void> {
    if (this.token?.value === value) this.token = null;
  }

  private release(leaseId: string, grant: TokenGrant): void {
    const lease = this.lease;
    if (!lease || lease.id !== leaseId) return;
    this.lease = null;
    for (const resolve of lease.waiters) resolve(grant);
  }
}

/**
 * The token broker of an environment: per-isolate cache in front of the `Credentials` Durable Object of each
 * credential when the binding exists, else per isolate only.
 */
export function tokenBrokerFor(env: { CREDENTIALS?: Env["CREDENTIALS"] }): TokenBroker {
  const namespace = env.CREDENTIALS;
  if (!namespace) return createTokenBroker();
  return createTokenBroker((key) => namespace.get(namespace.idFromName(key)));
}
