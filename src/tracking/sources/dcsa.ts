/**
 * DCSA Track & Trace 2.2 carrier source (DESIGN.md §4 Sources): `GET {baseUrl}/v2/events` filtered by the
 * tracked number, cursor paging through `Next-Page`, events mapped to our milestones by
 * ../shared/data/dcsa-to-transport-events.csv. Spec: ../shared/data/dcsa/TNT_v2.2.0-resolved.yaml.
 */
import { z } from "zod";
import { toIsoSeconds } from "../../lib/clock";
import { decodeSizeType } from "../../reference/equipment";
import { canonicalFacilityCode, findPortByLocode } from "../../reference/locations";
import { milestoneIdentity } from "../identity";
import {
  authorizedFetch,
  createTokenBroker,
  headerRecordSchema,
  isCredentialUrl,
  type SourceAuth,
  sourceAuthSchema,
  type TokenBroker,
} from "./auth";
import { isTimeout } from "./provider-fetch";
import { type SubscriptionCallAnswer, sendSubscriptionCall } from "./subscription-call";
import { instantMs, parseIsoWallClock } from "./timestamps";
import type {
  CarrierSource,
  ContainerFacts,
  LookupRequest,
  LookupResult,
  Milestone,
  MilestoneName,
  ShipmentFacts,
  SourceContext,
} from "./types";

/** One carrier's DCSA endpoint, as configured in `DCSA_SOURCES`. */
export interface DcsaSourceConfig {
  /** Base URL without trailing slash; `/v2/events` is appended. https (http only for localhost / 127.0.0.1). */
  baseUrl: string;
  /**
   * How requests are authorised (src/tracking/sources/auth.ts): static headers (the older top-level `headers` form
   * reads as `{"type":"headers"}`), an API key, or OAuth 2.0 client credentials. Secret: never logged.
   */
  auth: SourceAuth;
  /**
   * `subscriptions: true`: the carrier offers TNT 2.2 event subscriptions, used besides polling (issue 13 §4): a
   * subscription per tracked reference, created after the first successful lookup and deleted when tracking stops
   * (src/callbacks/lifecycle.ts), needs `PUBLIC_BASE_URL` and `UPSTREAM_SUBSCRIPTION_KEY` too.
   */
  subscriptions: boolean;
}

/** Limits of one lookup; the defaults suit production, tests shorten them. */
export interface DcsaSourceOptions {
  /** Most pages fetched for one lookup (default 50); a server still paging after that is treated as broken. */
  maxPages?: number;
  /** Timeout of each page request, in milliseconds (default 15 000). */
  timeoutMs?: number;
  /** `limit` query parameter, events per page (default 100). */
  pageSize?: number;
  /**
   * OAuth token broker shared by the lookups (src/tracking/sources/auth.ts); default: a per-isolate broker of this
   * source. `sourcesFor` passes the one backed by the `Credentials` Durable Object.
   */
  tokens?: TokenBroker;
}

/**
 * Value of the `API-Version` request header. TNT 2.2 (`components/parameters/Api-Version-Major`): "if added it
 * MUST only contain MAJOR version" and be aligned with the URI version (`/v2`), so `2`, not `2.2.0`.
 */
export const DCSA_API_VERSION = "2";
/** Default page cap of a lookup. */
export const DCSA_MAX_PAGES = 50;
/** Default per-request timeout, in milliseconds. */
export const DCSA_TIMEOUT_MS = 15_000;
/** Default `limit` (the spec's own default). */
export const DCSA_PAGE_SIZE = 100;

// ---------------------------------------------------------------------------------------------------------------
// Configuration

const sourceConfigSchema = z
  .strictObject({
    baseUrl: z
      .string()
      .refine(
        (v) => isCredentialUrl(v),
        "must be an https URL without credentials, query or fragment (http only for localhost)",
      ),
    headers: headerRecordSchema.optional(),
    auth: sourceAuthSchema.optional(),
    subscriptions: z.boolean().default(false),
  })
  .refine((c) => !(c.headers && c.auth), "give either headers or auth, not both");

/**
 * Parses the `DCSA_SOURCES` secret: a JSON object keyed by SCAC, each entry `{"baseUrl":"https://…","auth":{…},
 * "subscriptions"?:boolean}` with `auth` one of `{"type":"headers","headers":{…}}`,
 * `{"type":"api_key","apiKey":"…","header"?:"X-API-KEY"}` or `{"type":"oauth2_client_credentials","tokenUrl":"https://…",
 * "clientId":"…","clientSecret":"…","scope"?:"…","extraHeaders"?:{…},"clientAuth"?:"body"|"basic"}` (issue 13 §3,
 * src/tracking/sources/auth.ts). The older form `{"baseUrl":"…","headers":{…}}` still works (static headers); no
 * `auth` and no `headers` means no credentials. SCACs are upper-cased; base URLs lose any trailing slash. An invalid
 * entry (not 2–4 letters, base URL not https — http is allowed only for localhost and 127.0.0.1 —, an unknown key,
 * a bad `auth`, both `headers` and `auth`) is skipped with a `console.warn` naming the SCAC and the fields at fault
 * (never a value). Never throws: unset, blank or malformed JSON configures nothing.
 */
export function parseDcsaSources(json: string | undefined): Map<string, DcsaSourceConfig> {
  const configs = new Map<string, DcsaSourceConfig>();
  if (json === undefined || json.trim() === "") return configs;
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    console.warn("DCSA_SOURCES is not valid JSON; no DCSA source is configured");
    return configs;
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    console.warn("DCSA_SOURCES must be a JSON object keyed by SCAC; no DCSA source is configured");
    return configs;
  }
  for (const [key, value] of Object.entries(parsed)) {
    const scac = key.trim().toUpperCase();
    if (!/^[A-Z]{2,4}$/.test(scac)) {
      console.warn(`DCSA_SOURCES: skipping "${key}": a SCAC is 2 to 4 letters`);
      continue;
    }
    const result = sourceConfigSchema.safeParse(value);
    if (!result.success) {
      const problems = result.error.issues.map((i) => `${i.path.join(".") || "(entry)"}: ${i.message}`).join("; ");
      console.warn(`DCSA_SOURCES: skipping ${scac}: ${problems}`);
      continue;
    }
    const { baseUrl, headers, auth, subscriptions } = result.data;
    configs.set(scac, {
      baseUrl: baseUrl.replace(/\/+$/, ""),
      auth: auth ?? { type: "headers", headers: headers ?? {} },
      subscriptions,
    });
  }
  return configs;
}

// ---------------------------------------------------------------------------------------------------------------
// Wire schemas (TNT 2.2 components/schemas), only the fields we use; extra fields are allowed and ignored.

/**
 * ISO 8601 date-time (src/tracking/sources/timestamps.ts); the offset is optional because `eventDateTime` is "the
 * local date and time", the time is not.
 */
const dateTime = z.string().refine((v) => parseIsoWallClock(v)?.hasTime === true, "not an ISO 8601 date-time");
const text = z.string().nullish();
const numberText = z
  .union([z.string(), z.number()])
  .transform((v) => String(v))
  .nullish();

const locationSchema = z
  .object({ UNLocationCode: text, facilityCode: text, facilityCodeListProvider: text, locationName: text })
  .nullish();

const transportCallSchema = z.object({
  transportCallID: z.string().min(1),
  modeOfTransport: z.string(),
  UNLocationCode: text,
  facilityCode: text,
  facilityTypeCode: text,
  carrierVoyageNumber: text,
  exportVoyageNumber: text,
  importVoyageNumber: text,
  location: locationSchema,
  vessel: z.object({ vesselIMONumber: numberText, vesselName: text }).nullish(),
});

const documentReferencesSchema = z
  .array(z.object({ documentReferenceType: z.string(), documentReferenceValue: z.string() }))
  .nullish();

const baseEventFields = {
  eventID: text,
  eventCreatedDateTime: dateTime,
  eventDateTime: dateTime,
  eventClassifierCode: z.enum(["ACT", "PLN", "EST"]),
  /** Deprecated in 2.2 in favour of the specialised codes; accepted when those are missing. */
  eventTypeCode: text,
};

const transportEventSchema = z
  .object({
    ...baseEventFields,
    eventType: z.literal("TRANSPORT"),
    transportEventTypeCode: text,
    transportCall: transportCallSchema,
    documentReferences: documentReferencesSchema,
  })
  .refine((e) => !!(e.transportEventTypeCode ?? e.eventTypeCode), "transportEventTypeCode is required");

const equipmentEventSchema = z
  .object({
    ...baseEventFields,
    eventType: z.literal("EQUIPMENT"),
    equipmentEventTypeCode: text,
    equipmentReference: text,
    ISOEquipmentCode: text,
    emptyIndicatorCode: z.enum(["EMPTY", "LADEN"]),
    eventLocation: locationSchema,
    transportCall: transportCallSchema.nullish(),
    /** TNT 2.3 moved it to the event root; accepted for servers ahead of 2.2. */
    facilityTypeCode: text,
    documentReferences: documentReferencesSchema,
    seals: z.array(z.object({ sealNumber: z.string() })).nullish(),
  })
  .refine((e) => !!(e.equipmentEventTypeCode ?? e.eventTypeCode), "equipmentEventTypeCode is required");

const shipmentEventSchema = z.object({
  ...baseEventFields,
  eventType: z.literal("SHIPMENT"),
  shipmentEventTypeCode: text,
  documentTypeCode: z.string(),
  documentID: z.string(),
});

type TransportEvent = z.infer<typeof transportEventSchema>;
type EquipmentEvent = z.infer<typeof equipmentEventSchema>;
type ShipmentEvent = z.infer<typeof shipmentEventSchema>;
type TransportCall = z.infer<typeof transportCallSchema>;

// ---------------------------------------------------------------------------------------------------------------
// Time

/**
 * UTC ms of a DCSA date-time. With an offset (the norm) it is exact. Without one, TNT 2.2 says the time is local
 * to where the event happens, so it is read in the IANA zone of the location's port when the reference data
 * knows it, else as UTC (src/tracking/sources/timestamps.ts `instantMs`).
 */
function toUtcMs(value: string, locode: string | null): number {
  const wall = parseIsoWallClock(value);
  if (!wall) return Number.NaN;
  return instantMs(wall, findPortByLocode(locode)?.timeZone ?? null);
}

// ---------------------------------------------------------------------------------------------------------------
// Normalised events

type Classifier = "ACT" | "PLN" | "EST";

/** A vessel, barge, rail or truck call, merged over every event that references it. */
interface Call {
  key: string;
  mode: string;
  locode: string | null;
  facilityCode: string | null;
  vesselName: string | null;
  vesselImo: string | null;
  importVoyage: string | null;
  exportVoyage: string | null;
  carrierVoyage: string | null;
  events: NormalisedEvent[];
}

interface NormalisedEvent {
  type: "TRANSPORT" | "EQUIPMENT";
  code: string;
  classifier: Classifier;
  atMs: number;
  createdMs: number;
  id: string | null;
  raw: unknown;
  /** The event's own transport call as received, if any. */
  transportCall: TransportCall | null;
  /** The merged call it belongs to, set by {@link buildJourney}. */
  call: Call | null;
  locode: string | null;
  /** DCSA `locationName` of the event's place, when given. */
  locationName: string | null;
  facilityCode: string | null;
  facilityTypeCode: string | null;
  /** Container number (equipment events only). */
  equipment: string | null;
  empty: "EMPTY" | "LADEN" | null;
  isoCode: string | null;
  seals: string[];
  documentReferences: { type: string; value: string }[];
}

interface ParsedEvents {
  transport: NormalisedEvent[];
  equipment: NormalisedEvent[];
  shipment: { event: ShipmentEvent; raw: unknown }[];
  /** Events of an eventType TNT 2.2 does not define. */
  other: unknown[];
}

const clean = (v: string | null | undefined): string | null => {
  const t = v?.trim();
  return t ? t : null;
};
const upper = (v: string | null | undefined): string | null => clean(v)?.toUpperCase() ?? null;

function callLocode(call: TransportCall | null | undefined): string | null {
  return upper(call?.UNLocationCode) ?? upper(call?.location?.UNLocationCode);
}

function callFacility(call: TransportCall | null | undefined): string | null {
  return upper(call?.facilityCode) ?? upper(call?.location?.facilityCode);
}

function docRefs(refs: { documentReferenceType: string; documentReferenceValue: string }[] | null | undefined) {
  return (refs ?? []).map((r) => ({ type: r.documentReferenceType, value: r.documentReferenceValue }));
}

function normaliseTransport(e: TransportEvent, raw: unknown): NormalisedEvent {
  const locode = callLocode(e.transportCall);
  return {
    type: "TRANSPORT",
    code: (e.transportEventTypeCode ?? e.eventTypeCode ?? "").toUpperCase(),
    classifier: e.eventClassifierCode,
    atMs: toUtcMs(e.eventDateTime, locode),
    createdMs: toUtcMs(e.eventCreatedDateTime, locode),
    id: clean(e.eventID),
    raw,
    transportCall: e.transportCall,
    call: null,
    locode,
    locationName: clean(e.transportCall.location?.locationName),
    facilityCode: callFacility(e.transportCall),
    facilityTypeCode: upper(e.transportCall.facilityTypeCode),
    equipment: null,
    empty: null,
    isoCode: null,
    seals: [],
    documentReferences: docRefs(e.documentReferences),
  };
}

function normaliseEquipment(e: EquipmentEvent, raw: unknown): NormalisedEvent {
  const locode = upper(e.eventLocation?.UNLocationCode) ?? callLocode(e.transportCall);
  return {
    type: "EQUIPMENT",
    code: (e.equipmentEventTypeCode ?? e.eventTypeCode ?? "").toUpperCase(),
    classifier: e.eventClassifierCode,
    atMs: toUtcMs(e.eventDateTime, locode),
    createdMs: toUtcMs(e.eventCreatedDateTime, locode),
    id: clean(e.eventID),
    raw,
    transportCall: e.transportCall ?? null,
    call: null,
    locode,
    locationName: clean(e.eventLocation?.locationName) ?? clean(e.transportCall?.location?.locationName),
    facilityCode: upper(e.eventLocation?.facilityCode) ?? callFacility(e.transportCall),
    facilityTypeCode: upper(e.facilityTypeCode) ?? upper(e.transportCall?.facilityTypeCode),
    equipment: e.equipmentReference ? e.equipmentReference.replace(/\s+/g, "").toUpperCase() || null : null,
    empty: e.emptyIndicatorCode,
    isoCode: upper(e.ISOEquipmentCode),
    seals: (e.seals ?? []).map((s) => s.sealNumber.trim()).filter((s) => s !== ""),
    documentReferences: docRefs(e.documentReferences),
  };
}

/**
 * Validates the events of the response (TNT 2.2 `transportEvent` / `equipmentEvent` / `shipmentEvent`, extra fields
 * allowed). Returns null when one of them does not match its schema: the response is then not what we understand.
 */
function parseEvents(items: unknown[]): ParsedEvents | null {
  const parsed: ParsedEvents = { transport: [], equipment: [], shipment: [], other: [] };
  for (const raw of items) {
    if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return null;
    const eventType = (raw as { eventType?: unknown }).eventType;
    const schema =
      eventType === "TRANSPORT"
        ? transportEventSchema
        : eventType === "EQUIPMENT"
          ? equipmentEventSchema
          : eventType === "SHIPMENT"
            ? shipmentEventSchema
            : null;
    if (!schema) {
      parsed.other.push(raw);
      continue;
    }
    const result = schema.safeParse(raw);
    if (!result.success) {
      const id = (raw as { eventID?: unknown }).eventID;
      const problems = result.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
      console.warn(
        `DCSA: ${String(eventType)} event ${String(id ?? "(no eventID)")} does not match TNT 2.2: ${problems}`,
      );
      return null;
    }
    const data = result.data;
    if (data.eventType === "TRANSPORT") parsed.transport.push(normaliseTransport(data, raw));
    else if (data.eventType === "EQUIPMENT") parsed.equipment.push(normaliseEquipment(data, raw));
    else parsed.shipment.push({ event: data, raw });
  }
  return parsed;
}

// ---------------------------------------------------------------------------------------------------------------
// Journey: calls, POL, POD, inland destination

interface Journey {
  pol: Call | null;
  /** Earliest LOAD/DEPA at the POL call, ms. */
  polStartMs: number | null;
  pod: Call | null;
  /** Earliest ARRI/DISC at the POD call, ms. */
  podStartMs: number | null;
  /** Last rail call after the POD (the place of delivery of a rail leg). */
  destination: Call | null;
}

const isArrival = (e: NormalisedEvent) => e.code === "ARRI" || e.code === "DISC";
const isDeparture = (e: NormalisedEvent) => e.code === "LOAD" || e.code === "DEPA";
/** Events that show the box (or its vessel) moving; EMPTY moves are repositioning, not this shipment. */
const movesCargo = (e: NormalisedEvent) => e.type === "TRANSPORT" || e.empty === "LADEN";

function attachCall(calls: Map<string, Call>, e: NormalisedEvent): void {
  const tc = e.transportCall;
  let key: string;
  let mode: string;
  if (tc) {
    mode = tc.modeOfTransport.toUpperCase();
    // A call is one mode's: a truck or rail move that reuses a vessel call's id is not merged into it (it would
    // take the vessel's name and voyage, or lend the vessel call its mode).
    key = `${mode}:${tc.transportCallID}`;
  } else if ((e.code === "LOAD" || e.code === "DISC") && e.locode) {
    // A LOAD/DISC without its transport call is, in practice, a vessel move at that port.
    key = `at:${e.locode}`;
    mode = "VESSEL";
  } else {
    return;
  }
  let call = calls.get(key);
  if (!call) {
    call = {
      key,
      mode,
      locode: null,
      facilityCode: null,
      vesselName: null,
      vesselImo: null,
      importVoyage: null,
      exportVoyage: null,
      carrierVoyage: null,
      events: [],
    };
    calls.set(key, call);
  }
  // Events of one call do not all repeat every detail: the first one that gives a field wins.
  call.locode ??= tc ? callLocode(tc) : e.locode;
  call.facilityCode ??= tc ? callFacility(tc) : e.facilityCode;
  call.vesselName ??= clean(tc?.vessel?.vesselName);
  call.vesselImo ??= clean(tc?.vessel?.vesselIMONumber);
  call.importVoyage ??= clean(tc?.importVoyageNumber);
  call.exportVoyage ??= clean(tc?.exportVoyageNumber);
  call.carrierVoyage ??= clean(tc?.carrierVoyageNumber);
  call.events.push(e);
  e.call = call;
}

/**
 * POL = the vessel call of the first LOAD/DEPA, POD = the vessel call of the last ARRI/DISC (any classifier, so a
 * planned arrival already names the POD); every other vessel call is a transshipment. The inland destination is
 * the last rail call with an arrival or discharge after the POD (../shared/data/dcsa-to-transport-events.csv).
 */
function buildJourney(events: NormalisedEvent[]): Journey {
  const calls = new Map<string, Call>();
  for (const e of events) attachCall(calls, e);
  let pol: Call | null = null;
  let polStartMs: number | null = null;
  let pod: Call | null = null;
  let podLastMs: number | null = null;
  for (const call of calls.values()) {
    if (call.mode !== "VESSEL") continue;
    for (const e of call.events) {
      if (!movesCargo(e)) continue;
      if (isDeparture(e) && (polStartMs === null || e.atMs < polStartMs)) {
        pol = call;
        polStartMs = e.atMs;
      }
      if (isArrival(e) && (podLastMs === null || e.atMs > podLastMs)) {
        pod = call;
        podLastMs = e.atMs;
      }
    }
  }
  const podStartMs = pod
    ? Math.min(...pod.events.filter((e) => movesCargo(e) && isArrival(e)).map((e) => e.atMs))
    : null;
  let destination: Call | null = null;
  if (podStartMs !== null) {
    let lastMs = podStartMs;
    for (const call of calls.values()) {
      if (call.mode !== "RAIL") continue;
      for (const e of call.events) {
        if (movesCargo(e) && isArrival(e) && e.atMs >= lastMs) {
          destination = call;
          lastMs = e.atMs;
        }
      }
    }
  }
  return { pol, polStartMs, pod, podStartMs, destination };
}

// ---------------------------------------------------------------------------------------------------------------
// Mapping (../shared/data/dcsa-to-transport-events.csv)

const T = "container.transport.";
const VESSEL_AT_POL: Record<string, MilestoneName> = { LOAD: `${T}vessel_loaded`, DEPA: `${T}vessel_departed` };
const VESSEL_AT_POD: Record<string, MilestoneName> = { ARRI: `${T}vessel_arrived`, DISC: `${T}vessel_discharged` };
const TRANSSHIPMENT: Record<string, MilestoneName> = {
  ARRI: `${T}transshipment_arrived`,
  DISC: `${T}transshipment_discharged`,
  LOAD: `${T}transshipment_loaded`,
  DEPA: `${T}transshipment_departed`,
};
const FEEDER: Record<string, MilestoneName> = {
  ARRI: `${T}feeder_arrived`,
  DISC: `${T}feeder_discharged`,
  LOAD: `${T}feeder_loaded`,
  DEPA: `${T}feeder_departed`,
};
const RAIL: Record<string, MilestoneName> = {
  LOAD: `${T}rail_loaded`,
  DEPA: `${T}rail_departed`,
  ARRI: `${T}rail_arrived`,
  DISC: `${T}rail_unloaded`,
};

/**
 * Our milestones for one move (LOAD/DISC/ARRI/DEPA): by mode of transport, and for vessels by where the call sits
 * in the journey. Empty moves and truck moves have no mapping. A rail arrival at the place of delivery is both
 * `rail_arrived` and `arrived_at_inland_destination` (the CSV maps it to both).
 */
function mapMove(e: NormalisedEvent, journey: Journey): MilestoneName[] {
  const call = e.call;
  if (!call || !movesCargo(e)) return [];
  const one = (name: MilestoneName | undefined): MilestoneName[] => (name ? [name] : []);
  switch (call.mode) {
    case "VESSEL": {
      const atPol = call === journey.pol;
      const atPod = call === journey.pod;
      if (atPol || atPod)
        return one((atPol ? VESSEL_AT_POL[e.code] : undefined) ?? (atPod ? VESSEL_AT_POD[e.code] : undefined));
      return one(TRANSSHIPMENT[e.code]);
    }
    case "BARGE":
      return one(FEEDER[e.code]);
    case "RAIL": {
      if (journey.podStartMs === null || e.atMs < journey.podStartMs) return [];
      const names = one(RAIL[e.code]);
      if (e.code === "ARRI" && call === journey.destination) names.push(`${T}arrived_at_inland_destination`);
      return names;
    }
    default:
      return [];
  }
}

/**
 * Our milestone for a gate or drop event of one box, or null (kept as raw): GTOT EMPTY before the journey starts →
 * `empty_out`; GTIN LADEN at the POL before loading → `full_in`; GTOT LADEN after the POD arrival → `full_out`.
 * Empty returns are decided by {@link mapEmptyReturn}. DROP at a customer (CLOC) would be `delivered`, which is
 * manual only (SPEC R §2.1), so it stays raw.
 */
function mapGate(e: NormalisedEvent, journey: Journey): MilestoneName | null {
  const journeyStartMs = journey.polStartMs ?? journey.podStartMs;
  const beforeJourney = journeyStartMs === null || e.atMs <= journeyStartMs;
  if (e.code === "GTOT" && e.empty === "EMPTY" && beforeJourney) return `${T}empty_out`;
  if (e.code === "GTIN" && e.empty === "LADEN" && beforeJourney) {
    const polLocode = journey.pol?.locode ?? null;
    if (!polLocode || !e.locode || e.locode === polLocode) return `${T}full_in`;
    return null;
  }
  if (e.code === "GTOT" && e.empty === "LADEN" && journey.podStartMs !== null && e.atMs >= journey.podStartMs) {
    return `${T}full_out`;
  }
  return null;
}

/** GTIN EMPTY, or DROP EMPTY at a depot (DEPO), after the box's full-out (or, with none reported, after the POD arrival). */
function mapEmptyReturn(e: NormalisedEvent, journey: Journey, fullOutMs: number | null): MilestoneName | null {
  if (e.empty !== "EMPTY") return null;
  if (e.code !== "GTIN" && !(e.code === "DROP" && e.facilityTypeCode === "DEPO")) return null;
  const afterMs = fullOutMs ?? journey.podStartMs;
  return afterMs !== null && e.atMs >= afterMs ? `${T}empty_in` : null;
}

function voyageFor(call: Call | null, code: string): string | null {
  if (!call) return null;
  return code === "ARRI" || code === "DISC"
    ? (call.importVoyage ?? call.carrierVoyage ?? call.exportVoyage)
    : (call.exportVoyage ?? call.carrierVoyage ?? call.importVoyage);
}

function toMilestone(e: NormalisedEvent, event: MilestoneName): Milestone {
  const call = e.call;
  const mode = call?.mode ?? null;
  const onVessel = call !== null && (mode === "VESSEL" || mode === "BARGE");
  return {
    event,
    estimated: e.classifier !== "ACT",
    modeOfTransport: mode === "VESSEL" || mode === "BARGE" || mode === "RAIL" || mode === "TRUCK" ? mode : null,
    timestamp: toIsoSeconds(e.atMs),
    locationLocode: e.locode ?? call?.locode ?? null,
    // Only when the carrier names the place: a milestone without it stays as it was (snapshots, identities).
    ...(e.locationName ? { locationName: e.locationName } : {}),
    facilityCode: e.facilityCode ?? call?.facilityCode ?? null,
    vesselName: onVessel ? call.vesselName : null,
    vesselImo: onVessel ? call.vesselImo : null,
    voyageNumber: onVessel ? voyageFor(call, e.code) : null,
    originalEvent: `${e.type} ${e.code} ${e.classifier}`,
    sourceEventId: e.id,
    raw: e.raw,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Facts

/** The newest report (by `eventCreatedDateTime`) among `events`; later in the list wins a tie. */
function newest(events: NormalisedEvent[]): NormalisedEvent | null {
  let found: NormalisedEvent | null = null;
  for (const e of events) if (!found || e.createdMs >= found.createdMs) found = e;
  return found;
}

/** Estimate and actual of a transport event code at a call: the latest estimate wins (CSV: "keep latest EST"). */
function callTimes(call: Call | null, code: string): { estimate: string | null; actual: string | null } {
  const events = (call?.events ?? []).filter((e) => e.type === "TRANSPORT" && e.code === code);
  const estimate = newest(events.filter((e) => e.classifier !== "ACT"));
  const actual = newest(events.filter((e) => e.classifier === "ACT"));
  return {
    estimate: estimate ? toIsoSeconds(estimate.atMs) : null,
    actual: actual ? toIsoSeconds(actual.atMs) : null,
  };
}

/**
 * The call's facility as the rest of the engine keys terminals: whatever list the carrier's `facilityCode` comes
 * from (`facilityCodeListProvider` SMDG or BIC, or a FIRMS code), the terminal's FIRMS code, else its BIC code, else
 * its port-qualified SMDG code, else the code as given (src/reference/locations.ts `canonicalFacilityCode`). SMDG
 * `APMT` at USLAX → `W185`; SMDG `NLMVII` at NLRTM (no FIRMS or BIC code) → `NLRTM:NLMVII`.
 */
function resolveFacilityCode(call: Call | null): string | null {
  return canonicalFacilityCode(call?.facilityCode, call?.locode);
}

const firstActualAt = (milestones: Milestone[], event: MilestoneName): string | null =>
  milestones.find((m) => !m.estimated && m.event === event)?.timestamp ?? null;

function buildShipment(request: LookupRequest, parsed: ParsedEvents): ShipmentFacts {
  const moving = [...parsed.transport, ...parsed.equipment];
  const journey = buildJourney(moving);
  const shipmentUnmapped: unknown[] = [...parsed.shipment.map((s) => s.raw), ...parsed.other];

  const equipmentByBox = new Map<string, NormalisedEvent[]>();
  for (const e of parsed.equipment) {
    if (!e.equipment) {
      shipmentUnmapped.push(e.raw);
      continue;
    }
    const list = equipmentByBox.get(e.equipment) ?? [];
    list.push(e);
    equipmentByBox.set(e.equipment, list);
  }
  const boxes = [...equipmentByBox.keys()];

  // TNT 2.2 transport events name documents, not boxes: each goes to the boxes seen on its call, or, for a call
  // no box has an equipment event at yet (a future call), to every box of the shipment.
  const transportByBox = new Map<string, NormalisedEvent[]>(boxes.map((b) => [b, []]));
  const transportUsed = new Set<NormalisedEvent>();
  for (const e of parsed.transport) {
    if (mapMove(e, journey).length === 0 || boxes.length === 0) continue;
    const onCall = new Set(
      (e.call?.events ?? []).filter((x) => x.type === "EQUIPMENT" && x.equipment).map((x) => x.equipment as string),
    );
    for (const box of onCall.size > 0 ? onCall : boxes) transportByBox.get(box)?.push(e);
    transportUsed.add(e);
  }
  for (const e of parsed.transport) if (!transportUsed.has(e)) shipmentUnmapped.push(e.raw);

  const containers = boxes.map((box) =>
    buildContainer(box, equipmentByBox.get(box) ?? [], transportByBox.get(box) ?? [], journey),
  );

  const pol = journey.pol;
  const pod = journey.pod;
  const departure = callTimes(pol, "DEPA");
  const arrival = callTimes(pod, "ARRI");
  const inland = callTimes(journey.destination, "ARRI");
  return {
    billOfLadingNumber: shipmentNumber(request, parsed),
    portOfLadingLocode: pol?.locode ?? null,
    portOfDischargeLocode: pod?.locode ?? null,
    podTerminalCode: resolveFacilityCode(pod),
    destinationLocode: journey.destination?.locode ?? null,
    destinationTerminalCode: resolveFacilityCode(journey.destination),
    podVesselName: pod?.vesselName ?? null,
    podVesselImo: pod?.vesselImo ?? null,
    podVoyageNumber: voyageFor(pod, "ARRI"),
    polEtdAt: departure.estimate,
    polAtdAt: departure.actual,
    podEtaAt: arrival.estimate,
    podAtaAt: arrival.actual,
    destinationEtaAt: inland.estimate,
    destinationAtaAt: inland.actual,
    containers,
    unmappedEvents: shipmentUnmapped,
  };
}

/** BL/booking requests keep the number asked for; a container's shipment is named by its transport document. */
function shipmentNumber(request: LookupRequest, parsed: ParsedEvents): string {
  if (request.requestType !== "container") return request.number;
  const refs = [...parsed.equipment, ...parsed.transport].flatMap((e) => e.documentReferences);
  const fromShipmentEvents = parsed.shipment.find((s) => s.event.documentTypeCode === "TRD")?.event.documentID;
  return (
    refs.find((r) => r.type === "TRD")?.value ??
    fromShipmentEvents ??
    refs.find((r) => r.type === "BKG")?.value ??
    request.number
  );
}

/**
 * The journey as one box sees it: its POL is the call of its own first laden vessel LOAD when it has one (a box
 * rolled to a later vessel has its own POL call); POD and inland legs are the shipment's.
 */
function journeyOfBox(equipment: NormalisedEvent[], journey: Journey): Journey {
  let own: NormalisedEvent | null = null;
  for (const e of equipment) {
    if (e.code !== "LOAD" || e.empty !== "LADEN" || e.call?.mode !== "VESSEL") continue;
    if (!own || e.atMs < own.atMs) own = e;
  }
  return own ? { ...journey, pol: own.call, polStartMs: own.atMs } : journey;
}

function buildContainer(
  number: string,
  equipment: NormalisedEvent[],
  transport: NormalisedEvent[],
  shipmentJourney: Journey,
): ContainerFacts {
  const journey = journeyOfBox(equipment, shipmentJourney);
  const unmapped = new Set<unknown>();
  const produced: { e: NormalisedEvent; m: Milestone }[] = [];
  const emptyReturnCandidates: NormalisedEvent[] = [];
  for (const e of [...equipment, ...transport]) {
    if (e.code === "LOAD" || e.code === "DISC" || e.code === "ARRI" || e.code === "DEPA") {
      const names = mapMove(e, journey);
      for (const name of names) produced.push({ e, m: toMilestone(e, name) });
      if (names.length === 0) unmapped.add(e.raw);
      continue;
    }
    const name = mapGate(e, journey);
    if (name) produced.push({ e, m: toMilestone(e, name) });
    else emptyReturnCandidates.push(e);
  }
  const fullOuts = produced.filter((p) => p.m.event === `${T}full_out`).map((p) => p.e.atMs);
  const fullOutMs = fullOuts.length > 0 ? Math.min(...fullOuts) : null;
  for (const e of emptyReturnCandidates) {
    const name = mapEmptyReturn(e, journey, fullOutMs);
    if (name) produced.push({ e, m: toMilestone(e, name) });
    else unmapped.add(e.raw);
  }

  // One estimate per milestone and call: the newest report wins; older ones are kept as raw only.
  const newestEstimate = new Map<string, { e: NormalisedEvent; m: Milestone }>();
  for (const p of produced) {
    if (!p.m.estimated) continue;
    const key = `${p.m.event}|${p.e.call?.key ?? p.m.locationLocode ?? ""}`;
    const current = newestEstimate.get(key);
    if (!current || p.e.createdMs >= current.e.createdMs) newestEstimate.set(key, p);
  }
  // One actual per identity (src/tracking/identity.ts): a carrier that corrects the time of a move reports it again;
  // the newest report wins, the older ones are kept as raw only.
  const newestActual = new Map<string, { e: NormalisedEvent; m: Milestone }>();
  for (const p of produced) {
    if (p.m.estimated) continue;
    const key = milestoneIdentity(p.m);
    const current = newestActual.get(key);
    if (!current || p.e.createdMs >= current.e.createdMs) newestActual.set(key, p);
  }
  const kept = new Set([...newestEstimate.values(), ...newestActual.values()]);
  const milestones: Milestone[] = [];
  for (const p of produced) {
    if (!kept.has(p)) unmapped.add(p.e.raw);
    else milestones.push(p.m);
  }
  milestones.sort((a, b) => (a.timestamp < b.timestamp ? -1 : a.timestamp > b.timestamp ? 1 : 0));
  for (const m of milestones) unmapped.delete(m.raw);

  const sizeTypeCode = newest(equipment.filter((e) => e.isoCode))?.isoCode ?? null;
  const sealed = equipment.filter((e) => e.seals.length > 0).sort((a, b) => a.atMs - b.atMs);
  return {
    number,
    sizeTypeCode,
    sealNumber: sealed.at(-1)?.seals[0] ?? null,
    ...decodeSizeType(sizeTypeCode),
    weightInLbs: null,
    emptyOutAt: firstActualAt(milestones, `${T}empty_out`),
    polFullInAt: firstActualAt(milestones, `${T}full_in`),
    polVesselLoadedAt: firstActualAt(milestones, `${T}vessel_loaded`),
    polVesselDepartedAt: firstActualAt(milestones, `${T}vessel_departed`),
    milestones,
    unmappedEvents: [...unmapped],
  };
}

// ---------------------------------------------------------------------------------------------------------------
// HTTP

type FetchOutcome =
  | { kind: "ok"; events: unknown[] }
  | { kind: "not_found" }
  | {
      kind: "temporary_failure";
      reason: "shipping_line_unreachable" | "unrecognized_response" | "shipping_line_credentials_rejected";
    };

const unreachable = { kind: "temporary_failure", reason: "shipping_line_unreachable" } as const;
const unrecognized = { kind: "temporary_failure", reason: "unrecognized_response" } as const;
const credentialsRejected = { kind: "temporary_failure", reason: "shipping_line_credentials_rejected" } as const;

/** The TNT 2.2 query parameter for a request type. */
function filterFor(
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

async function fetchAllEvents(
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

/** Not found: a container is `failed`, a BL/booking may not be manifested yet (DESIGN.md §4 step 2). */
const notFoundFor = (request: LookupRequest): LookupResult =>
  request.requestType === "container" ? { kind: "not_found" } : { kind: "awaiting_manifest" };

/**
 * The DCSA Track & Trace 2.2 carrier source for the configured SCACs (see {@link parseDcsaSources}); a SCAC is
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
 * Mapping (../shared/data/dcsa-to-transport-events.csv): EQUIPMENT events per `equipmentReference`; TRANSPORT
 * events (ARRI/DEPA) per transport call, fanned out to the boxes seen on that call (or every box for a call none is
 * seen at yet); SHIPMENT events produce no milestone. Vessel calls: POL = first LOAD/DEPA, POD = last ARRI/DISC,
 * others transshipment; BARGE → `feeder_*`; RAIL after the POD → `rail_*`, with the last rail arrival the inland
 * destination; gates per {@link mapGate}; `ACT` → actual, `EST`/`PLN` → estimated, the newest estimate per call
 * wins, and one actual per identity (src/tracking/identity.ts: a corrected time is reported again, the newest report
 * wins). A call is one mode's (`modeOfTransport` + `transportCallID`): truck and rail moves never take a vessel from a
 * vessel call that shares their id. Every event received ends up in a milestone's `raw` or in an `unmappedEvents` list.
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

// ---------------------------------------------------------------------------------------------------------------
// Event subscriptions (TNT 2.2 `/v2/event-subscriptions`, issue 13 §4)

/** What a subscription covers and where its events go. */
export interface DcsaSubscriptionRequest {
  /** `request_type` of the tracked reference: `container`, `booking_number`/`booking`, or a BL. */
  requestType: string;
  /** The number, as polled (`equipmentReference` / `carrierBookingReference` / `transportDocumentReference`). */
  number: string;
  /** Our callback endpoint (`callbackUrl`). */
  callbackUrl: string;
  /** The shared signing secret, base64 (TNT 2.2 `secret`, `format: byte`): sent once, in this POST only. */
  secretBase64: string;
}

/** Outcome of a subscription call to the carrier; `error` says why in words without any secret. */
export type DcsaSubscriptionOutcome =
  | { kind: "created"; subscriptionId: string }
  | { kind: "deleted" }
  | { kind: "failed"; error: string };

const createdSubscriptionSchema = z.object({ subscriptionID: z.string().min(1).max(200) }).passthrough();

function subscriptionCall(
  scac: string,
  config: DcsaSourceConfig,
  url: string,
  init: { method: "POST" | "DELETE"; body?: string },
  ctx: SourceContext,
  tokens: TokenBroker,
  timeoutMs: number,
): Promise<SubscriptionCallAnswer> {
  return sendSubscriptionCall(
    {
      url,
      ...init,
      headers: new Headers({ "API-Version": DCSA_API_VERSION, Accept: "application/json" }),
      timeoutMs,
      auth: { credentials: config.auth, tokens },
      label: `DCSA ${scac}`,
    },
    ctx,
  );
}

/**
 * Creates a TNT 2.2 event subscription at the carrier: `POST {baseUrl}/v2/event-subscriptions` with
 * `subscriptionBodyWithSecret` = `{callbackUrl, secret, eventType: ["TRANSPORT","EQUIPMENT"], <filter>: number}`,
 * the filter being the one polling uses ({@link filterFor}); TNT 2.2 ANDs the filters, so the subscription covers
 * exactly the tracked reference. SHIPMENT events are left out: they produce no milestone here. Expects `201` with a
 * `subscription` carrying `subscriptionID` (any 2xx with one is accepted). Auth as for polling (`authorizedFetch`).
 * Never throws; a refusal, an unreachable carrier or an answer without `subscriptionID` is `failed` with a reason
 * (status code or kind, never the body or a secret).
 */
export async function createDcsaSubscription(
  scac: string,
  config: DcsaSourceConfig,
  request: DcsaSubscriptionRequest,
  ctx: SourceContext,
  options: Pick<DcsaSourceOptions, "tokens" | "timeoutMs"> = {},
): Promise<DcsaSubscriptionOutcome> {
  const body = JSON.stringify({
    callbackUrl: request.callbackUrl,
    secret: request.secretBase64,
    eventType: ["TRANSPORT", "EQUIPMENT"],
    [filterFor(request.requestType)]: request.number,
  });
  const answer = await subscriptionCall(
    scac,
    config,
    `${config.baseUrl}/v2/event-subscriptions`,
    { method: "POST", body },
    ctx,
    options.tokens ?? createTokenBroker(),
    options.timeoutMs ?? DCSA_TIMEOUT_MS,
  );
  if (answer.kind === "failed") return answer;
  if (answer.status < 200 || answer.status > 299) return { kind: "failed", error: `answered ${answer.status}` };
  let json: unknown;
  try {
    json = JSON.parse(answer.body);
  } catch {
    return { kind: "failed", error: "answered a body that is not JSON" };
  }
  const parsed = createdSubscriptionSchema.safeParse(json);
  if (!parsed.success) return { kind: "failed", error: "answered without a subscriptionID" };
  return { kind: "created", subscriptionId: parsed.data.subscriptionID };
}

/**
 * Stops a TNT 2.2 event subscription: `DELETE {baseUrl}/v2/event-subscriptions/{subscriptionID}`. `204` (or any
 * 2xx) and `404` (the carrier no longer has it) count as deleted. Never throws.
 */
export async function deleteDcsaSubscription(
  scac: string,
  config: DcsaSourceConfig,
  subscriptionId: string,
  ctx: SourceContext,
  options: Pick<DcsaSourceOptions, "tokens" | "timeoutMs"> = {},
): Promise<DcsaSubscriptionOutcome> {
  const answer = await subscriptionCall(
    scac,
    config,
    `${config.baseUrl}/v2/event-subscriptions/${encodeURIComponent(subscriptionId)}`,
    { method: "DELETE" },
    ctx,
    options.tokens ?? createTokenBroker(),
    options.timeoutMs ?? DCSA_TIMEOUT_MS,
  );
  if (answer.kind === "failed") return answer;
  if ((answer.status >= 200 && answer.status <= 299) || answer.status === 404) return { kind: "deleted" };
  return { kind: "failed", error: `answered ${answer.status}` };
}
