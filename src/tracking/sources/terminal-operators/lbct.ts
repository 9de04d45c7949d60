/**
 * Long Beach Container Terminal (LBCT, Port of Long Beach: Pier E `WAC8`, Pier F `W183`) as a terminal source
 * (issue 14 adapter 2): its Cargo Search web service, a Navis N4 plugin answering a Navis-style envelope
 * (docs/terminals.md §LBCT).
 *
 * What is documented (Envase's integration notes, docs/terminals.md §LBCT API, §LBCT response) and relied on:
 * - `GET {baseUrl}/{apiKey}/API/LBCTCargoSearchWebService/cargo-numbers/{n1,n2,…}`: the per-customer API key is the
 *   first path segment; container numbers are comma-separated, at most {@link LBCT_MAX_BATCH} per request.
 * - `payload.search-results.not-found-numbers[]` lists the numbers with no match; `payload.containers[]` has one object
 *   per unit visit: `id` (container number), `category` (`IMPRT`), `freight-kind` (`Full`), `visit-state`
 *   (`Departed`; N4: Active / Advised / Departed / Retired), `transit-state` (`Departed`; N4: Advised, Inbound,
 *   EC-In, Yard, EC-Out, Loaded, Departed, Retired), `is-in-yard` (boolean), `time-in` / `time-out` (ISO 8601 with
 *   offset), `bill-of-lading-number`, `discharged` (`"12/04/2021 19:05 (A)"`: US-format local time and an
 *   Actual/Estimated suffix).
 *
 * Assumptions (no LBCT-authored documentation exists in the corpora; the sample Envase shows stops at `discharged`):
 * - Holds, last free day, yard location, availability and the amount owed are read when the container object carries
 *   them under the names of LBCT's own Cargo Search page JSON (`www.lbct.com/CargoSearch/GetMultiCargoSearchJson`,
 *   seen in public integration code: `available` "Yes"/"No", `freeTimeExpiration`, `location`, `owed`,
 *   `listOfFlag[]` of `{holdName, type: "Active"|"Inactive"}`), kebab-cased as every documented API field is:
 *   `available`, `free-time-expiration`, `location`, `owed`, `list-of-flag[]` of `{hold-name, type}`. Absent, they
 *   stay null / empty and {@link LBCT_PROVIDED_DATA} does not claim them.
 * - Hold names (LBCT page): `CUSTOMS_DEFAULT_HOLD` → customs, `FREIGHT_BL_HOLD` → freight, `TMF_CONTAINER_HOLD` →
 *   TMF, a name containing `USDA` → USDA, containing `VACIS` → VACIS, anything else (`CTF_CONTAINER_HOLD`,
 *   `BLOCK_DOWN`, …) → other; the provider's name is kept as the description. `type` "Inactive"/"Released" is a
 *   cleared hold (left out, docs/api.md §Holds); any other value is an active hold.
 * - `owed` is the total the terminal wants for the box (its page sums line demurrage and the extended dwell time fee),
 *   in US dollars (a US terminal; no currency is sent): a `total` fee when above 0.
 * - Yard location: `location` while the box is in the facility (not before discharge, not after departure).
 * - Availability: `available` when sent; otherwise a box not yet in the facility (`Advised`, `Inbound`) or gone
 *   (`Departed`, `Retired`) is not available (known), and a box in the yard is available only when the hold list is
 *   sent and has no active hold (docs/terminals.md §LBCT mapping's proxy); without the hold list it is unknown.
 * - Times without an offset (`discharged`, a bare date LFD) are the terminal's local time: the time zone of our
 *   terminal (src/reference/locations.ts), `America/Los_Angeles` when the facility is unknown there. The LFD is local
 *   midnight of its day, in UTC (docs/api.md §Timestamps and time zones).
 * - `discharged` is a discharge unless marked `(E)` (estimated) or only a date (the sample's value ends in `(A`,
 *   actual; a value without the suffix is taken as actual, the field's name being past tense); without a
 *   `discharged` value an import's `time-in` (the
 *   facility visit's start, equal to the discharge in the sample) stands in. `time-out` is the full-out time once the
 *   visit has `Departed`.
 * - A number can match several unit visits (an earlier call, the later empty return): the import visit
 *   (`category` IMPRT, not empty) with the booked BL when given, else the latest `time-in`, is the box's; a number
 *   whose visits are none an import's is `not_found` here. The empty return is a later visit of the same number with
 *   an empty freight kind (`MTY`/`Empty`, N4 category `STRGE`) whose `time-in` follows the import visit's `time-out`
 *   (docs/terminals.md §LBCT mapping [inf]): its `time-in` is `emptyReturnedAt`. An empty returned elsewhere is not
 *   seen here.
 * - HTTP: 401/403 → the key is refused; 404 of the endpoint itself (a wrong base URL or key path) → unrecognized;
 *   429, 408, 5xx, network errors and timeouts → unreachable. No rate limit is documented: batches go one after the
 *   other, and the first batch that fails this way stops the rest of the poll (they share the failure) so a
 *   struggling or refusing terminal is not asked again at once.
 *
 * Secrets: the API key is in the URL path, so no URL is ever logged (only the origin and the HTTP status).
 */
import type { TerminalFee, TerminalHold } from "../../../db/schema";
import { toIsoSeconds } from "../../../lib/clock";
import { findPortByLocode, findTerminalByCode } from "../../../reference/locations";
import { instantMs, lastFreeDayMs, parseIsoWallClock, parseUsWallClock, type WallClock } from "../timestamps";
import type { SourceContext, TerminalObservation, TerminalPollResult, TerminalQuery, TerminalSource } from "../types";
import type { TerminalProviderConfig, TerminalSourceDeps } from "./config";
import { sendTerminalRequest } from "./http";

/**
 * Most container numbers one Cargo Search request may carry (Envase's documented limit, docs/terminals.md §LBCT API).
 */
export const LBCT_MAX_BATCH = 20;
/** Timeout of one Cargo Search request, ms (the same budget as a carrier page, src/tracking/sources/dcsa/config.ts). */
export const LBCT_TIMEOUT_MS = 15_000;
/** Time zone of LBCT's local times when our reference data does not know the facility (Port of Long Beach). */
export const LBCT_DEFAULT_TIME_ZONE = "America/Los_Angeles";
/** Currency of `owed`: LBCT sends none; a US terminal bills in US dollars [inf]. */
export const LBCT_CURRENCY = "USD";

/**
 * What the LBCT source really provides, as the flags of a terminal's `provided_data` (docs/api.md §Terminal resource;
 * src/terminals/ provided-data.ts): only what the documented part of the payload carries. `available_for_pickup` is
 * derived from the visit state (see the module docstring); holds, LFD, fees and yard location are read when sent but
 * their names are unconfirmed, so they are not claimed; LBCT's payload shows no appointment and no chassis.
 */
export const LBCT_PROVIDED_DATA = {
  pickup_lfd: false,
  pod_full_out_at: true,
  available_for_pickup: true,
  fees_at_pod_terminal: false,
  holds_at_pod_terminal: false,
  pickup_appointment_at: false,
  location_at_pod_terminal: false,
  pod_full_out_chassis_number: false,
} as const satisfies Record<string, boolean>;

/** `<field>_notes` for {@link LBCT_PROVIDED_DATA} (same keys), saying where each value comes from or why it is absent. */
export const LBCT_PROVIDED_DATA_NOTES = {
  pickup_lfd: "Read from free-time-expiration when LBCT sends it (field name unconfirmed).",
  pod_full_out_at: "time-out of a Departed visit.",
  available_for_pickup:
    "available when sent; otherwise derived from the visit state (not yet in the yard or departed: not available).",
  fees_at_pod_terminal: "Read from owed when LBCT sends it (field name unconfirmed); USD.",
  holds_at_pod_terminal: "Read from list-of-flag when LBCT sends it (field name unconfirmed).",
  pickup_appointment_at: "Not in LBCT's Cargo Search payload.",
  location_at_pod_terminal: "Read from location when LBCT sends it (field name unconfirmed).",
  pod_full_out_chassis_number: "Not in LBCT's Cargo Search payload.",
} as const satisfies Record<keyof typeof LBCT_PROVIDED_DATA, string>;

const SEARCH_PATH = "API/LBCTCargoSearchWebService/cargo-numbers";
const LABEL = "LBCT";

type Failure = Extract<TerminalPollResult, { kind: "temporary_failure" }>;
const unrecognized: Failure = { kind: "temporary_failure", reason: "unrecognized_response" };
const credentialsRejected: Failure = { kind: "temporary_failure", reason: "terminal_credentials_rejected" };

/**
 * One LBCT unit visit (a `payload.containers[]` item, kebab-case keys as docs/terminals.md §LBCT response lists them)
 * as far as it is read; every field may be absent or of another type, and is checked where it is read.
 */
export type LbctContainer = Record<string, unknown>;

/** What one Cargo Search request gave: the unit visits and not-found numbers, or why there is nothing. */
type SearchOutcome = { kind: "ok"; containers: LbctContainer[]; notFound: Set<string> } | Failure;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const text = (value: unknown): string | null =>
  typeof value === "string" && value.trim() !== "" ? value.trim() : null;

/** Container numbers and facility codes as compared: trimmed, upper case. */
const upperTrim = (value: string) => value.trim().toUpperCase();

/** One GET of the Cargo Search for `numbers` (at most {@link LBCT_MAX_BATCH}). Never throws. */
async function search(
  apiKey: string,
  baseUrl: string,
  numbers: string[],
  ctx: SourceContext,
  timeoutMs: number,
): Promise<SearchOutcome> {
  const base = baseUrl.replace(/\/+$/, "");
  let origin: string;
  try {
    origin = new URL(base).origin;
  } catch {
    console.error(`${LABEL}: the configured baseUrl is not a URL`);
    return unrecognized;
  }
  let url: string;
  try {
    url = `${base}/${encodeURIComponent(apiKey)}/${SEARCH_PATH}/${numbers.map(encodeURIComponent).join(",")}`;
  } catch {
    // encodeURIComponent throws URIError on a lone surrogate: a key or number that cannot be written into a URL.
    console.error(`${LABEL}: the apiKey or a container number cannot be written into a URL`);
    return unrecognized;
  }
  const sent = await sendTerminalRequest(
    {
      url,
      method: "GET",
      headers: new Headers({ Accept: "application/json" }),
      timeoutMs,
      auth: null,
      label: LABEL,
      origin,
      credentialsHint: ": check the apiKey of TERMINAL_SOURCES.lbct",
      unexpectedStatusHint: " to the cargo search: check baseUrl and apiKey of TERMINAL_SOURCES.lbct",
    },
    ctx,
  );
  if (sent.kind === "failed") return { kind: "temporary_failure", reason: sent.reason };
  const body = sent.body;
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    console.warn(`${LABEL}: ${origin} answered with a body that is not JSON`);
    return unrecognized;
  }
  const payload = isRecord(json) ? json.payload : undefined;
  if (!isRecord(payload) || !Array.isArray(payload.containers)) {
    console.warn(`${LABEL}: ${origin} answered without payload.containers`);
    return unrecognized;
  }
  const results = payload["search-results"];
  const notFoundList = isRecord(results) ? results["not-found-numbers"] : undefined;
  const notFound = new Set<string>();
  if (Array.isArray(notFoundList)) {
    for (const n of notFoundList) if (typeof n === "string") notFound.add(upperTrim(n));
  }
  return { kind: "ok", containers: payload.containers.filter(isRecord), notFound };
}

// ---------------------------------------------------------------------------------------------------------------
// Time

/** A Cargo Search time as written: ISO 8601 (`time-in`, `time-out`) or US month-first (`discharged`). */
function wallClockOf(value: unknown): { wall: WallClock; kind: "A" | "E" | null } | null {
  const s = text(value);
  if (!s) return null;
  const iso = parseIsoWallClock(s);
  if (iso) return { wall: iso, kind: null };
  const us = parseUsWallClock(s);
  return us ? { wall: us.wall, kind: us.marker } : null;
}

/**
 * A local or offset time as UTC ISO (src/tracking/sources/timestamps.ts); null when unparsable. `kind` is the
 * `(A)`/`(E)` suffix of a US-format time. A local time is read to the minute, as LBCT writes its own (`19:05`).
 */
function parseTime(
  value: unknown,
  timeZone: string,
): { iso: string; kind: "A" | "E" | null; dateOnly: boolean } | null {
  const read = wallClockOf(value);
  if (!read) return null;
  const { wall, kind } = read;
  const toMinute = wall.offsetMinutes === null ? { ...wall, fieldsMs: wall.fieldsMs - (wall.fieldsMs % 60_000) } : wall;
  return { iso: toIsoSeconds(instantMs(toMinute, timeZone)), kind, dateOnly: !wall.hasTime };
}

/**
 * The LFD as local midnight of its day in UTC (docs/api.md §Timestamps and time zones): a date, a local time (its
 * date), or a time with an offset (its local date at the terminal).
 */
function parseLfd(value: unknown, timeZone: string): string | null {
  const read = wallClockOf(value);
  return read ? toIsoSeconds(lastFreeDayMs(read.wall, timeZone)) : null;
}

// ---------------------------------------------------------------------------------------------------------------
// Mapping

const RELEASED_HOLD_TYPES = new Set(["INACTIVE", "RELEASED", "RELEASE", "CLEARED", "NONE"]);

/** LBCT's hold name → our hold name (module docstring). */
function holdName(name: string): TerminalHold["name"] {
  const n = name.toUpperCase();
  if (n.startsWith("CUSTOMS")) return "customs";
  if (n.startsWith("FREIGHT")) return "freight";
  if (n.startsWith("TMF")) return "TMF";
  if (n.includes("USDA")) return "USDA";
  if (n.includes("VACIS")) return "VACIS";
  return "other";
}

/** Active holds of `list-of-flag`, or null when the container object has no hold list. */
function mapHolds(flags: unknown): TerminalHold[] | null {
  if (!Array.isArray(flags)) return null;
  const holds: TerminalHold[] = [];
  for (const flag of flags) {
    if (!isRecord(flag)) continue;
    const name = text(flag["hold-name"]);
    if (!name) continue;
    const type = text(flag.type)?.toUpperCase() ?? "ACTIVE";
    if (RELEASED_HOLD_TYPES.has(type)) continue;
    holds.push({ name: holdName(name), status: "hold", description: name });
  }
  return holds;
}

/** `owed` as a `total` fee in USD when above 0; a number or a money string (`"$1,234.50"`). */
function mapFees(owed: unknown): TerminalFee[] {
  let amount: number | null = null;
  if (typeof owed === "number") amount = owed;
  else if (typeof owed === "string" && /^\s*\$?\s*[\d,]+(\.\d+)?\s*$/.test(owed)) {
    amount = Number(owed.replace(/[$,\s]/g, ""));
  }
  if (amount === null || !Number.isFinite(amount) || amount <= 0) return [];
  return [{ type: "total", amount: Math.round(amount * 100) / 100, currency_code: LBCT_CURRENCY }];
}

/** `available` values understood as text ("Yes"/"No" on LBCT's page; "true"/"false" as `watch` is sent). */
const AVAILABLE_TEXT = new Set(["yes", "no", "true", "false"]);

const lower = (value: unknown) => text(value)?.toLowerCase() ?? null;

/** Whether a unit visit is the import of a full box (category IMPRT, freight kind not empty). */
function isImportVisit(c: LbctContainer): boolean {
  const kind = lower(c["freight-kind"]);
  return lower(c.category) === "imprt" && kind !== "mty" && kind !== "empty";
}

/** The box's import visit among `visits` (module docstring), or null. */
function pickVisit(visits: LbctContainer[], billOfLadingNumber: string | null | undefined): LbctContainer | null {
  const imports = visits.filter(isImportVisit);
  if (imports.length === 0) return null;
  const bl = billOfLadingNumber ? upperTrim(billOfLadingNumber) : null;
  const byBl = bl ? imports.filter((c) => text(c["bill-of-lading-number"])?.toUpperCase() === bl) : [];
  const pool = byBl.length > 0 ? byBl : imports;
  const timeIn = (c: LbctContainer) => {
    const ms = Date.parse(text(c["time-in"]) ?? "");
    return Number.isFinite(ms) ? ms : Number.NEGATIVE_INFINITY;
  };
  return pool.reduce((best, c) => (timeIn(c) > timeIn(best) ? c : best));
}

/** Time zone of our facility (terminal, else its port), else {@link LBCT_DEFAULT_TIME_ZONE}. */
function timeZoneOf(facilityCode: string): string {
  const terminal = findTerminalByCode(facilityCode);
  return terminal?.timeZone ?? findPortByLocode(terminal?.portLocode)?.timeZone ?? LBCT_DEFAULT_TIME_ZONE;
}

/**
 * Maps one LBCT import visit `c` to a {@link TerminalObservation} (module docstring for every rule), checked at
 * `nowMs`, local times read in `timeZone`; `otherVisits` (the number's other unit visits) give the empty return. Pure.
 */
export function mapLbctContainer(
  c: LbctContainer,
  timeZone: string,
  nowMs: number,
  otherVisits: readonly LbctContainer[] = [],
): TerminalObservation {
  const visitState = lower(c["visit-state"]);
  const transitState = lower(c["transit-state"]);
  const departed =
    visitState === "departed" || visitState === "retired" || transitState === "departed" || transitState === "retired";
  const notYetIn = !departed && (visitState === "advised" || transitState === "advised" || transitState === "inbound");
  const holdList = mapHolds(c["list-of-flag"]);
  const holds = holdList ?? [];

  let availabilityKnown = false;
  let availableForPickup: boolean | null = null;
  const available = c.available;
  const availableText = lower(available);
  if (typeof available === "boolean" || (availableText !== null && AVAILABLE_TEXT.has(availableText))) {
    availabilityKnown = true;
    availableForPickup = available === true || availableText === "yes" || availableText === "true";
  } else if (departed || notYetIn) {
    availabilityKnown = true;
    availableForPickup = false;
  } else if (holdList !== null && transitState === "yard" && c["is-in-yard"] === true) {
    availabilityKnown = true;
    availableForPickup = holds.length === 0;
  }

  const discharged = parseTime(c.discharged, timeZone);
  let dischargedAt: string | null = null;
  if (discharged) {
    dischargedAt = discharged.kind === "E" || discharged.dateOnly ? null : discharged.iso;
  } else if (!notYetIn) {
    const timeIn = parseTime(c["time-in"], timeZone);
    dischargedAt = timeIn && !timeIn.dateOnly ? timeIn.iso : null;
  }
  const timeOut = departed ? parseTime(c["time-out"], timeZone) : null;
  const fullOutAt = timeOut && !timeOut.dateOnly ? timeOut.iso : null;
  let emptyReturnedAt: string | null = null;
  if (fullOutAt !== null) {
    for (const v of otherVisits) {
      const kind = lower(v["freight-kind"]);
      if (v === c || (kind !== "mty" && kind !== "empty")) continue;
      const timeIn = parseTime(v["time-in"], timeZone);
      if (!timeIn || timeIn.dateOnly || timeIn.iso <= fullOutAt) continue;
      if (emptyReturnedAt === null || timeIn.iso < emptyReturnedAt) emptyReturnedAt = timeIn.iso;
    }
  }

  return {
    checkedAt: toIsoSeconds(nowMs),
    availabilityKnown,
    availableForPickup,
    holds,
    fees: mapFees(c.owed),
    pickupLfd: parseLfd(c["free-time-expiration"], timeZone),
    pickupAppointmentAt: null,
    locationAtTerminal: departed || notYetIn ? null : text(c.location),
    dischargedAt,
    fullOutAt,
    fullOutChassisNumber: null,
    offDock: false,
    emptyReturnedAt,
  };
}

/**
 * The LBCT Cargo Search terminal source (module docstring: endpoint, assumptions, mapping, errors). `supports` is true
 * iff our facility code is one of `config.facilities` (LBCT has one API for its piers, so the provider's facility
 * code is not sent). `config.auth` must be `{"type":"api_key","apiKey"}` (the key goes into the URL path, never a
 * header); any other form answers every poll `terminal_credentials_rejected`. `pollBatch` asks for at most
 * {@link LBCT_MAX_BATCH} numbers per request, one request after the other; `poll` is a batch of one. Outcomes per box:
 * `found` with the mapped import visit; `not_found` when LBCT lists the number as not found or knows no import visit
 * of it; `temporary_failure` `terminal_credentials_rejected` (401/403), `terminal_unreachable` (429, 408, 5xx,
 * network, timeout) or `unrecognized_response` (another status, a body that is not the envelope, a number missing from
 * both lists). Never throws; never logs the URL (it holds the key). `deps` is unused: LBCT has no token.
 * `options.timeoutMs` bounds each request (default {@link LBCT_TIMEOUT_MS}).
 */
export function createLbctSource(
  config: TerminalProviderConfig,
  _deps: TerminalSourceDeps = {},
  options: { timeoutMs?: number } = {},
): TerminalSource {
  const timeoutMs = options.timeoutMs ?? LBCT_TIMEOUT_MS;
  const facilities = new Set(Object.keys(config.facilities).map(upperTrim));
  const apiKey = config.auth?.type === "api_key" ? config.auth.apiKey : null;

  const pollBatch = async (
    queries: readonly TerminalQuery[],
    ctx: SourceContext,
  ): Promise<Map<string, TerminalPollResult>> => {
    const out = new Map<string, TerminalPollResult>();
    const byNumber = new Map<string, TerminalQuery[]>();
    for (const q of queries) {
      const n = upperTrim(q.containerNumber);
      byNumber.set(n, [...(byNumber.get(n) ?? []), q]);
    }
    const numbers = [...byNumber.keys()];
    const answer = (number: string, result: TerminalPollResult) => {
      for (const q of byNumber.get(number) ?? []) out.set(q.containerNumber, result);
    };
    if (apiKey === null) {
      console.error(`${LABEL}: TERMINAL_SOURCES.lbct needs auth {"type":"api_key","apiKey":…}`);
      for (const n of numbers) answer(n, credentialsRejected);
      return out;
    }
    for (let i = 0; i < numbers.length; i += LBCT_MAX_BATCH) {
      const chunk = numbers.slice(i, i + LBCT_MAX_BATCH);
      const outcome = await search(apiKey, config.baseUrl, chunk, ctx, timeoutMs);
      if (outcome.kind !== "ok") {
        for (const n of chunk) answer(n, outcome);
        if (outcome.reason !== "unrecognized_response") {
          for (const n of numbers.slice(i + LBCT_MAX_BATCH)) answer(n, outcome);
          break;
        }
        continue;
      }
      const visits = new Map<string, LbctContainer[]>();
      for (const c of outcome.containers) {
        const id = text(c.id);
        if (!id) continue;
        const n = upperTrim(id);
        visits.set(n, [...(visits.get(n) ?? []), c]);
      }
      for (const n of chunk) {
        const mine = visits.get(n);
        if (mine) {
          for (const q of byNumber.get(n) ?? []) {
            const visit = pickVisit(mine, q.billOfLadingNumber);
            out.set(
              q.containerNumber,
              visit
                ? { kind: "found", observation: mapLbctContainer(visit, timeZoneOf(q.facilityCode), ctx.nowMs, mine) }
                : { kind: "not_found" },
            );
          }
        } else {
          answer(n, outcome.notFound.has(n) ? { kind: "not_found" } : unrecognized);
        }
      }
    }
    return out;
  };

  return {
    name: "Terminal",
    maxBatchSize: LBCT_MAX_BATCH,
    supports: (facilityCode) => facilities.has(upperTrim(facilityCode)),
    pollBatch,
    async poll(query, ctx) {
      const results = await pollBatch([query], ctx);
      return results.get(query.containerNumber) ?? unrecognized;
    },
  };
}
