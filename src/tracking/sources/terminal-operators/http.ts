import { isTimeout, type ProviderCredentials, providerFetch } from "../provider-fetch";
import type { SourceContext } from "../types";

/** Why a terminal request gave no usable body (the `reason` of a `temporary_failure`, src/tracking/sources/types.ts). */
export type TerminalRequestFailure = "terminal_unreachable" | "unrecognized_response" | "terminal_credentials_rejected";

/** What one terminal request gave: the 200 body as text, or why there is none. */
export type TerminalRequestOutcome = { kind: "ok"; body: string } | { kind: "failed"; reason: TerminalRequestFailure };

/** One request to a terminal API and the words its log lines use. */
export interface TerminalRequest {
  url: string;
  method: "GET" | "POST";
  headers: Headers;
  /** Request body (JSON text), for a POST. */
  body?: string;
  /** Whole-request timeout, ms (a timeout counts as unreachable). */
  timeoutMs: number;
  /**
   * Our credentials for the API, applied by `authorizedFetch` (src/tracking/sources/auth.ts) with `tokens` as the
   * token cache of an OAuth form; null for none (e.g. a key already in the URL).
   */
  auth: ProviderCredentials | null;
  /** Provider name that starts each log line, e.g. `APMT USLAX` or `LBCT`. */
  label: string;
  /** Origin of `url`, the only part of it logged (a path may hold a key). */
  origin: string;
  /** Log text after `answered 401`/`403`, e.g. `: check the apiKey of TERMINAL_SOURCES.lbct`. */
  credentialsHint: string;
  /** Log text after `answered <status>` for any other non-200 status, e.g. ` to the cargo search`. */
  unexpectedStatusHint: string;
}

/**
 * Sends one terminal API request through `ctx.fetch` and sorts the answer the way every terminal adapter does
 * (docs/terminals.md; docs/api.md §Known defects of the reference failure reasons): 200 → its body text; 401/403 or
 * refused credentials at the token endpoint → `terminal_credentials_rejected` (logged as an error, with
 * `credentialsHint`); 408, 429, 5xx, a network error, a timeout or an unreachable token endpoint →
 * `terminal_unreachable` (a warning; a numeric Retry-After is logged); any other status or an unreadable token answer →
 * `unrecognized_response` (an error, with `unexpectedStatusHint`). Never throws; logs `label`, `origin` and the status,
 * never a key, token or body.
 */
export async function sendTerminalRequest(
  request: TerminalRequest,
  ctx: SourceContext,
): Promise<TerminalRequestOutcome> {
  const { url, method, headers, body, timeoutMs, auth, label, origin } = request;
  try {
    const sent = await providerFetch(auth, url, { method, headers, body, timeoutMs }, ctx, label);
    if (sent.kind === "rejected") return { kind: "failed", reason: "terminal_credentials_rejected" };
    if (sent.kind === "unreachable") return { kind: "failed", reason: "terminal_unreachable" };
    if (sent.kind === "unrecognized") return { kind: "failed", reason: "unrecognized_response" };
    const response = sent.response;
    if (response.status === 401 || response.status === 403) {
      await response.body?.cancel();
      console.error(`${label}: ${origin} answered ${response.status}${request.credentialsHint}`);
      return { kind: "failed", reason: "terminal_credentials_rejected" };
    }
    if (response.status >= 500 || response.status === 429 || response.status === 408) {
      const retryAfter = response.headers.get("Retry-After");
      await response.body?.cancel();
      const wait = retryAfter && /^\d{1,6}$/.test(retryAfter.trim()) ? ` (Retry-After ${retryAfter.trim()} s)` : "";
      console.warn(`${label}: ${origin} answered ${response.status}${wait}`);
      return { kind: "failed", reason: "terminal_unreachable" };
    }
    if (response.status !== 200) {
      await response.body?.cancel();
      console.error(`${label}: ${origin} answered ${response.status}${request.unexpectedStatusHint}`);
      return { kind: "failed", reason: "unrecognized_response" };
    }
    return { kind: "ok", body: await response.text() };
  } catch (error) {
    console.warn(`${label}: ${origin} ${isTimeout(error) ? "timed out" : "unreachable"}`);
    return { kind: "failed", reason: "terminal_unreachable" };
  }
}
