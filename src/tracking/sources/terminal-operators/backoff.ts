/**
 * Backoff per terminal provider (issue 14: "respect each provider's documented rate limits, with backoff on
 * 429/5xx"). None of the three providers documents a rate limit (docs/terminals.md §APMT request, §LBCT API,
 * §Port of Virginia API: "not found"), so the rule is the generic one: after an answer of 429 or 5xx (or no answer at
 * all) the provider is left alone for its `Retry-After` when it sends one, else for 5 s, doubling with each further
 * failure up to 10 min; the first answer that is neither ends the backoff. While it lasts, a request is not sent: the
 * fetch rejects at once (as a network failure would), so the adapter reports a temporary failure and the Tracker
 * retries the box later. A failed answer to a request sent before the backoff in force began (concurrent requests) does
 * not lengthen it (`nextBackoff`).
 *
 * Where the state lives (`ProviderBackoffStore`): in production every isolate shares it through the provider's
 * `ProviderGate` Durable Object (provider-gate.ts), so a provider that answered 429 to
 * one queue consumer is left alone by all of them, and a backoff survives the isolate; each request asks the gate
 * (one Durable Object call per request to the provider, which carries up to the provider's bulk limit of boxes).
 * Without the binding (unit tests), a Map in the isolate's memory. Times come from the caller's clock
 * (`SourceContext.nowMs`).
 */

/** First wait after a failure without `Retry-After`, ms. */
export const PROVIDER_BACKOFF_BASE_MS = 5_000;
/** Longest wait, whatever `Retry-After` asks, ms. */
export const PROVIDER_BACKOFF_MAX_MS = 10 * 60_000;

/** One provider's backoff: consecutive failed answers, and until when (ms since the epoch) it is left alone. */
export interface ProviderBackoffState {
  failures: number;
  untilMs: number;
}

/** Backoff states by provider key (the in-memory store's map). */
export type ProviderBackoffs = Map<string, ProviderBackoffState>;

/**
 * Where the providers' backoff states live. Every method may be a Durable Object call; none throws for a provider it
 * does not know.
 */
export interface ProviderBackoffStore {
  /** The provider's state at `nowMs` (ms since epoch), undefined when it has no failure on record. */
  current(provider: string, nowMs: number): Promise<ProviderBackoffState | undefined>;
  /** Records a failed answer at `nowMs` (with its `Retry-After`, if any); returns the state now in force. */
  failed(provider: string, retryAfter: string | null, nowMs: number): Promise<ProviderBackoffState>;
  /** Records a good answer: the provider's failures are forgotten. */
  succeeded(provider: string): Promise<void>;
}

/**
 * The state after a failed answer at `nowMs`: unchanged while a backoff is in force (`nowMs < untilMs`: the request
 * was sent before it began, and the provider's answer to it is already accounted for), else one failure more and a
 * wait of `providerBackoffDelayMs`. Pure.
 */
export function nextBackoff(
  state: ProviderBackoffState | undefined,
  retryAfter: string | null,
  nowMs: number,
): ProviderBackoffState {
  if (state && nowMs < state.untilMs) return state;
  const failures = (state?.failures ?? 0) + 1;
  return { failures, untilMs: nowMs + providerBackoffDelayMs(failures, retryAfter, nowMs) };
}

/** A store in this isolate's memory: `backoffs` (a fresh Map by default) holds the states. */
export function memoryBackoffStore(backoffs: ProviderBackoffs = new Map()): ProviderBackoffStore {
  return {
    current: async (provider) => backoffs.get(provider),
    failed: async (provider, retryAfter, nowMs) => {
      const next = nextBackoff(backoffs.get(provider), retryAfter, nowMs);
      backoffs.set(provider, next);
      return next;
    },
    succeeded: async (provider) => {
      backoffs.delete(provider);
    },
  };
}

/** The isolate's own store, used when no `ProviderGate` binding is at hand (tests, tools). */
export const isolateBackoffStore: ProviderBackoffStore = memoryBackoffStore();

/** The error a request rejects with while its provider is backing off (no request was sent). */
export class ProviderBackoffError extends Error {
  constructor(provider: string, untilMs: number) {
    super(`${provider}: backing off after failed answers until ${new Date(untilMs).toISOString()}`);
    this.name = "ProviderBackoffError";
  }
}

/**
 * How long to leave a provider alone after its `failures`-th consecutive failed answer (ms): `Retry-After` (RFC 9110
 * §10.2.3, delay-seconds or an HTTP date, read against `nowMs`) when given and valid, else
 * `PROVIDER_BACKOFF_BASE_MS × 2^(failures − 1)`; at most `PROVIDER_BACKOFF_MAX_MS`. Pure.
 */
export function providerBackoffDelayMs(failures: number, retryAfter: string | null, nowMs: number): number {
  const exponential = PROVIDER_BACKOFF_BASE_MS * 2 ** Math.max(0, Math.min(failures - 1, 20));
  let delay = exponential;
  const value = retryAfter?.trim();
  if (value) {
    if (/^\d+$/.test(value)) delay = Number(value) * 1000;
    else {
      const at = Date.parse(value);
      if (!Number.isNaN(at)) delay = Math.max(0, at - nowMs);
    }
  }
  return Math.min(PROVIDER_BACKOFF_MAX_MS, delay);
}

/**
 * `fetch` through `provider`'s backoff in `store` (see the module docs): rejects with {@link ProviderBackoffError}
 * without a request while the backoff lasts; else sends, and records a failed answer on 429, 5xx or a network error
 * (rethrown), or ends a backoff on record on any other answer. Times by `nowMs` (the poll's clock).
 */
export function providerBackoffFetch(
  provider: string,
  upstream: typeof fetch,
  nowMs: number,
  store: ProviderBackoffStore,
): typeof fetch {
  return async (input, init) => {
    const state = await store.current(provider, nowMs);
    if (state && nowMs < state.untilMs) throw new ProviderBackoffError(provider, state.untilMs);
    let response: Response;
    try {
      response = await upstream(input, init);
    } catch (err) {
      // A timeout we set ourselves is the provider not answering: backed off like a 5xx.
      await store.failed(provider, null, nowMs);
      throw err;
    }
    if (response.status === 429 || response.status >= 500) {
      await store.failed(provider, response.headers.get("Retry-After"), nowMs);
    } else if (state) {
      await store.succeeded(provider);
    }
    return response;
  };
}
