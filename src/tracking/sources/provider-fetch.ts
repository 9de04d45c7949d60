import { type AuthorizedResponse, authorizedFetch, type SourceAuth, type TokenBroker } from "./auth";
import type { SourceContext } from "./types";

/** Our credentials for a provider (src/tracking/sources/auth.ts) and the token cache of an OAuth form. */
export interface ProviderCredentials {
  credentials: SourceAuth;
  tokens: TokenBroker;
}

/** One request to a provider: method, headers, optional JSON body, whole-request timeout (ms). */
export interface ProviderRequestInit {
  method: string;
  headers: Headers;
  body?: string;
  timeoutMs: number;
}

/** True for the error `fetch` rejects with when `AbortSignal.timeout` fires. */
export const isTimeout = (error: unknown): boolean =>
  error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError");

/**
 * Sends `init` to `url` through `ctx.fetch`: with `auth` through `authorizedFetch` (its token outcomes passed on),
 * without it as is, each with `AbortSignal.timeout(init.timeoutMs)`. `label` names the provider in the token broker's
 * logs. Rejects as `fetch` does (network error, timeout: see {@link isTimeout}).
 */
export async function providerFetch(
  auth: ProviderCredentials | null,
  url: string,
  init: ProviderRequestInit,
  ctx: SourceContext,
  label: string,
): Promise<AuthorizedResponse> {
  const { method, headers, body, timeoutMs } = init;
  if (auth) {
    return authorizedFetch(
      auth.credentials,
      url,
      { method, headers, timeoutMs, ...(body !== undefined ? { body } : {}) },
      { fetch: ctx.fetch, nowMs: ctx.nowMs, tokens: auth.tokens, label },
    );
  }
  return {
    kind: "response",
    response: await ctx.fetch(url, { method, headers, body, signal: AbortSignal.timeout(timeoutMs) }),
  };
}
