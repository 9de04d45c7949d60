/**
 * Backoff per terminal provider (issue 14: "respect each provider's documented rate limits, with backoff on
 * 429/5xx"). None of the three providers documents a rate limit (TERMINAL-APIS.md §1.3, §2.1, §3.1: "not found"),
 * so the rule is the generic one: after an answer of 429 or 5xx (or no answer at all) the provider is left alone for
 * its `Retry-After` when it sends one, else for 5 s, doubling with each further failure up to 10 min; the first
 * answer that is neither ends the backoff. While it lasts, a request is not sent: the fetch rejects at once (as a
 * network failure would), so the adapter reports a temporary failure and the Tracker retries the box later.
 *
 * The state lives in memory per isolate (a module-level map): every poll of one isolate shares it, which is where
 * the requests of one queue batch come from (one consumer invocation); isolates do not share it, so at most one
 * failed request per isolate reaches a provider during its backoff. Batching keeps that small: one request asks
 * for up to the provider's bulk limit of boxes. Times come from the caller's clock (`SourceContext.nowMs`).
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

/** Backoff states by provider key. */
export type ProviderBackoffs = Map<string, ProviderBackoffState>;

/** The isolate's backoff states (what the registry's sources use). */
export const sharedProviderBackoffs: ProviderBackoffs = new Map();

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
 * `fetch` through `provider`'s backoff (see the module docs): rejects with {@link ProviderBackoffError} without a
 * request while the backoff lasts; else sends, and starts or extends the backoff on 429, 5xx or a network error
 * (rethrown), or ends it on any other answer. Times by `nowMs` (the poll's clock).
 */
export function providerBackoffFetch(
  provider: string,
  upstream: typeof fetch,
  nowMs: number,
  backoffs: ProviderBackoffs = sharedProviderBackoffs,
): typeof fetch {
  const fail = (retryAfter: string | null): void => {
    const failures = (backoffs.get(provider)?.failures ?? 0) + 1;
    backoffs.set(provider, { failures, untilMs: nowMs + providerBackoffDelayMs(failures, retryAfter, nowMs) });
  };
  return async (input, init) => {
    const state = backoffs.get(provider);
    if (state && nowMs < state.untilMs) throw new ProviderBackoffError(provider, state.untilMs);
    let response: Response;
    try {
      response = await upstream(input, init);
    } catch (err) {
      // A timeout we set ourselves is the provider not answering: backed off like a 5xx.
      fail(null);
      throw err;
    }
    if (response.status === 429 || response.status >= 500) fail(response.headers.get("Retry-After"));
    else backoffs.delete(provider);
    return response;
  };
}
