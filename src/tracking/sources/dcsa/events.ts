/**
 * TNT 2.2 events as the carrier source works with them: each response item validated against its wire schema
 * (wire.ts) and normalised ({@link parseEvents}): codes upper-cased, times in UTC ms, the place, the box and the
 * document references read out, the raw item kept.
 */
import { findPortByLocode } from "../../../reference/locations";
import { instantMs, parseIsoWallClock } from "../timestamps";
import {
  type EquipmentEvent,
  equipmentEventSchema,
  type ShipmentEvent,
  shipmentEventSchema,
  type TransportCall,
  type TransportEvent,
  transportEventSchema,
} from "./wire";

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

type Classifier = "ACT" | "PLN" | "EST";

/** A vessel, barge, rail or truck call, merged over every event that references it. */
export interface Call {
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

/** One TRANSPORT or EQUIPMENT event, validated and read out; `call` is set when the journey is built. */
export interface NormalisedEvent {
  type: "TRANSPORT" | "EQUIPMENT";
  code: string;
  classifier: Classifier;
  atMs: number;
  createdMs: number;
  id: string | null;
  raw: unknown;
  /** The event's own transport call as received, if any. */
  transportCall: TransportCall | null;
  /** The merged call it belongs to, set by `buildJourney` (journey.ts). */
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

/** A response's events by kind, normalised; SHIPMENT events are kept as received. */
export interface ParsedEvents {
  transport: NormalisedEvent[];
  equipment: NormalisedEvent[];
  shipment: { event: ShipmentEvent; raw: unknown }[];
  /** Events of an eventType TNT 2.2 does not define. */
  other: unknown[];
}

/** Trimmed text, or null for null, undefined or blank. */
export const clean = (v: string | null | undefined): string | null => {
  const t = v?.trim();
  return t ? t : null;
};
const upper = (v: string | null | undefined): string | null => clean(v)?.toUpperCase() ?? null;

/** The UN/LOCODE of a transport call (its own, else its location's), upper case. */
export function callLocode(call: TransportCall | null | undefined): string | null {
  return upper(call?.UNLocationCode) ?? upper(call?.location?.UNLocationCode);
}

/** The facility code of a transport call (its own, else its location's), upper case. */
export function callFacility(call: TransportCall | null | undefined): string | null {
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
export function parseEvents(items: unknown[]): ParsedEvents | null {
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
