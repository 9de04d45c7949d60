import { isTimeout, type ProviderCredentials, providerFetch } from "./provider-fetch";
import type { SourceContext } from "./types";

/** What one subscription request to a provider gave: its status and body, or why there is no answer. */
export type SubscriptionCallAnswer =
  | { kind: "response"; status: number; body: string }
  | { kind: "failed"; error: string };

/** One subscription request (create or delete) to a provider's subscription API. */
export interface SubscriptionCall {
  url: string;
  method: "POST" | "DELETE";
  /** Headers the provider wants besides auth; `Content-Type: application/json` is added when there is a `body`. */
  headers: Headers;
  /** JSON text, for a POST. */
  body?: string;
  /** Whole-request timeout, ms. */
  timeoutMs: number;
  /** Our credentials and the token cache of an OAuth form; null for none. */
  auth: ProviderCredentials | null;
  /** Provider name for the token broker's log lines, e.g. `DCSA MAEU`. */
  label: string;
}

/**
 * Sends one subscription request through `ctx.fetch` (with `authorizedFetch` when there are credentials) and gives
 * back the status and body text for the caller to judge. Never throws: a network error, a timeout or a token
 * endpoint that refuses, cannot be reached or answers unrecognizably is `failed` with a short reason for
 * `upstream_subscriptions.last_error` (never a body or a secret).
 */
export async function sendSubscriptionCall(
  call: SubscriptionCall,
  ctx: SourceContext,
): Promise<SubscriptionCallAnswer> {
  const { url, method, body, timeoutMs, auth } = call;
  const headers = new Headers(call.headers);
  if (body !== undefined) headers.set("Content-Type", "application/json");
  try {
    const sent = await providerFetch(auth, url, { method, headers, body, timeoutMs }, ctx, call.label);
    if (sent.kind === "rejected") return { kind: "failed", error: "credentials rejected by the token endpoint" };
    if (sent.kind === "unreachable") return { kind: "failed", error: "token endpoint unreachable" };
    if (sent.kind === "unrecognized") return { kind: "failed", error: "unrecognized token response" };
    const response = sent.response;
    return { kind: "response", status: response.status, body: await response.text() };
  } catch (error) {
    return { kind: "failed", error: isTimeout(error) ? "timed out" : "unreachable" };
  }
}
