/**
 * The DCSA Track & Trace 2.2 carrier source ({@link createDcsaSource}): fetch the events (client.ts), validate and
 * normalise them (events.ts), build the journey and the facts (journey.ts, milestones.ts, shipment.ts).
 */
import { createTokenBroker } from "../auth";
import type { CarrierSource, LookupRequest, LookupResult, SourceContext } from "../types";
import { fetchAllEvents, unreachable, unrecognized } from "./client";
import {
  DCSA_MAX_PAGES,
  DCSA_PAGE_SIZE,
  DCSA_TIMEOUT_MS,
  type DcsaSourceConfig,
  type DcsaSourceOptions,
} from "./config";
import { parseEvents } from "./events";
import { buildShipment } from "./shipment";

/**
 * Not found: a container is `failed`, a BL/booking may not be manifested yet (docs/architecture.md §Tracking pipeline
 * step 2).
 */
const notFoundFor = (request: LookupRequest): LookupResult =>
  request.requestType === "container" ? { kind: "not_found" } : { kind: "awaiting_manifest" };

/**
 * The DCSA Track & Trace 2.2 carrier source for the configured SCACs (config.ts `parseDcsaSources`); a SCAC is
 * supported iff configured. A lookup GETs `{baseUrl}/v2/events?<filter>=<number>&limit=100` — `equipmentReference`
 * for containers, `transportDocumentReference` for BLs, `carrierBookingReference` for bookings — with the
 * configured `auth` applied (src/tracking/sources/auth.ts `authorizedFetch`: headers, API key, or an OAuth bearer
 * token from `options.tokens`), `API-Version: 2` and `Accept: application/json`, through `ctx.fetch` only, following
 * `Next-Page` (at most `maxPages` pages, each with a `timeoutMs` timeout).
 *
 * Outcomes: 404, an empty list or only SHIPMENT events → `not_found` for a container, `awaiting_manifest` for a
 * BL/booking; 5xx, 408, 429, network error or timeout → `temporary_failure` `shipping_line_unreachable`; 401/403
 * (after one retry with a new token for OAuth), or a token endpoint refusing the client →
 * `shipping_line_credentials_rejected`, not logged per request (the engine logs it once per outage of the line,
 * src/tracking/source-outages.ts `outageLogLine`; the token endpoint's refusal is logged by auth.ts); a
 * token endpoint unreachable → `shipping_line_unreachable`; any other status, a body that is not JSON or not a list
 * of TNT 2.2 events, a Next-Page off the configured origin, or paging past the cap → `temporary_failure`
 * `unrecognized_response`. Never throws.
 *
 * Mapping (docs/carriers.md §DCSA event mapping): EQUIPMENT events per `equipmentReference`; TRANSPORT
 * events (ARRI/DEPA) per transport call, fanned out to the boxes seen on that call (or every box for a call none is
 * seen at yet); SHIPMENT events produce no milestone. Vessel calls: POL = first LOAD/DEPA, POD = last ARRI/DISC,
 * others transshipment; BARGE → `feeder_*`; RAIL after the POD → `rail_*`, with the last rail arrival the inland
 * destination; gates per milestones.ts `mapGate`; `ACT` → actual, `EST`/`PLN` → estimated, the newest estimate per
 * call wins, and one actual per identity (src/tracking/identity.ts: a corrected time is reported again, the newest
 * report wins). A call is one mode's (`modeOfTransport` + `transportCallID`): truck and rail moves never take a
 * vessel from a vessel call that shares their id. Every event received ends up in a milestone's `raw` or in an
 * `unmappedEvents` list.
 */
export function createDcsaSource(
  configs: ReadonlyMap<string, DcsaSourceConfig>,
  options: DcsaSourceOptions = {},
): CarrierSource {
  const limits: Required<DcsaSourceOptions> = {
    maxPages: options.maxPages ?? DCSA_MAX_PAGES,
    timeoutMs: options.timeoutMs ?? DCSA_TIMEOUT_MS,
    pageSize: options.pageSize ?? DCSA_PAGE_SIZE,
    tokens: options.tokens ?? createTokenBroker(),
  };
  return {
    name: "Shipping line",
    supports: (scac) => configs.has(scac.trim().toUpperCase()),
    async lookup(request: LookupRequest, ctx: SourceContext): Promise<LookupResult> {
      const scac = request.scac.trim().toUpperCase();
      const config = configs.get(scac);
      if (!config) {
        console.error(`DCSA: no source configured for ${scac}`);
        return unreachable;
      }
      const fetched = await fetchAllEvents(scac, config, request, ctx, limits);
      if (fetched.kind !== "ok") return fetched.kind === "not_found" ? notFoundFor(request) : fetched;
      const parsed = parseEvents(fetched.events);
      if (!parsed) return unrecognized;
      if (parsed.transport.length + parsed.equipment.length === 0) return notFoundFor(request);
      return { kind: "found", shipment: buildShipment(request, parsed) };
    },
  };
}
