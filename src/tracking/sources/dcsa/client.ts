/**
 * The HTTP side of the DCSA carrier source: `GET {baseUrl}/v2/events` filtered by the tracked number, following
 * `Next-Page` ({@link fetchAllEvents}), with the configured auth, and the answers sorted into outcomes.
 */
import { authorizedFetch } from "../auth";
import { isTimeout } from "../provider-fetch";
import type { LookupRequest, SourceContext } from "../types";
import { DCSA_API_VERSION, type DcsaSourceConfig, type DcsaSourceOptions } from "./config";

/** What fetching a lookup's events came to: every page's events, the number unknown (404), or a temporary failure. */
export type FetchOutcome =
  | { kind: "ok"; events: unknown[] }
  | { kind: "not_found" }
  | {
      kind: "temporary_failure";
      reason: "shipping_line_unreachable" | "unrecognized_response" | "shipping_line_credentials_rejected";
    };

/** The carrier could not be reached (network error, timeout, 5xx, 408, 429, token endpoint unreachable). */
export const unreachable = { kind: "temporary_failure", reason: "shipping_line_unreachable" } as const;
/** The carrier answered something this source does not understand (status, body, paging). */
export const unrecognized = { kind: "temporary_failure", reason: "unrecognized_response" } as const;
const credentialsRejected = { kind: "temporary_failure", reason: "shipping_line_credentials_rejected" } as const;

/** The TNT 2.2 query parameter for a request type. */
export function filterFor(
  requestType: string,
): "equipmentReference" | "transportDocumentReference" | "carrierBookingReference" {
  if (requestType === "container") return "equipmentReference";
  if (requestType === "booking" || requestType === "booking_number") return "carrierBookingReference";
  return "transportDocumentReference";
}

/**
 * The next page from a `Next-Page` header. TNT 2.2 describes it as "a link to the next page" but its example is a
 * bare cursor (`fE9mZnNldHw9NSZsaW1pdD01`), so both are accepted: an absolute or relative link is followed (only on
 * the configured origin: the configured headers carry credentials); a bare cursor goes into the `cursor` query
 * parameter next to the original filter and limit.
 */
function nextPageUrl(value: string, current: URL, first: URL): URL | null {
  const next = value.trim();
  if (/^https?:\/\//i.test(next) || next.startsWith("/") || next.startsWith("?")) {
    let url: URL;
    try {
      url = new URL(next, current);
    } catch {
      return null;
    }
    return url.origin === first.origin ? url : null;
  }
  const url = new URL(first);
  url.searchParams.set("cursor", next);
  return url;
}

/**
 * Every event of `request` at the carrier: `GET {baseUrl}/v2/events?<filter>=<number>&limit=<pageSize>` with
 * `API-Version` and the configured auth, following `Next-Page` ({@link nextPageUrl}) for at most `maxPages` pages,
 * one copy per `eventID`. The outcomes are those of `createDcsaSource` (source.ts); never throws.
 */
export async function fetchAllEvents(
  scac: string,
  config: DcsaSourceConfig,
  request: LookupRequest,
  ctx: SourceContext,
  limits: Required<DcsaSourceOptions>,
): Promise<FetchOutcome> {
  const first = new URL(`${config.baseUrl}/v2/events`);
  first.searchParams.set(filterFor(request.requestType), request.number);
  first.searchParams.set("limit", String(limits.pageSize));
  const headers = new Headers();
  headers.set("API-Version", DCSA_API_VERSION);
  headers.set("Accept", "application/json");

  const events: unknown[] = [];
  const requested = new Set<string>();
  let url: URL | null = first;
  for (let page = 0; url !== null; page++) {
    if (page >= limits.maxPages || requested.has(url.href)) {
      console.warn(`DCSA ${scac}: ${url.origin} still paging after ${page} pages; lookup abandoned`);
      return unrecognized;
    }
    requested.add(url.href);
    let response: Response;
    let body: string;
    try {
      const sent = await authorizedFetch(
        config.auth,
        url.href,
        { method: "GET", headers, timeoutMs: limits.timeoutMs },
        { fetch: ctx.fetch, nowMs: ctx.nowMs, tokens: limits.tokens, label: `DCSA ${scac}` },
      );
      if (sent.kind === "rejected") return credentialsRejected;
      if (sent.kind === "unreachable") return unreachable;
      if (sent.kind === "unrecognized") return unrecognized;
      response = sent.response;
      if (response.status === 404 && page === 0) return { kind: "not_found" };
      if (response.status === 401 || response.status === 403) {
        // Not logged per request: the engine logs a refusal once per outage (src/tracking/source-outages.ts), and a
        // tracking request's lookup once per attempt (consumers.ts).
        await response.body?.cancel();
        return credentialsRejected;
      }
      if (response.status >= 500 || response.status === 429 || response.status === 408) {
        console.warn(`DCSA ${scac}: ${url.origin} answered ${response.status}`);
        return unreachable;
      }
      if (response.status !== 200) {
        console.error(`DCSA ${scac}: ${url.origin} answered ${response.status} to ${url.pathname}`);
        return unrecognized;
      }
      body = await response.text();
    } catch (error) {
      console.warn(`DCSA ${scac}: ${url.origin} ${isTimeout(error) ? "timed out" : "unreachable"}`);
      return unreachable;
    }
    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch {
      console.warn(`DCSA ${scac}: ${url.origin} answered with a body that is not JSON`);
      return unrecognized;
    }
    if (!Array.isArray(json)) {
      console.warn(`DCSA ${scac}: ${url.origin} answered with JSON that is not an event list`);
      return unrecognized;
    }
    events.push(...json);
    const next = response.headers.get("Next-Page");
    if (!next?.trim()) break;
    url = nextPageUrl(next, url, first);
    if (url === null) {
      console.error(`DCSA ${scac}: Next-Page is not a link on ${first.origin}; not followed`);
      return unrecognized;
    }
  }
  return { kind: "ok", events: dedupeById(events) };
}

/** Pages of a stateless server can overlap when events arrive mid-paging: one copy per `eventID`. */
function dedupeById(events: unknown[]): unknown[] {
  const seen = new Set<string>();
  return events.filter((e) => {
    const id = typeof e === "object" && e !== null ? (e as { eventID?: unknown }).eventID : undefined;
    if (typeof id !== "string" || id === "") return true;
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
}
