/**
 * APM Terminals "APMT Track and Trace - Import Availability" as a terminal source (issue 14 adapter 1;
 * docs/terminals.md §APM Terminals): one API for every APM terminal it lists, `GET {baseUrl}/import-availability
 * ?assetId=<container,container,…>&facilityCode=<UN/LOCODE>` with an OAuth 2.0 client-credentials bearer token
 * (§APMT authentication; the shared token cache of src/tracking/sources/auth.ts, one for carriers and terminals).
 *
 * What the documentation does not settle, and what this adapter assumes (each also said where it is applied):
 * - Response property names: those of §APMT response fields (`containerId`, `readyForDelivery`, `containerHolds`,
 *   `storagePaidThroughDate`, `demurrageOwed`, `…DateTimeLocal`), with the older PascalCase variant
 *   §APMT response fields also names (`ContainerId`, `ReadyForDelivery`, `Holds`, `Freight`, `Customs`,
 *   `DischargedDate`, `GateOutDate`, `Demurrage`, `AppointmentDate`, `StoragePaidThroughDate`, `YardLocation`) read as
 *   a fallback.
 * - Response shape: a list with one object per asset found (§APMT responses and errors: the spec's `type: array` is
 *   commented out), a single object, or `{"ContainerAvailabilityResults": [...]}` (the PascalCase variant's wrapper)
 *   are all read. A container missing from a 200 answer is unknown to the terminal (`not_found`). A 404 is the spec's
 *   "Bad URL" (a misconfigured `baseUrl`), not an unknown container: `unrecognized_response`.
 * - Most assets per request: APMT states none; {@link APMT_MAX_ASSETS_PER_REQUEST} = 50 is Envase's cap
 *   (§APMT request).
 * - Flags are strings (`"true"`, §APMT response fields sibling convention); `yes`/`no`/`Y`/`N` and JSON booleans are
 *   read too.
 * - Timestamps are local with a UTC offset (`…DateTimeLocal`, §APMT response fields siblings) and converted exactly;
 *   one without an offset is read in the terminal's IANA time zone (reference data), or as UTC when that is unknown
 *   (docs/api.md §Timestamps and time zones).
 * - `containerHolds` is a string of hold names joined by `,`, `;`, `|` or line breaks (§APMT response fields); `""`,
 *   `NONE`, `N/A` mean none. Every hold listed is active (`status: "hold"`); its text is kept as `description`.
 * - `demurrageOwed` is an amount in the terminal's currency, possibly with `$` or an ISO 4217 code. The portal says
 *   "dollar amount" (§APMT response fields): USD at the US terminals; elsewhere the currency is undocumented, so a fee
 *   there is kept only when the value names its currency. Nothing owed (0) is no fee.
 * - `storagePaidThroughDate` is the last free day (§APMT mapping), a date or a date-time: its date in the terminal's
 *   time zone becomes local midnight in UTC, as every LFD here (docs/api.md §Timestamps and time zones:
 *   `2024-07-07T04:00:00Z` for America/New_York).
 * - Empty returns come from the sibling Empty Container Returns API (§APMT empty returns: same servers, token and
 *   parameters; `isContainerReturned`, `gateInDateTimeLocal`), asked at the same facility only about boxes that have
 *   left full, so an empty returned to another facility is not seen. Whether one OAuth app holds both API products is
 *   not documented: a 400/403/404 there leaves `emptyReturnedAt` out and availability is still reported.
 * - Vessel name/ETA and the B/L are read by the API but are not part of a terminal observation.
 */
import type { TerminalFee, TerminalHold } from "../../../db/schema";
import { toIsoSeconds } from "../../../lib/clock";
import { zoneOffsetMs } from "../../../lib/time-zones";
import { findPortByLocode, findTerminalByCode } from "../../../reference/locations";
import { createTokenBroker, type TokenBroker } from "../auth";
import { instantMs, lastFreeDayMs, parseIsoWallClock } from "../timestamps";
import type { SourceContext, TerminalObservation, TerminalPollResult, TerminalQuery, TerminalSource } from "../types";
import type { TerminalProviderConfig, TerminalSourceDeps } from "./config";
import { sendTerminalRequest, type TerminalRequestFailure } from "./http";

/** Path of the Import Availability operation (`getImportAvailabilityByContainerIdOrBlNumber`, §APMT request). */
export const APMT_IMPORT_AVAILABILITY_PATH = "/import-availability";
/**
 * Path of the sibling Empty Container Returns operation (docs/terminals.md §APMT empty returns: same servers, token and
 * `assetId` + `facilityCode` parameters; `isContainerReturned`, `gateInDateTimeLocal`).
 */
export const APMT_EMPTY_RETURNS_PATH = "/empty-container-returns";
/**
 * Most container numbers in one request's `assetId`. APMT documents no maximum; Envase, an integrator, caps its
 * requests at 50 (docs/terminals.md §APMT request), which we follow.
 */
export const APMT_MAX_ASSETS_PER_REQUEST = 50;
/** Timeout of one Import Availability request, ms (as the carriers' DCSA requests). */
export const APMT_TIMEOUT_MS = 15_000;

/** Limits of the APMT source; the defaults suit production, tests shorten them. */
export interface ApmtSourceOptions {
  /** Timeout of each request, ms (default {@link APMT_TIMEOUT_MS}). */
  timeoutMs?: number;
  /** Most assets per request (default {@link APMT_MAX_ASSETS_PER_REQUEST}). */
  maxBatchSize?: number;
  /** Ask Empty Container Returns about boxes that left full (default true). */
  emptyReturns?: boolean;
}

// ---------------------------------------------------------------------------------------------------------------
// Reading one availability entry

type Entry = Record<string, unknown>;

/** The first of `names` that holds a non-empty string (trimmed) or a finite number, as text. */
function text(entry: Entry, ...names: string[]): string | null {
  for (const name of names) {
    const value = entry[name];
    if (typeof value === "string" && value.trim() !== "") return value.trim();
    if (typeof value === "number" && Number.isFinite(value)) return String(value);
  }
  return null;
}

const TRUE_FLAGS = new Set(["true", "yes", "y", "1"]);
const FALSE_FLAGS = new Set(["false", "no", "n", "0"]);

/** A string (`"true"`, `"Yes"`, `"N"`) or boolean flag; null when absent or not a flag. */
function flag(entry: Entry, ...names: string[]): boolean | null {
  for (const name of names) {
    const value = entry[name];
    if (typeof value === "boolean") return value;
    if (typeof value === "string") {
      const v = value.trim().toLowerCase();
      if (TRUE_FLAGS.has(v)) return true;
      if (FALSE_FLAGS.has(v)) return false;
    }
  }
  return null;
}

const NO_HOLDS = new Set(["", "NONE", "N/A", "NA", "NO HOLDS", "-"]);

/**
 * Our hold name for an APMT hold text (docs/api.md §Holds): USDA (agriculture), VACIS (scan), TMF (PierPass traffic
 * mitigation fee), customs (CBP, exam), freight (line / freight), else other (e.g. Miami's `LANDING$`, `NO GENSET`).
 */
export function apmtHoldName(holdText: string): TerminalHold["name"] {
  const t = holdText.toUpperCase();
  if (/\bUSDA\b|\bAPHIS\b|\bAGRI/.test(t)) return "USDA";
  if (/VACIS|X-?RAY/.test(t)) return "VACIS";
  if (/\bTMF\b|PIER ?PASS|TRAFFIC MITIGATION/.test(t)) return "TMF";
  if (/CUSTOM|\bCBP\b|\bCUS\b|\bCSTM?\b|\bEXAM\b/.test(t)) return "customs";
  if (/FREIGHT|\bFRT\b|\bLINE\b|CARRIER|\bSSL\b/.test(t)) return "freight";
  return "other";
}

/** Whether a PascalCase `Freight`/`Customs` status says the box is held (`HOLD`, `NOT RELEASED`, `N`, `false`). */
function isHeldStatus(value: string): boolean {
  const v = value.trim().toUpperCase();
  return /HOLD|NOT ?RELEASED|UNRELEASED/.test(v) || v === "N" || v === "NO" || v === "FALSE";
}

/** Active holds of an entry: the `containerHolds` list (or `Holds`), plus PascalCase `Freight`/`Customs` statuses. */
function holdsOf(entry: Entry): TerminalHold[] {
  const texts: string[] = [];
  for (const name of ["containerHolds", "holds", "Holds"]) {
    const value = entry[name];
    if (typeof value === "string") texts.push(...value.split(/[,;|\r\n]+/));
    else if (Array.isArray(value)) for (const v of value) if (typeof v === "string") texts.push(v);
  }
  const holds: TerminalHold[] = [];
  const seen = new Set<string>();
  for (const raw of texts) {
    const description = raw.trim();
    if (NO_HOLDS.has(description.toUpperCase()) || seen.has(description.toUpperCase())) continue;
    seen.add(description.toUpperCase());
    holds.push({ name: apmtHoldName(description), status: "hold", description });
  }
  for (const [field, name] of [
    ["Freight", "freight"],
    ["Customs", "customs"],
  ] as const) {
    const status = text(entry, field);
    if (status && isHeldStatus(status) && !holds.some((h) => h.name === name)) {
      holds.push({ name, status: "hold", description: `${field}: ${status}` });
    }
  }
  return holds;
}

// ---------------------------------------------------------------------------------------------------------------
// Time

/**
 * A provider date-time as UTC ISO (second precision, `Z`): exact when it states an offset; else local to
 * `timeZone`; else (zone unknown) its wall-clock time as if UTC (docs/api.md §Timestamps and time zones;
 * src/tracking/sources/timestamps.ts). Null when absent or unreadable.
 */
export function apmtInstant(value: string | null, timeZone: string | null): string | null {
  const wall = value === null ? null : parseIsoWallClock(value);
  return wall ? toIsoSeconds(instantMs(wall, timeZone)) : null;
}

/**
 * The last free day from APMT's storage-paid-through date: the terminal-local date it names, as local midnight in
 * UTC (docs/api.md §Timestamps and time zones). A date-time with an offset is first moved to the terminal's zone
 * (`2023-06-09T23:59:00-07:00` at Pier 400 is 9 June). Without a known zone: midnight at the stated offset, else
 * midnight as if UTC (src/tracking/sources/timestamps.ts `lastFreeDayMs`). Null when absent or unreadable.
 */
export function apmtLastFreeDay(value: string | null, timeZone: string | null): string | null {
  const wall = value === null ? null : parseIsoWallClock(value);
  return wall ? toIsoSeconds(lastFreeDayMs(wall, timeZone)) : null;
}

// ---------------------------------------------------------------------------------------------------------------
// Fees

const CURRENCY_CODE = /\b([A-Z]{3})\b/;

/**
 * Demurrage owed as a fee list: `[]` when nothing is owed (0) or the field is absent; one `demurrage` fee otherwise,
 * amount rounded to cents, currency the ISO 4217 code the value names, else USD when it has a `$` or the terminal is
 * in the US (the portal's "dollar amount", §APMT response fields); at a non-US terminal a bare amount has no known
 * currency and is left out (null is returned so the caller can say so).
 */
export function apmtDemurrage(value: string | null, countryCode: string | null): TerminalFee[] | null {
  if (value === null) return [];
  const upper = value.toUpperCase();
  const named = CURRENCY_CODE.exec(upper)?.[1] ?? null;
  const numeric = upper.replace(/[A-Z$€£\s,]/g, "");
  if (!/^\d+(\.\d+)?$/.test(numeric)) return null;
  const amount = Math.round(Number(numeric) * 100) / 100;
  if (amount === 0) return [];
  const currency = named ?? (upper.includes("$") || countryCode === "US" ? "USD" : null);
  if (!currency) return null;
  return [{ type: "demurrage", amount, currency_code: currency }];
}

// ---------------------------------------------------------------------------------------------------------------
// Observation

/** Where an entry is read: the terminal's time zone and country, and the container it answers for (for logs). */
interface EntryContext {
  timeZone: string | null;
  countryCode: string | null;
  nowMs: number;
  label: string;
}

const ACTIVE_STATES = new Set(["ADVISED", "INBOUND", "YARD"]);

/**
 * One APMT Import Availability entry as a terminal observation (docs/terminals.md §APMT mapping): ready for delivery →
 * availability (known iff the flag is readable), container holds → active holds, demurrage owed → fee, storage paid
 * through → LFD (terminal-local date), appointment date (unless `appointment` is false) → appointment, yard location,
 * discharge and facility-out times (UTC). Anything absent or unreadable stays null (an unreadable value is logged by
 * field name, never by value); no chassis number, never off-dock.
 */
export function apmtObservation(entry: Entry, ctx: EntryContext): TerminalObservation {
  const unreadable: string[] = [];
  const time = (field: string, value: string | null, read: (v: string, tz: string | null) => string | null) => {
    if (value === null) return null;
    const out = read(value, ctx.timeZone);
    if (out === null) unreadable.push(field);
    return out;
  };
  const available = flag(entry, "readyForDelivery", "ReadyForDelivery");
  const appointmentFlag = flag(entry, "appointment", "Appointment");
  const appointmentAt = time(
    "appointmentDateTimeLocal",
    text(entry, "appointmentDateTimeLocal", "AppointmentDate"),
    apmtInstant,
  );
  const demurrageText = text(entry, "demurrageOwed", "DemurrageOwed", "Demurrage");
  let fees = apmtDemurrage(demurrageText, ctx.countryCode);
  if (fees === null) {
    unreadable.push("demurrageOwed");
    fees = [];
  }
  const observation: TerminalObservation = {
    checkedAt: toIsoSeconds(ctx.nowMs),
    availabilityKnown: available !== null,
    availableForPickup: available,
    holds: holdsOf(entry),
    fees,
    pickupLfd: time(
      "storagePaidThroughDate",
      text(entry, "storagePaidThroughDate", "StoragePaidThroughDate"),
      apmtLastFreeDay,
    ),
    pickupAppointmentAt: appointmentFlag === false ? null : appointmentAt,
    locationAtTerminal: text(entry, "yardLocation", "YardLocation"),
    dischargedAt: time("dischargeDateTimeLocal", text(entry, "dischargeDateTimeLocal", "DischargedDate"), apmtInstant),
    fullOutAt: time("facilityOutDateTimeLocal", text(entry, "facilityOutDateTimeLocal", "GateOutDate"), apmtInstant),
    fullOutChassisNumber: null,
    offDock: false,
  };
  if (unreadable.length > 0) console.warn(`${ctx.label}: left out unreadable ${unreadable.join(", ")}`);
  return observation;
}

// ---------------------------------------------------------------------------------------------------------------
// HTTP

const unreachable = { kind: "temporary_failure", reason: "terminal_unreachable" } as const;
const unrecognized = { kind: "temporary_failure", reason: "unrecognized_response" } as const;
const credentialsRejected = { kind: "temporary_failure", reason: "terminal_credentials_rejected" } as const;

type Failure = typeof unreachable | typeof unrecognized | typeof credentialsRejected;

const failures: Record<TerminalRequestFailure, Failure> = {
  terminal_unreachable: unreachable,
  unrecognized_response: unrecognized,
  terminal_credentials_rejected: credentialsRejected,
};

const isEntry = (value: unknown): value is Entry =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * The entries of a 200 body (list, single object — Empty Container Returns documents one —, or the
 * `ContainerAvailabilityResults` wrapper); null if none of these.
 */
function entriesOf(json: unknown): Entry[] | null {
  let list: unknown;
  if (Array.isArray(json)) list = json;
  else if (isEntry(json) && Array.isArray(json.ContainerAvailabilityResults)) list = json.ContainerAvailabilityResults;
  else if (isEntry(json) && text(json, "containerId", "ContainerId") !== null) list = [json];
  else return null;
  const entries = list as unknown[];
  if (!entries.every((e) => isEntry(e) && text(e, "containerId", "ContainerId") !== null)) return null;
  return entries as Entry[];
}

/**
 * The entry of each container: of several for one box (a past visit and the current one), the first in an active
 * state (Advised, Inbound, Yard), else the last.
 */
function entriesByContainer(entries: Entry[]): Map<string, Entry> {
  const out = new Map<string, Entry>();
  for (const entry of entries) {
    const id = (text(entry, "containerId", "ContainerId") ?? "").toUpperCase();
    const kept = out.get(id);
    const keptActive = kept && ACTIVE_STATES.has((text(kept, "containerState", "ContainerState") ?? "").toUpperCase());
    if (!keptActive) out.set(id, entry);
  }
  return out;
}

/**
 * One request of `path` (Import Availability or Empty Container Returns) for `containers` at `facility`: the entries
 * by container number, or why not.
 */
async function requestEntries(
  path: string,
  config: TerminalProviderConfig,
  facility: string,
  containers: readonly string[],
  ctx: SourceContext,
  tokens: TokenBroker,
  timeoutMs: number,
): Promise<Map<string, Entry> | Failure> {
  const label = `APMT ${facility}`;
  // Container numbers and UN/LOCODEs are [A-Z0-9]: the list keeps its literal commas, as in the documented example.
  const url = `${config.baseUrl}${path}?assetId=${containers
    .map(encodeURIComponent)
    .join(",")}&facilityCode=${encodeURIComponent(facility)}`;
  let origin: string;
  try {
    origin = new URL(url).origin;
  } catch {
    console.error(`${label}: the configured baseUrl is not a URL`);
    return unrecognized;
  }
  const sent = await sendTerminalRequest(
    {
      url,
      method: "GET",
      headers: new Headers({ Accept: "application/json" }),
      timeoutMs,
      auth: config.auth ? { credentials: config.auth, tokens } : null,
      label,
      origin,
      credentialsHint: ` to ${path}: check the TERMINAL_SOURCES apmt credentials and that the app subscribes to this API product`,
      unexpectedStatusHint: ` to ${path}`,
    },
    ctx,
  );
  if (sent.kind === "failed") return failures[sent.reason];
  const body = sent.body;
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    console.warn(`${label}: ${origin} answered with a body that is not JSON`);
    return unrecognized;
  }
  const entries = entriesOf(json);
  if (!entries) {
    console.warn(`${label}: ${origin} answered ${path} with JSON that is not a list of container entries`);
    return unrecognized;
  }
  return entriesByContainer(entries);
}

/**
 * The APM Terminals Import Availability source for the facilities of `config` (our facility code → APMT
 * `facilityCode`, the port's UN/LOCODE, e.g. `{"W185": "USLAX", "NLRTM:NLMVII": "NLRTM"}`: a FIRMS code in the US, a
 * port-qualified SMDG code outside it); `supports` is true iff the facility is configured. `name` is "Terminal".
 *
 * `pollBatch` asks about the boxes of one facility at a time in requests of at most `maxBatchSize` container numbers
 * (`GET {baseUrl}/import-availability?assetId=A,B,…&facilityCode=USLAX`, `Accept: application/json`, the configured
 * `auth` applied by `authorizedFetch`: an OAuth bearer token from `deps.tokens`, renewed before its 30-minute expiry
 * and once on a 401), one request after another; once a request fails as unreachable or with refused credentials,
 * the remaining requests of the batch are not sent and their boxes fail the same way (a provider throttling or
 * refusing us is not asked again at once).
 *
 * Boxes in the answer that have left full (facility-out time, or state Departed/Retired) are then asked about at
 * Empty Container Returns in one request per chunk (`emptyReturnedAt`: the gate-in time when returned, else null;
 * left out when that API refuses or does not understand us; the boxes fail as `terminal_unreachable` when it is
 * unreachable).
 *
 * Outcomes per box: in the answer → `found` ({@link apmtObservation}); absent from a 200 answer → `not_found`;
 * 401/403 (after one retry with a new token) or a token endpoint refusing the client →
 * `terminal_credentials_rejected` (logged with `console.error`, no secret); 5xx, 408, 429, network error, timeout or
 * an unreachable token endpoint → `terminal_unreachable`; any other status (400, the spec's 404 "Bad URL"), a body
 * that is not JSON or not availability entries → `unrecognized_response`; an unconfigured facility →
 * `terminal_unreachable` (logged). Never throws; never logs a token, secret or body.
 */
export function createApmtSource(
  config: TerminalProviderConfig,
  deps: TerminalSourceDeps,
  options: ApmtSourceOptions = {},
): TerminalSource {
  const tokens = deps.tokens ?? createTokenBroker();
  const timeoutMs = options.timeoutMs ?? APMT_TIMEOUT_MS;
  const maxBatchSize = Math.max(1, Math.floor(options.maxBatchSize ?? APMT_MAX_ASSETS_PER_REQUEST));
  const facilityOf = (facilityCode: string): string | null => {
    const code = Object.hasOwn(config.facilities, facilityCode) ? config.facilities[facilityCode] : undefined;
    return code ? code.trim().toUpperCase() : null;
  };

  /**
   * Empty returns of the boxes of a chunk that have left the terminal full (Empty Container Returns,
   * §APMT empty returns), by container: the gate-in time (UTC) when `isContainerReturned`, else null. Null when no box
   * of the chunk is out, or when the API answers something other than data or an outage (a 400/403/404: the app may not
   * subscribe to that product; logged, the field left out); a {@link Failure} when it is unreachable (those boxes then
   * fail alike, so a recorded return is not lost for one poll).
   */
  const emptyReturns = async (
    facility: string,
    chunk: readonly string[],
    entries: Map<string, Entry>,
    observations: Map<string, TerminalObservation>,
    timeZone: string | null,
    ctx: SourceContext,
  ): Promise<Map<string, string | null> | Failure | null> => {
    if (options.emptyReturns === false) return null;
    const out = chunk.filter((c) => {
      const observation = observations.get(c);
      return observation !== undefined && isOut(entries.get(c), observation);
    });
    if (out.length === 0) return null;
    const got = await requestEntries(APMT_EMPTY_RETURNS_PATH, config, facility, out, ctx, tokens, timeoutMs);
    if (!(got instanceof Map)) return got.reason === "terminal_unreachable" ? got : null;
    const returned = new Map<string, string | null>();
    for (const container of out) {
      const entry = got.get(container);
      const gateIn = entry && flag(entry, "isContainerReturned") === true ? text(entry, "gateInDateTimeLocal") : null;
      returned.set(container, apmtInstant(gateIn, timeZone));
    }
    return returned;
  };

  const pollBatch = async (
    queries: readonly TerminalQuery[],
    ctx: SourceContext,
  ): Promise<Map<string, TerminalPollResult>> => {
    const results = new Map<string, TerminalPollResult>();
    const byFacility = new Map<string, { ours: string; containers: string[] }>();
    for (const query of queries) {
      const container = query.containerNumber.trim().toUpperCase();
      const facility = facilityOf(query.facilityCode);
      if (!facility) {
        console.error(`APMT: facility ${query.facilityCode.slice(0, 20)} is not configured`);
        results.set(query.containerNumber, unreachable);
        continue;
      }
      const key = `${query.facilityCode}|${facility}`;
      let group = byFacility.get(key);
      if (!group) {
        group = { ours: query.facilityCode, containers: [] };
        byFacility.set(key, group);
      }
      if (!group.containers.includes(container)) group.containers.push(container);
    }
    const numbersOf = new Map<string, string[]>();
    for (const query of queries) {
      const container = query.containerNumber.trim().toUpperCase();
      numbersOf.set(container, [...(numbersOf.get(container) ?? []), query.containerNumber]);
    }
    const answer = (container: string, result: TerminalPollResult) => {
      for (const number of numbersOf.get(container) ?? [container]) results.set(number, result);
    };
    for (const [key, group] of byFacility) {
      const facility = key.slice(key.indexOf("|") + 1);
      const terminal = findTerminalByCode(group.ours);
      const timeZone = usableZone(terminal?.timeZone ?? findPortByLocode(facility)?.timeZone ?? null);
      const countryCode = terminal?.countryCode ?? (/^[A-Z]{2}/.test(facility) ? facility.slice(0, 2) : null);
      let stopped: Failure | null = null;
      for (let start = 0; start < group.containers.length; start += maxBatchSize) {
        const chunk = group.containers.slice(start, start + maxBatchSize);
        const got: Map<string, Entry> | Failure =
          stopped ??
          (await requestEntries(APMT_IMPORT_AVAILABILITY_PATH, config, facility, chunk, ctx, tokens, timeoutMs));
        if (!(got instanceof Map)) {
          if (got.reason !== "unrecognized_response") stopped = got;
          for (const container of chunk) answer(container, got);
          continue;
        }
        const observations = new Map<string, TerminalObservation>();
        for (const [container, entry] of got) {
          if (!chunk.includes(container)) continue;
          observations.set(
            container,
            apmtObservation(entry, { timeZone, countryCode, nowMs: ctx.nowMs, label: `APMT ${facility} ${container}` }),
          );
        }
        const returns = await emptyReturns(facility, chunk, got, observations, timeZone, ctx);
        if (returns !== null && !(returns instanceof Map)) stopped = returns;
        for (const container of chunk) {
          const observation = observations.get(container);
          if (!observation) answer(container, { kind: "not_found" });
          else if (returns !== null && !(returns instanceof Map) && isOut(got.get(container), observation)) {
            answer(container, returns);
          } else {
            if (returns instanceof Map && isOut(got.get(container), observation)) {
              observation.emptyReturnedAt = returns.get(container) ?? null;
            }
            answer(container, { kind: "found", observation });
          }
        }
      }
    }
    return results;
  };

  return {
    name: "Terminal",
    supports: (facilityCode) => facilityOf(facilityCode) !== null,
    maxBatchSize,
    pollBatch,
    async poll(query, ctx) {
      return (await pollBatch([query], ctx)).get(query.containerNumber) ?? unreachable;
    },
  };
}

/**
 * Whether a box has left the terminal full: a facility-out time, or the state `Departed` / `Retired`
 * (§APMT response fields).
 */
function isOut(entry: Entry | undefined, observation: TerminalObservation): boolean {
  if (observation.fullOutAt !== null) return true;
  const state = entry ? (text(entry, "containerState", "ContainerState") ?? "").toUpperCase() : "";
  return state === "DEPARTED" || state === "RETIRED";
}

/** `timeZone` when the runtime knows it, else null (an unknown zone must not throw mid-poll). */
function usableZone(timeZone: string | null): string | null {
  if (!timeZone) return null;
  try {
    zoneOffsetMs(0, timeZone);
    return timeZone;
  } catch {
    return null;
  }
}
