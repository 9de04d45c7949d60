/**
 * The TNT 2.2 wire schemas (DCSA Track & Trace 2.2, `components/schemas`) of the events the carrier source reads:
 * only the fields we use; extra fields are allowed and ignored. Spec: DCSA's TNT_v2.2.0-resolved.yaml
 * (docs/carriers.md §DCSA Track & Trace).
 */
import { z } from "zod";
import { parseIsoWallClock } from "../timestamps";

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

/** TNT 2.2 `transportEvent`: a vessel, barge, rail or truck arriving or departing at a transport call. */
export const transportEventSchema = z
  .object({
    ...baseEventFields,
    eventType: z.literal("TRANSPORT"),
    transportEventTypeCode: text,
    transportCall: transportCallSchema,
    documentReferences: documentReferencesSchema,
  })
  .refine((e) => !!(e.transportEventTypeCode ?? e.eventTypeCode), "transportEventTypeCode is required");

/** TNT 2.2 `equipmentEvent`: one box loaded, discharged, gated in or out, dropped or picked up. */
export const equipmentEventSchema = z
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

/** TNT 2.2 `shipmentEvent`: a document (booking, transport document) changing state; no milestone here. */
export const shipmentEventSchema = z.object({
  ...baseEventFields,
  eventType: z.literal("SHIPMENT"),
  shipmentEventTypeCode: text,
  documentTypeCode: z.string(),
  documentID: z.string(),
});

/** A transport event as validated. */
export type TransportEvent = z.infer<typeof transportEventSchema>;
/** An equipment event as validated. */
export type EquipmentEvent = z.infer<typeof equipmentEventSchema>;
/** A shipment event as validated. */
export type ShipmentEvent = z.infer<typeof shipmentEventSchema>;
/** A TNT 2.2 `transportCall`: the call of a vessel, barge, train or truck at a place. */
export type TransportCall = z.infer<typeof transportCallSchema>;
