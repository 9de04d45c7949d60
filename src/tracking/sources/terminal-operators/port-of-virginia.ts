/**
 * Port of Virginia Import Availability (issue 14 adapter 3; docs/terminals.md §Port of Virginia): one API for the
 * port's terminals (NIT, VIG, PMT, ...), asked by container number AND bill of lading, up to 100 pairs per request.
 *
 * What the provider documents (subscriptions.portofvirginia.com, Docs/ImportAvailability) and what is assumed:
 * - Auth: an API key in `X-API-KEY` (or `?key=`) [doc]; configured as `{"type":"api_key","apiKey":"…"}` (header
 *   `X-API-KEY` by default). Any `auth` form of `TERMINAL_SOURCES` is applied through `authorizedFetch`.
 * - Bulk: `POST /import-availability` with a JSON array of at most 100 `{equipmentId, referenceId}` objects, answered
 *   with a list of `{equipmentId, referenceId, data, message}` wrappers; `data` is the import availability object,
 *   `message` the reason `data` was not populated [doc]. The adapter always uses the bulk endpoint, also for one box,
 *   because it is the one with a documented per-container "not found" channel (`data: null`); what the single
 *   `GET /import-availability` answers for an unknown container is not documented.
 * - A wrapper with `data: null` is `not_found` (unknown container, or a bill of lading the terminal does not associate
 *   with it) [inf: the documented meaning of `message`].
 * - `shipmentStatus`: `Available` is documented on this API; the sibling Container Events API documents
 *   `Available` or `Not Available` [doc: Docs/ContainerEvents]. `Available` → available; any other non-empty value →
 *   not available (docs/terminals.md §Port of Virginia mapping); absent or null → availability unknown. Holds are NOT
 *   folded into availability: readiness combines both signals (docs/api.md §Readiness), so each is mapped as reported.
 * - `holds[]`: the item shape is not documented (the example is `[]`). Items are read leniently: a string, or an
 *   object whose code is in `type` / `holdType` / `code` / `name` / `holdCode` and text in `description` / `desc` /
 *   `reason`; an item whose `status` says released / inactive / cleared is dropped (active holds only,
 *   docs/api.md §Holds), `PENDING` is `pending`, anything else `hold`. Names by keywords of code and text: VACIS/X-ray
 *   → `VACIS`, USDA/APHIS → `USDA`, customs/CBP → `customs`, freight/line → `freight`, TMF → `TMF`, else `other` (a
 *   terminal hold is `other`: docs/api.md §Holds has no terminal name); the description is the provider's own text (or
 *   code), as given.
 * - Times carry no offset (`"2022-02-15T18:16:13.973"`) and are taken as the terminal's wall clock
 *   (docs/terminals.md §Port of Virginia fields [inf]); the terminal's zone comes from the reference data by our
 *   facility code (`src/reference/locations.ts`; every Port of Virginia terminal is `America/New_York`), which is also
 *   the fallback. A value that does carry `Z` or an offset is read as that instant. Converted to UTC, second precision
 *   (docs/decisions.md §Wire format).
 * - `freeTimeExpiration` → `pickupLfd`: the local calendar date of the value, as local midnight in UTC
 *   (docs/api.md §Timestamps and time zones, e.g. `2024-07-07T04:00:00Z`). Date-only values are shown by this provider
 *   as local midnight (`beginReceiveDate: "2022-02-25T00:00:00"` on the sibling Export Booking API [doc]), so the date
 *   part is the day itself.
 * - `outTime` → `fullOutAt`, `chassis` → `fullOutChassisNumber` (only with an `outTime`: it is the chassis at
 *   gate-out [doc]), `emptyReturnTime` → `emptyReturnedAt`, `yardBlock` → `locationAtTerminal` (block only).
 * - Not provided, left null / empty: fees (no fee or demurrage field), appointment, discharge time (`shipmentAction`
 *   `UV` says the box was unloaded, with no time: nothing is invented), off-dock.
 * - The object's `terminal` is not checked against the facility asked about: the API is port-wide and answers for
 *   the terminal that holds the box.
 * - Rate limits: none documented. Batches are sent one after another; a 429, 5xx, timeout or refused key stops the
 *   rest of the batch (they would fail the same way) and answers them with the same failure. `Retry-After` is logged.
 */
import { z } from "zod";
import type { TerminalHold } from "../../../db/schema";
import { toIsoSeconds } from "../../../lib/clock";
import { findTerminalByCode } from "../../../reference/locations";
import { createTokenBroker, type TokenBroker } from "../auth";
import { type SubscriptionCallAnswer, sendSubscriptionCall } from "../subscription-call";
import { type CalendarDate, instantMs, localDateOf, localMidnightIso, parseIsoWallClock } from "../timestamps";
import type { SourceContext, TerminalObservation, TerminalPollResult, TerminalQuery, TerminalSource } from "../types";
import type { TerminalProviderConfig, TerminalSourceDeps } from "./config";
import { sendTerminalRequest } from "./http";

/**
 * Most `{equipmentId, referenceId}` pairs one `POST /import-availability` takes
 * (docs/terminals.md §Port of Virginia API [doc]).
 */
export const PORT_OF_VIRGINIA_BULK_LIMIT = 100;
/** Timeout of one request, ms (no figure documented; as DCSA's, a slow upstream is retried on the next poll). */
export const PORT_OF_VIRGINIA_TIMEOUT_MS = 15_000;
/** Zone of every Port of Virginia facility (Norfolk, Portsmouth, Newport News, Front Royal, Richmond: Virginia). */
export const PORT_OF_VIRGINIA_TIME_ZONE = "America/New_York";

/**
 * What this source really provides at a terminal it serves, as the terminal `provided_data` flags of
 * `GET /v2/terminals` (src/terminals/provided-data.ts, docs/api.md §Terminal resource): LFD (`freeTimeExpiration`),
 * full out (`outTime`), availability (`shipmentStatus`), holds, yard location (`yardBlock`) and the chassis at
 * gate-out; no fees and no appointment. It also reports the empty return (`emptyReturnTime`), which ocean terminals'
 * flags do not list.
 */
export const PORT_OF_VIRGINIA_PROVIDED_DATA = {
  pickup_lfd: true,
  pod_full_out_at: true,
  available_for_pickup: true,
  fees_at_pod_terminal: false,
  holds_at_pod_terminal: true,
  pickup_appointment_at: false,
  location_at_pod_terminal: true,
  pod_full_out_chassis_number: true,
} as const satisfies Record<string, boolean>;

/** `<field>_notes` for {@link PORT_OF_VIRGINIA_PROVIDED_DATA} (same keys): where each value comes from or why it is absent. */
export const PORT_OF_VIRGINIA_PROVIDED_DATA_NOTES = {
  pickup_lfd: "freeTimeExpiration: its date, as local midnight (America/New_York).",
  pod_full_out_at: "outTime (Eastern wall clock, converted to UTC).",
  available_for_pickup: "shipmentStatus: Available, or not available for any other value.",
  fees_at_pod_terminal: "Not in the Port of Virginia Import Availability API.",
  holds_at_pod_terminal: "holds[]: active holds; the item format is not documented and is read leniently.",
  pickup_appointment_at: "Not in the Port of Virginia Import Availability API.",
  location_at_pod_terminal: "yardBlock (block only).",
  pod_full_out_chassis_number: "chassis, with a gate-out.",
} as const satisfies Record<keyof typeof PORT_OF_VIRGINIA_PROVIDED_DATA, string>;

/** Why a poll failed without an answer about the box (`TerminalPollResult` `temporary_failure` reasons). */
export type PortOfVirginiaFailureReason =
  | "terminal_unreachable"
  | "terminal_credentials_rejected"
  | "unrecognized_response"
  /**
   * The box has no bill of lading: this API cannot be asked by container number alone
   * (docs/terminals.md §Port of Virginia API).
   */
  | "terminal_bill_of_lading_required";

const nullableText = z
  .union([z.string(), z.number()])
  .nullish()
  .transform((v) => (v === null || v === undefined ? null : String(v).trim() || null));

/**
 * The documented import availability object (docs/terminals.md §Port of Virginia fields); unknown fields are ignored.
 */
const availabilitySchema = z.object({
  container: z.string(),
  billOfLading: nullableText,
  terminal: nullableText,
  shipmentStatus: nullableText,
  shipmentAction: nullableText,
  yardBlock: nullableText,
  holds: z.array(z.unknown()).nullish(),
  freeTimeExpiration: nullableText,
  chassis: nullableText,
  outTime: nullableText,
  emptyReturnTime: nullableText,
});

/** The import availability object as this adapter reads it. */
export type PortOfVirginiaAvailability = z.infer<typeof availabilitySchema>;

const wrapperSchema = z.object({
  equipmentId: z.string(),
  referenceId: z.string().nullish(),
  data: z.unknown().optional(),
  message: z.unknown().optional(),
});

// ---------------------------------------------------------------------------------------------------------------
// Time

/** A parsed provider time: the instant, and the local calendar date in the terminal's zone. */
interface ProviderTime {
  ms: number;
  /** `[year, month (1–12), day]` of the local date. */
  localDate: CalendarDate;
}

/**
 * Reads a Port of Virginia timestamp (`2022-02-15T18:16:13.973`, no offset: the terminal's wall clock; with `Z` or an
 * offset: that instant), to the second (fractions are dropped: the wire format has second precision). Null for null or
 * anything that is not such a timestamp (src/tracking/sources/timestamps.ts).
 */
export function parsePortOfVirginiaTime(value: string | null, timeZone: string): ProviderTime | null {
  const wall = value === null ? null : parseIsoWallClock(value);
  if (!wall) return null;
  return { ms: Math.floor(instantMs(wall, timeZone) / 1000) * 1000, localDate: localDateOf(wall, timeZone) };
}

// ---------------------------------------------------------------------------------------------------------------
// Mapping

const RELEASED = /\b(RELEASED?|INACTIVE|CLEARED|REMOVED|LIFTED|CANCEL+ED)\b/i;

/** The hold name (docs/api.md §Holds) for a provider code and text, by keywords; `other` when none matches. */
function holdName(text: string): TerminalHold["name"] {
  const t = text.toUpperCase();
  if (/VACIS|X-?RAY|\bNII\b/.test(t)) return "VACIS";
  if (/USDA|APHIS|AGRICULTUR/.test(t)) return "USDA";
  if (/CUSTOM|\bCBP\b|\bCUS\b|\bFDA\b/.test(t)) return "customs";
  if (/FREIGHT|\bFRT\b|\bLINE\b|CARRIER|\bSSL?\b/.test(t)) return "freight";
  if (/\bTMF\b/.test(t)) return "TMF";
  return "other";
}

const firstText = (item: Record<string, unknown>, keys: readonly string[]): string | null => {
  for (const key of keys) {
    const v = item[key];
    if (typeof v === "string" && v.trim()) return v.trim();
  }
  return null;
};

/**
 * One `holds[]` item as an active `terminal_hold`, or null for a released one or an item with no text at all.
 * The item shape is undocumented (see the module docstring): strings and objects are both read.
 */
export function mapPortOfVirginiaHold(item: unknown): TerminalHold | null {
  if (typeof item === "string") {
    const text = item.trim();
    return text ? { name: holdName(text), status: "hold", description: text } : null;
  }
  if (typeof item !== "object" || item === null || Array.isArray(item)) return null;
  const record = item as Record<string, unknown>;
  const code = firstText(record, ["type", "holdType", "code", "holdCode", "name", "id"]);
  const description = firstText(record, ["description", "desc", "reason", "holdDescription"]);
  const status = firstText(record, ["status", "holdStatus", "state"]);
  if (status && RELEASED.test(status)) return null;
  if (record.active === false || record.isActive === false) return null;
  if (!code && !description) return null;
  return {
    name: holdName(`${code ?? ""} ${description ?? ""}`),
    status: status && /PEND/i.test(status) ? "pending" : "hold",
    description: description ?? code,
  };
}

/**
 * Maps one import availability object to a terminal observation (the module docstring has the rules). `timeZone` is
 * the terminal's zone; `checkedAtMs` the poll's time.
 */
export function mapPortOfVirginiaAvailability(
  data: PortOfVirginiaAvailability,
  timeZone: string,
  checkedAtMs: number,
): TerminalObservation {
  const status = data.shipmentStatus;
  const lfd = parsePortOfVirginiaTime(data.freeTimeExpiration, timeZone);
  const out = parsePortOfVirginiaTime(data.outTime, timeZone);
  const empty = parsePortOfVirginiaTime(data.emptyReturnTime, timeZone);
  const holds: TerminalHold[] = [];
  for (const item of data.holds ?? []) {
    const hold = mapPortOfVirginiaHold(item);
    if (hold) holds.push(hold);
  }
  return {
    checkedAt: toIsoSeconds(checkedAtMs),
    availabilityKnown: status !== null,
    availableForPickup: status === null ? null : status.toLowerCase() === "available",
    holds,
    fees: [],
    pickupLfd: lfd ? localMidnightIso(lfd.localDate, timeZone) : null,
    pickupAppointmentAt: null,
    locationAtTerminal: data.yardBlock,
    dischargedAt: null,
    fullOutAt: out ? toIsoSeconds(out.ms) : null,
    fullOutChassisNumber: out ? data.chassis : null,
    offDock: false,
    emptyReturnedAt: empty ? toIsoSeconds(empty.ms) : null,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// HTTP

const failure = (reason: PortOfVirginiaFailureReason): TerminalPollResult => ({ kind: "temporary_failure", reason });

/** Normalised container number: the key of a batch's answers. */
const boxKey = (containerNumber: string) => containerNumber.trim().toUpperCase();

type ChunkOutcome =
  | { kind: "answers"; wrappers: z.infer<typeof wrapperSchema>[] }
  | { kind: "failed"; reason: PortOfVirginiaFailureReason };

/**
 * Creates the Port of Virginia terminal source for the facilities of `config` (our facility code → the provider's
 * terminal code, e.g. `{"L005":"NIT","N195":"VIG"}`). `poll` asks about one box, `pollBatch` about many at one
 * facility in ⌈n / 100⌉ `POST {baseUrl}/import-availability` requests; both go through `ctx.fetch` only, with
 * `config.auth` applied (`authorizedFetch`; an OAuth form would use `deps.tokens`, the shared token cache).
 *
 * Outcomes per box: `found` with the mapped observation ({@link mapPortOfVirginiaAvailability}); `not_found` for a
 * wrapper with `data: null`; `temporary_failure` with `terminal_credentials_rejected` (401/403, or the token endpoint
 * refusing the client), `terminal_unreachable` (network error, timeout, 408, 429, 5xx, token endpoint unreachable),
 * `unrecognized_response` (other statuses, a body that is not a list of wrappers, a wrapper for a box not asked
 * about or an object that is not the documented one, a box missing from the answer) or
 * `terminal_bill_of_lading_required` (no BL to ask with). Never throws; logs name the provider, the origin and the
 * status, never the key or a body.
 */
export function createPortOfVirginiaSource(config: TerminalProviderConfig, deps: TerminalSourceDeps): TerminalSource {
  const facilities = new Map<string, string>();
  for (const [ours, theirs] of Object.entries(config.facilities)) facilities.set(ours.trim().toUpperCase(), theirs);
  const tokens: TokenBroker = deps.tokens ?? createTokenBroker();
  const endpoint = `${config.baseUrl.replace(/\/+$/, "")}/import-availability`;
  let origin = endpoint;
  try {
    origin = new URL(endpoint).origin;
  } catch {
    // Reported on the first request: fetch rejects the URL and the poll is `terminal_unreachable`.
  }
  const label = "Port of Virginia";

  const sendChunk = async (chunk: readonly TerminalQuery[], ctx: SourceContext): Promise<ChunkOutcome> => {
    const body = JSON.stringify(
      chunk.map((q) => ({ equipmentId: boxKey(q.containerNumber), referenceId: (q.billOfLadingNumber ?? "").trim() })),
    );
    const sent = await sendTerminalRequest(
      {
        url: endpoint,
        method: "POST",
        headers: new Headers({ "Content-Type": "application/json", Accept: "application/json" }),
        body,
        timeoutMs: PORT_OF_VIRGINIA_TIMEOUT_MS,
        auth: config.auth ? { credentials: config.auth, tokens } : null,
        label,
        origin,
        credentialsHint: ": check the TERMINAL_SOURCES API key",
        unexpectedStatusHint: " to a bulk import availability request",
      },
      ctx,
    );
    if (sent.kind === "failed") return sent;
    const text = sent.body;
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      console.warn(`${label}: ${origin} answered with a body that is not JSON`);
      return { kind: "failed", reason: "unrecognized_response" };
    }
    const parsed = z.array(wrapperSchema).safeParse(json);
    if (!parsed.success) {
      console.warn(`${label}: ${origin} answered with JSON that is not a list of import availability wrappers`);
      return { kind: "failed", reason: "unrecognized_response" };
    }
    return { kind: "answers", wrappers: parsed.data };
  };

  /** The answers of one chunk, per box. */
  const readAnswers = (
    chunk: readonly TerminalQuery[],
    wrappers: z.infer<typeof wrapperSchema>[],
    ctx: SourceContext,
    into: Map<string, TerminalPollResult>,
  ) => {
    const asked = new Map(chunk.map((q) => [boxKey(q.containerNumber), q]));
    let notFound = 0;
    let unrecognized = 0;
    for (const wrapper of wrappers) {
      const key = boxKey(wrapper.equipmentId);
      const query = asked.get(key);
      if (!query) {
        unrecognized += 1;
        continue;
      }
      if (wrapper.data === null || wrapper.data === undefined) {
        into.set(key, { kind: "not_found" });
        notFound += 1;
        continue;
      }
      const data = availabilitySchema.safeParse(wrapper.data);
      if (!data.success || boxKey(data.data.container) !== key) {
        into.set(key, failure("unrecognized_response"));
        unrecognized += 1;
        continue;
      }
      const timeZone = findTerminalByCode(query.facilityCode)?.timeZone ?? PORT_OF_VIRGINIA_TIME_ZONE;
      into.set(key, { kind: "found", observation: mapPortOfVirginiaAvailability(data.data, timeZone, ctx.nowMs) });
    }
    for (const key of asked.keys()) {
      if (!into.has(key)) {
        into.set(key, failure("unrecognized_response"));
        unrecognized += 1;
      }
    }
    if (unrecognized > 0) {
      console.warn(`${label}: ${origin} left ${unrecognized} of ${chunk.length} containers without a usable answer`);
    }
    if (notFound > 0) console.info(`${label}: ${notFound} of ${chunk.length} containers not found`);
  };

  const pollBatch = async (
    queries: readonly TerminalQuery[],
    ctx: SourceContext,
  ): Promise<Map<string, TerminalPollResult>> => {
    const results = new Map<string, TerminalPollResult>();
    const askable: TerminalQuery[] = [];
    const seen = new Set<string>();
    for (const query of queries) {
      const key = boxKey(query.containerNumber);
      if (seen.has(key)) continue;
      seen.add(key);
      if (!query.billOfLadingNumber?.trim()) results.set(key, failure("terminal_bill_of_lading_required"));
      else askable.push(query);
    }
    for (let start = 0; start < askable.length; start += PORT_OF_VIRGINIA_BULK_LIMIT) {
      const chunk = askable.slice(start, start + PORT_OF_VIRGINIA_BULK_LIMIT);
      const outcome = await sendChunk(chunk, ctx);
      if (outcome.kind === "answers") {
        readAnswers(chunk, outcome.wrappers, ctx, results);
        continue;
      }
      // The rest of the batch would meet the same refusal, rate limit or outage: not sent, same answer.
      const stopBatch = outcome.reason !== "unrecognized_response";
      for (const query of stopBatch ? askable.slice(start) : chunk) {
        results.set(boxKey(query.containerNumber), failure(outcome.reason));
      }
      if (stopBatch) break;
    }
    return results;
  };

  return {
    name: "Terminal",
    maxBatchSize: PORT_OF_VIRGINIA_BULK_LIMIT,
    supports: (facilityCode) => facilities.has(facilityCode.trim().toUpperCase()),
    async poll(query, ctx) {
      const results = await pollBatch([query], ctx);
      return results.get(boxKey(query.containerNumber)) ?? failure("unrecognized_response");
    },
    pollBatch,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Subscriptions (push of an availability change, docs/terminals.md §Port of Virginia API)

/** One box to subscribe to: the pair the API knows it by, and where it should push changes. */
export interface PortOfVirginiaSubscriptionRequest {
  containerNumber: string;
  billOfLadingNumber: string;
  /** Our callback endpoint; it carries its own unguessable token (the API documents no signature). */
  callbackUrl: string;
}

/** Outcome of a subscription call; `error` says why in words, never with the key or a body. */
export type PortOfVirginiaSubscriptionOutcome =
  | { kind: "created"; subscriptionId: string }
  | { kind: "deleted" }
  | { kind: "failed"; error: string };

/** The id of a created subscription: `subscriptionID` as on the sibling Event Subscription API, or `subscriptionId`/`id`. */
const createdSubscriptionSchema = z.union([
  z
    .object({ subscriptionID: z.union([z.string().min(1).max(200), z.number()]) })
    .transform((o) => String(o.subscriptionID)),
  z
    .object({ subscriptionId: z.union([z.string().min(1).max(200), z.number()]) })
    .transform((o) => String(o.subscriptionId)),
  z.object({ id: z.union([z.string().min(1).max(200), z.number()]) }).transform((o) => String(o.id)),
]);

function subscriptionCall(
  config: TerminalProviderConfig,
  deps: TerminalSourceDeps,
  url: string,
  init: { method: "POST" | "DELETE"; body?: string },
  ctx: SourceContext,
): Promise<SubscriptionCallAnswer> {
  return sendSubscriptionCall(
    {
      url,
      ...init,
      headers: new Headers({ Accept: "application/json" }),
      timeoutMs: PORT_OF_VIRGINIA_TIMEOUT_MS,
      auth: config.auth ? { credentials: config.auth, tokens: deps.tokens ?? createTokenBroker() } : null,
      label: "Port of Virginia",
    },
    ctx,
  );
}

/**
 * Subscribes to a box's availability changes: `POST {baseUrl}/import-availability/subscriptions` with
 * `{"equipmentId","referenceId","callbackUrl"}` (the request pair of the lookup endpoints and the callback field
 * name of the sibling Event Subscription API; this API's own body is not documented [inf]) and `config.auth`.
 * A 2xx answer with `subscriptionID` (or `subscriptionId` / `id`) is `created`; anything else `failed`. Never throws.
 */
export async function createPortOfVirginiaSubscription(
  config: TerminalProviderConfig,
  request: PortOfVirginiaSubscriptionRequest,
  ctx: SourceContext,
  deps: TerminalSourceDeps = {},
): Promise<PortOfVirginiaSubscriptionOutcome> {
  const body = JSON.stringify({
    equipmentId: boxKey(request.containerNumber),
    referenceId: request.billOfLadingNumber.trim(),
    callbackUrl: request.callbackUrl,
  });
  const url = `${config.baseUrl.replace(/\/+$/, "")}/import-availability/subscriptions`;
  const answer = await subscriptionCall(config, deps, url, { method: "POST", body }, ctx);
  if (answer.kind === "failed") return answer;
  if (answer.status < 200 || answer.status > 299) return { kind: "failed", error: `answered ${answer.status}` };
  let json: unknown;
  try {
    json = JSON.parse(answer.body);
  } catch {
    return { kind: "failed", error: "answered with a body that is not JSON" };
  }
  const parsed = createdSubscriptionSchema.safeParse(json);
  return parsed.success
    ? { kind: "created", subscriptionId: parsed.data }
    : { kind: "failed", error: "answered without a subscription id" };
}

/**
 * Removes a subscription: `DELETE {baseUrl}/import-availability/subscriptions/{id}`. 2xx, or 404 (already gone: the
 * port expires subscriptions a few days after the box leaves, as on its Event Subscription API), is `deleted`;
 * anything else `failed`. Never throws.
 */
export async function deletePortOfVirginiaSubscription(
  config: TerminalProviderConfig,
  subscriptionId: string,
  ctx: SourceContext,
  deps: TerminalSourceDeps = {},
): Promise<PortOfVirginiaSubscriptionOutcome> {
  const url = `${config.baseUrl.replace(/\/+$/, "")}/import-availability/subscriptions/${encodeURIComponent(subscriptionId)}`;
  const answer = await subscriptionCall(config, deps, url, { method: "DELETE" }, ctx);
  if (answer.kind === "failed") return answer;
  if ((answer.status >= 200 && answer.status <= 299) || answer.status === 404) return { kind: "deleted" };
  return { kind: "failed", error: `answered ${answer.status}` };
}
