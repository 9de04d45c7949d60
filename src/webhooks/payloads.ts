import { type ContainerRow, serializeContainer } from "../containers/serializer";
import type { containerUpdatedEvents, estimatedEvents } from "../db/schema";
import type { Linkage, ResourceObject } from "../lib/jsonapi/types";
import { type PortRow, serializePort } from "../ports/serializer";
import { PORTS } from "../reference/generated/ports.ts";
import { TERMINALS } from "../reference/generated/terminals.ts";
import type { PortRecord, TerminalRecord } from "../reference/types";
import { type ShipmentView, serializeShipment } from "../shipments/serializer";
import { serializeTerminal, type TerminalRow } from "../terminals/serializer";
import { serializeTrackingRequest, type TrackingRequestRow } from "../tracking-requests/serializer";
import { serializeTransportEvent, type TransportEventRow } from "../transport-events/serializer";
import { vesselIdForImo, vesselResource } from "../vessels/serializer";
import { isWebhookEvent } from "./catalog";

/**
 * Webhook notification bodies (R §5.5, DECISIONS.md §Webhooks "Body"): the JSON:API document whose primary data is
 * the `webhook_notification`, with the `included` resources of its event family. Pure builders over rows: the
 * engine (src/tracking/box-writes.ts, persist.ts, consumers.ts, maintenance.ts) builds every real body with them
 * from the rows it writes, and {@link examplePayload} builds the example of each catalog event with the same
 * builders from a fixed sample journey (Yantian → Los Angeles, Fenix Marine Services, rail to Chicago).
 *
 * Deviations from the reference service, all on purpose: locations are `port` resources and facilities `terminal`
 * resources, as everywhere else in this API (the reference sometimes types inland places `metro_area` and rail
 * ramps `rail_terminal`); included containers carry empty `transport_events`/`raw_events` linkage (as the
 * reference's own examples do), follow the API for the events.
 */

/** `webhook_notification.delivery_status` (R §2.3). */
export type DeliveryStatus = "pending" | "succeeded" | "failed";

/** The `webhook_notification` resource, primary data of every delivered body (R §5.5 envelope). */
export interface WebhookNotificationResource {
  id: string;
  type: "webhook_notification";
  attributes: { id: string; event: string; delivery_status: DeliveryStatus; created_at: string };
  relationships: {
    reference_object: { data: Linkage };
    webhook: { data: Linkage };
    webhook_notification_logs: { data: Linkage[] };
  };
}

/** A delivered webhook body (R §5.5): `{data: webhook_notification, included: [...]}`. */
export interface WebhookPayloadDocument {
  data: WebhookNotificationResource;
  included: ResourceObject[];
}

/** What a notification says about itself (everything of the envelope but `included`). */
export interface NotificationEnvelope {
  notificationId: string;
  webhookId: string;
  event: string;
  /** When the notification was created (UTC ISO seconds); unchanged across retries. */
  createdAt: string;
  reference: Linkage;
  /** Shown in the body as sent: `pending` (R §2.3: what the payload shows while being delivered). */
  deliveryStatus?: DeliveryStatus;
}

/** The envelope of R §5.5 around `included`. The webhook itself is never included. */
export function notificationDocument(
  envelope: NotificationEnvelope,
  included: ResourceObject[],
): WebhookPayloadDocument {
  return {
    data: {
      id: envelope.notificationId,
      type: "webhook_notification",
      attributes: {
        id: envelope.notificationId,
        event: envelope.event,
        delivery_status: envelope.deliveryStatus ?? "pending",
        created_at: envelope.createdAt,
      },
      relationships: {
        reference_object: { data: envelope.reference },
        webhook: { data: { id: envelope.webhookId, type: "webhook" } },
        webhook_notification_logs: { data: [] },
      },
    },
    included,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Reference data (ports, terminals, vessels) straight from the compiled records: the D1 tables are seeded from the
// same records (src/reference/seed.ts), so no read is needed to include them.

const portsById = new Map(PORTS.map((p) => [p.id, p]));
const terminalsById = new Map(TERMINALS.map((t) => [t.id, t]));

function portRow(p: PortRecord): PortRow {
  return {
    id: p.id,
    code: p.code,
    name: p.name,
    city: p.city,
    stateAbbr: p.stateAbbr,
    countryCode: p.countryCode,
    latitude: p.latitude,
    longitude: p.longitude,
    timeZone: p.timeZone,
  };
}

function terminalRow(t: TerminalRecord): TerminalRow {
  return {
    id: t.id,
    name: t.name,
    nickname: t.nickname,
    firmsCode: t.firmsCode,
    smdgCode: t.smdgCode,
    bicFacilityCode: t.bicFacilityCode,
    portId: t.portId,
    street: t.street,
    city: t.city,
    state: t.state,
    stateAbbr: t.stateAbbr,
    zip: t.zip,
    country: t.country,
    countryCode: t.countryCode,
    timeZone: t.timeZone,
    latitude: t.latitude,
    longitude: t.longitude,
    validTo: t.validTo,
    facilityType: t.facilityType,
    providedData: null,
  };
}

/** The `port` resource with this id (reference data), or null. Serialised as `GET /ports/{id}` does, without terminals. */
export function portResourceById(id: string | null | undefined): ResourceObject | null {
  const p = id ? portsById.get(id) : undefined;
  return p ? serializePort(portRow(p)) : null;
}

/** The `terminal` resource with this id (reference data), or null. */
export function terminalResourceById(id: string | null | undefined): ResourceObject | null {
  const t = id ? terminalsById.get(id) : undefined;
  return t ? serializeTerminal(terminalRow(t)) : null;
}

export { vesselIdForImo, vesselResource };

// ---------------------------------------------------------------------------------------------------------------
// Reference objects of the event families that have no endpoint of their own (R §1.14).

/** A `container_updated_events` row as drizzle returns it. */
export type ContainerUpdatedEventRow = typeof containerUpdatedEvents.$inferSelect;
/** An `estimated_events` row as drizzle returns it. */
export type EstimatedEventRow = typeof estimatedEvents.$inferSelect;

/** `container_updated_event` (R §1.14): the changeset `{attribute: [before, after]}` of one update. */
export function serializeContainerUpdatedEvent(row: ContainerUpdatedEventRow): ResourceObject {
  return {
    id: row.id,
    type: "container_updated_event",
    attributes: {
      changeset: row.changeset,
      timestamp: row.timestamp,
      data_source: row.dataSource,
      timezone: row.timezone,
    },
    relationships: {
      container: { data: { id: row.containerId, type: "container" } },
      terminal: { data: row.terminalId ? { id: row.terminalId, type: "terminal" } : null },
      shipment: { data: { id: row.shipmentId, type: "shipment" } },
    },
  };
}

/** `estimated_event` (R §1.14): a new POD ETA of a shipment (`shipment.estimated.arrival`). */
export function serializeEstimatedEvent(row: EstimatedEventRow, vesselId: string | null): ResourceObject {
  return {
    id: row.id,
    type: "estimated_event",
    attributes: {
      created_at: row.createdAt,
      estimated_timestamp: row.estimatedTimestamp,
      voyage_number: row.voyageNumber,
      event: row.event,
      location_locode: row.locationLocode,
      data_source: row.dataSource,
      timezone: row.timezone,
    },
    relationships: {
      shipment: { data: { id: row.shipmentId, type: "shipment" } },
      port: { data: row.locationId ? { id: row.locationId, type: "port" } : null },
      vessel: { data: vesselId ? { id: vesselId, type: "vessel" } : null },
    },
  };
}

/** A `container.created` fact (R §1.14 `container_created_event`). */
export interface ContainerCreatedEvent {
  id: string;
  containerId: string;
  shipmentId: string;
  timestamp: string;
  timezone: string | null;
}

/** `container_created_event` (R §1.14). */
export function serializeContainerCreatedEvent(e: ContainerCreatedEvent): ResourceObject {
  return {
    id: e.id,
    type: "container_created_event",
    attributes: { timestamp: e.timestamp, timezone: e.timezone },
    relationships: {
      container: { data: { id: e.containerId, type: "container" } },
      shipment: { data: { id: e.shipmentId, type: "shipment" } },
    },
  };
}

/** A `container.pod_terminal_changed` fact (R §1.14 `container_pod_terminal_changed_event`). */
export interface PodTerminalChangedEvent {
  id: string;
  containerId: string;
  shipmentId: string;
  /** The new POD terminal (null when the line no longer names one). */
  terminalId: string | null;
  timestamp: string;
  dataSource: "shipping_line" | "terminal";
}

/** `container_pod_terminal_changed_event` (R §1.14): relationships container, terminal (the new one), shipment. */
export function serializePodTerminalChangedEvent(e: PodTerminalChangedEvent): ResourceObject {
  return {
    id: e.id,
    type: "container_pod_terminal_changed_event",
    attributes: { timestamp: e.timestamp, data_source: e.dataSource },
    relationships: {
      container: { data: { id: e.containerId, type: "container" } },
      terminal: { data: e.terminalId ? { id: e.terminalId, type: "terminal" } : null },
      shipment: { data: { id: e.shipmentId, type: "shipment" } },
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// `included` per event family (R §5.5 table).

/** What a transport event's body includes besides the event itself, in R §5.5's order. */
type TransportShape = "full" | "event_only" | "none";
type IncludedPart = "shipment" | "container" | "location" | "terminal" | "vessel";

const PARTS_BY_EVENT: Record<string, readonly IncludedPart[]> = {};
const SHAPE_BY_EVENT: Record<string, TransportShape> = {};
function shape(events: string[], parts: IncludedPart[] | TransportShape): void {
  for (const e of events) {
    if (Array.isArray(parts)) {
      PARTS_BY_EVENT[e] = parts;
      SHAPE_BY_EVENT[e] = "full";
    } else SHAPE_BY_EVENT[e] = parts;
  }
}
const t = (...names: string[]) => names.map((n) => `container.transport.${n}`);
shape(t("empty_out"), ["shipment", "container", "location"]);
shape(t("full_in", "empty_in", "rail_loaded", "rail_departed"), ["shipment", "container", "location"]);
shape(
  t(
    "vessel_loaded",
    "vessel_departed",
    "vessel_arrived",
    "transshipment_arrived",
    "transshipment_discharged",
    "transshipment_loaded",
    "transshipment_departed",
    "feeder_arrived",
    "feeder_discharged",
    "feeder_loaded",
    "feeder_departed",
  ),
  ["shipment", "container", "location", "vessel"],
);
shape(t("vessel_berthed", "vessel_discharged"), ["shipment", "container", "location", "terminal", "vessel"]);
shape(t("full_out"), ["shipment", "container", "location", "terminal"]);
shape(t("rail_arrived", "rail_unloaded"), ["shipment", "container", "location", "terminal"]);
shape(
  [...t("arrived_at_inland_destination", "estimated.arrived_at_inland_destination"), "container.pickup_lfd.changed"],
  ["shipment", "container", "location", "terminal"],
);
shape(t("available", "not_available", "delivered"), "none");
shape(
  [
    ...t("estimated.vessel_departed", "estimated.vessel_arrived"),
    "container.pickup_lfd_line.changed",
    "container.pickup_lfd_terminal.changed",
    "container.pickup_lfd_rail.changed",
    "container.pickup_appointment.changed",
    "document.extracted",
    "document.extraction_failed",
  ],
  "event_only",
);

/** Whether `event` is announced with a `transport_event` as its reference object (R §1.14). */
export function isTransportEventFamily(event: string): boolean {
  return event in SHAPE_BY_EVENT;
}

/** Rows a transport event's body is built from. `container` and `shipment` hold the values after the change. */
export interface TransportEventFacts {
  event: TransportEventRow;
  container: ContainerRow | null;
  shipment: ShipmentView | null;
}

/**
 * `included` of a `container.transport.*`, `container.pickup_lfd*.changed` or
 * `container.pickup_appointment.changed` notification (R §5.5): shipment, container, location port, terminal,
 * vessel and the transport event for the milestone families; the transport event alone, without relationships,
 * for estimates and the terminal/rail LFD and appointment changes; nothing for available / not_available /
 * delivered (their reference object is the transport event). A part that is unknown (no terminal yet) is left out.
 */
export function transportEventIncluded(facts: TransportEventFacts): ResourceObject[] {
  const name = facts.event.event;
  const kind = SHAPE_BY_EVENT[name] ?? "full";
  const row = facts.event;
  const resource = serializeTransportEvent(row);
  const vessel = vesselResource(row.vesselName, row.vesselImo);
  if (vessel) {
    resource.relationships = { ...resource.relationships, vessel: { data: { id: vessel.id, type: "vessel" } } };
  }
  if (kind === "none") return [];
  if (kind === "event_only") {
    const { relationships: _omitted, ...bare } = resource;
    return [bare];
  }
  const parts = PARTS_BY_EVENT[name] ?? ["shipment", "container", "location", "terminal", "vessel"];
  const included: ResourceObject[] = [];
  for (const part of parts) {
    const r =
      part === "shipment"
        ? facts.shipment && serializeShipment(facts.shipment)
        : part === "container"
          ? facts.container && serializeContainer(facts.container)
          : part === "location"
            ? portResourceById(row.locationId)
            : part === "terminal"
              ? terminalResourceById(row.terminalId)
              : vessel;
    if (r) included.push(r);
  }
  included.push(resource);
  return included;
}

/** `included` of `container.updated` (R §5.5): shipment, POD port, terminal, container, container_updated_event. */
export function containerUpdatedIncluded(
  event: ContainerUpdatedEventRow,
  container: ContainerRow | null,
  shipment: ShipmentView | null,
): ResourceObject[] {
  return [
    shipment && serializeShipment(shipment),
    portResourceById(shipment?.portOfDischargeId),
    terminalResourceById(event.terminalId),
    container && serializeContainer(container),
    serializeContainerUpdatedEvent(event),
  ].filter((r): r is ResourceObject => r !== null);
}

/** `included` of `container.created` (R §5.5): shipment, container, container_created_event. */
export function containerCreatedIncluded(
  event: ContainerCreatedEvent,
  container: ContainerRow | null,
  shipment: ShipmentView | null,
): ResourceObject[] {
  return [
    shipment && serializeShipment(shipment),
    container && serializeContainer(container),
    serializeContainerCreatedEvent(event),
  ].filter((r): r is ResourceObject => r !== null);
}

/**
 * `included` of `container.pod_terminal_changed` (R §5.5): shipment, container, the new terminal,
 * container_pod_terminal_changed_event.
 */
export function podTerminalChangedIncluded(
  event: PodTerminalChangedEvent,
  container: ContainerRow | null,
  shipment: ShipmentView | null,
): ResourceObject[] {
  return [
    shipment && serializeShipment(shipment),
    container && serializeContainer(container),
    terminalResourceById(event.terminalId),
    serializePodTerminalChangedEvent(event),
  ].filter((r): r is ResourceObject => r !== null);
}

/** `included` of `shipment.estimated.arrival` (R §5.5): shipment, POD port, vessel when known, estimated_event. */
export function estimatedArrivalIncluded(
  event: EstimatedEventRow,
  shipment: ShipmentView | null,
  vessel: { name: string | null; imo: string | null } | null,
): ResourceObject[] {
  const vesselObject = vessel ? vesselResource(vessel.name, vessel.imo) : null;
  return [
    shipment && serializeShipment(shipment),
    portResourceById(event.locationId),
    vesselObject,
    serializeEstimatedEvent(event, vesselObject?.id ?? null),
  ].filter((r): r is ResourceObject => r !== null);
}

/** The `tracking_request.*` events. */
export type TrackingRequestEvent =
  | "tracking_request.succeeded"
  | "tracking_request.failed"
  | "tracking_request.awaiting_manifest"
  | "tracking_request.tracking_stopped";

/**
 * `included` of a `tracking_request.*` notification (R §5.5): `succeeded` → the containers, the shipment and the
 * request; `tracking_stopped` → the shipment (with `line_tracking_stopped_*`) and the request; `failed` and
 * `awaiting_manifest` → the request alone. `request` holds the row after the change.
 */
export function trackingRequestIncluded(
  event: TrackingRequestEvent,
  request: TrackingRequestRow,
  shipment: ShipmentView | null,
  containers: ContainerRow[],
): ResourceObject[] {
  const included: ResourceObject[] = [];
  if (event === "tracking_request.succeeded") for (const c of containers) included.push(serializeContainer(c));
  if ((event === "tracking_request.succeeded" || event === "tracking_request.tracking_stopped") && shipment) {
    included.push(serializeShipment(shipment));
  }
  included.push(serializeTrackingRequest(request));
  return included;
}

// ---------------------------------------------------------------------------------------------------------------
// Examples (GET /webhook_notifications/examples, POST /webhooks/trigger).

/** Ids of the example documents (fixed, so examples are stable; none of them is a real resource). */
export const EXAMPLE_IDS = {
  notification: "0192b6a4-1c2d-7e3f-8a4b-5c6d7e8f9a0b",
  webhook: "0192b6a4-0000-7000-8000-00000000b001",
  trackingRequest: "0192b6a4-0000-7000-8000-00000000a001",
  shipment: "0192b6a4-0000-7000-8000-00000000c001",
  container: "0192b6a4-0000-7000-8000-00000000d001",
  transportEvent: "0192b6a4-0000-7000-8000-00000000e001",
  updatedEvent: "0192b6a4-0000-7000-8000-00000000e002",
  estimatedEvent: "0192b6a4-0000-7000-8000-00000000e003",
  createdEvent: "0192b6a4-0000-7000-8000-00000000e004",
  podTerminalChangedEvent: "0192b6a4-0000-7000-8000-00000000e005",
} as const;

const EXAMPLE_NOW = "2025-06-03T14:05:12Z";
const EXAMPLE_VESSEL = { name: "MAERSK EMDEN", imo: "9456783", voyage: "452E" };

function requiredPort(locode: string): PortRecord {
  const p = PORTS.find((x) => x.code === locode);
  if (!p) throw new Error(`example port ${locode} missing from reference data`);
  return p;
}
function requiredTerminal(code: string): TerminalRecord {
  const found = TERMINALS.find((x) => x.firmsCode === code || x.bicFacilityCode === code);
  if (!found) throw new Error(`example terminal ${code} missing from reference data`);
  return found;
}

function exampleRows() {
  const pol = requiredPort("CNYTN");
  const pod = requiredPort("USLAX");
  const inland = requiredPort("USCHI");
  const fenix = requiredTerminal("Y257");
  const ramp = requiredTerminal("USCHIBNSF");
  const shipment: ShipmentView = {
    id: EXAMPLE_IDS.shipment,
    accountId: "example",
    billOfLadingNumber: "MAEU221876618",
    normalizedNumber: "MAEU221876618",
    refNumbers: ["PO-48213"],
    tags: ["example"],
    shippingLineScac: "MAEU",
    customerId: null,
    portOfLadingId: pol.id,
    portOfLadingLocode: pol.code,
    portOfLadingName: pol.name,
    portOfDischargeId: pod.id,
    portOfDischargeLocode: pod.code,
    portOfDischargeName: pod.name,
    podTerminalId: fenix.id,
    destinationId: inland.id,
    destinationLocode: inland.code,
    destinationName: inland.name,
    destinationTerminalId: ramp.id,
    podVesselName: EXAMPLE_VESSEL.name,
    podVesselImo: EXAMPLE_VESSEL.imo,
    podVoyageNumber: EXAMPLE_VESSEL.voyage,
    polEtdAt: "2025-05-10T08:00:00Z",
    polAtdAt: "2025-05-10T11:20:00Z",
    polOriginalEtdAt: "2025-05-10T08:00:00Z",
    podEtaAt: "2025-06-02T14:00:00Z",
    podOriginalEtaAt: "2025-05-31T14:00:00Z",
    podAtaAt: "2025-06-02T15:30:00Z",
    destinationEtaAt: "2025-06-09T10:00:00Z",
    destinationAtaAt: null,
    destinationOriginalEtaAt: "2025-06-08T10:00:00Z",
    polTimezone: "Asia/Shanghai",
    podTimezone: pod.timeZone,
    destinationTimezone: inland.timeZone,
    lineTrackingLastAttemptedAt: EXAMPLE_NOW,
    lineTrackingLastSucceededAt: EXAMPLE_NOW,
    lineTrackingStoppedAt: null,
    lineTrackingStoppedReason: null,
    lineTrackingFailedReason: null,
    createdAt: "2025-05-08T09:12:44Z",
    updatedAt: EXAMPLE_NOW,
    containerIds: [EXAMPLE_IDS.container],
    customerName: null,
  };
  const container: ContainerRow = {
    id: EXAMPLE_IDS.container,
    accountId: "example",
    shipmentId: EXAMPLE_IDS.shipment,
    trackedEquipmentId: null,
    number: "MRKU3700927",
    refNumbers: [],
    sealNumber: "ML-CN4417392",
    equipmentType: "dry",
    equipmentLength: 40,
    equipmentHeight: "high_cube",
    weightInLbs: 39_683,
    currentStatus: "available",
    availabilityKnown: true,
    availableForPickup: true,
    holdsAtPodTerminal: [],
    feesAtPodTerminal: [],
    pickupLfdTerminal: "2025-06-07T07:00:00Z",
    pickupLfdRail: null,
    pickupLfdLine: "2025-06-08T07:00:00Z",
    pickupLfd: "2025-06-08T07:00:00Z",
    pickupAppointmentAt: "2025-06-04T16:00:00Z",
    emptyOutAt: "2025-05-06T02:10:00Z",
    polFullInAt: "2025-05-07T13:40:00Z",
    polVesselLoadedAt: "2025-05-09T22:05:00Z",
    polVesselDepartedAt: "2025-05-10T11:20:00Z",
    podArrivedAt: "2025-06-02T15:30:00Z",
    podDischargedAt: "2025-06-03T09:47:00Z",
    podFullOutAt: null,
    podFullOutChassisNumber: null,
    locationAtPodTerminal: "Yard Row 14",
    terminalCheckedAt: EXAMPLE_NOW,
    finalDestinationFullOutAt: null,
    emptyTerminatedAt: null,
    deliveredAt: null,
    podTimezone: pod.timeZone,
    finalDestinationTimezone: null,
    emptyTerminatedTimezone: null,
    podRailCarrierScac: null,
    indRailCarrierScac: null,
    podLastTrackingRequestAt: EXAMPLE_NOW,
    shipmentLastTrackingRequestAt: EXAMPLE_NOW,
    railLastTrackingRequestAt: null,
    terminalTrackingLastAttemptedAt: EXAMPLE_NOW,
    terminalTrackingFailedReason: null,
    railTrackingLastAttemptedAt: null,
    railTrackingFailedReason: null,
    podRailLoadedAt: null,
    podRailDepartedAt: null,
    indEtaAt: null,
    indAtaAt: null,
    indRailUnloadedAt: null,
    podTerminalId: fenix.id,
    pickupFacilityId: null,
    podLocode: pod.code,
    scac: "MAEU",
    createdAt: "2025-05-08T09:12:51Z",
    updatedAt: EXAMPLE_NOW,
  };
  const request: TrackingRequestRow = {
    id: EXAMPLE_IDS.trackingRequest,
    accountId: "example",
    requestType: "bill_of_lading",
    requestNumber: "MAEU221876618",
    normalizedNumber: "MAEU221876618",
    compactNumber: "MAEU221876618",
    scac: "MAEU",
    lineScac: "MAEU",
    autoDetectScac: false,
    refNumbers: ["PO-48213"],
    shipmentTags: ["example"],
    status: "created",
    failedReason: null,
    isRetrying: false,
    retryCount: null,
    customerId: null,
    shipmentId: EXAMPLE_IDS.shipment,
    nextAttemptAt: null,
    createdAt: "2025-05-08T09:12:40Z",
    updatedAt: "2025-05-08T09:12:51Z",
  };
  return { pol, pod, inland, fenix, ramp, shipment, container, request };
}

/** Where and when each transport event of the example journey happens. */
function exampleTransportEvent(event: string, rows: ReturnType<typeof exampleRows>): TransportEventRow {
  const { pol, pod, inland, fenix, ramp } = rows;
  const name = event.replace("container.transport.", "");
  const atOrigin = ["empty_out", "full_in", "vessel_loaded", "vessel_departed", "estimated.vessel_departed"];
  const onRail = ["rail_loaded", "rail_departed"];
  const inlandEvents = [
    "rail_arrived",
    "rail_unloaded",
    "arrived_at_inland_destination",
    "estimated.arrived_at_inland_destination",
  ];
  const lfdOrAppointment = event.startsWith("container.pickup_");
  const place = atOrigin.includes(name)
    ? pol
    : name.startsWith("transshipment_") || name.startsWith("feeder_")
      ? requiredPort("KRPUS")
      : inlandEvents.includes(name) || event === "container.pickup_lfd_rail.changed"
        ? inland
        : pod;
  const terminal = inlandEvents.includes(name)
    ? ramp
    : place === pod && !onRail.includes(name) && !atOrigin.includes(name)
      ? fenix
      : null;
  const onVessel =
    ["vessel_loaded", "vessel_departed", "vessel_arrived", "vessel_berthed", "vessel_discharged"].includes(name) ||
    name.startsWith("transshipment_") ||
    name.startsWith("feeder_") ||
    name.startsWith("estimated.vessel_");
  const value =
    event === "container.pickup_lfd.changed" || event === "container.pickup_lfd_line.changed"
      ? "2025-06-08T07:00:00Z"
      : event === "container.pickup_lfd_terminal.changed"
        ? "2025-06-07T07:00:00Z"
        : event === "container.pickup_lfd_rail.changed"
          ? "2025-06-12T05:00:00Z"
          : event === "container.pickup_appointment.changed"
            ? "2025-06-04T16:00:00Z"
            : null;
  const fromTerminal =
    lfdOrAppointment && event !== "container.pickup_lfd_line.changed"
      ? true
      : ["available", "not_available", "full_out"].includes(name);
  return {
    id: EXAMPLE_IDS.transportEvent,
    accountId: "example",
    containerId: EXAMPLE_IDS.container,
    shipmentId: EXAMPLE_IDS.shipment,
    event,
    voyageNumber: onVessel ? EXAMPLE_VESSEL.voyage : null,
    timestamp: value ?? "2025-06-03T09:47:00Z",
    timezone: place.timeZone,
    locationLocode: place.code,
    locationId: place.id,
    terminalId: terminal?.id ?? null,
    vesselName: onVessel ? EXAMPLE_VESSEL.name : null,
    vesselImo: onVessel ? EXAMPLE_VESSEL.imo : null,
    value,
    dataSource: fromTerminal ? "terminal" : "shipping_line",
    invalidatedAt: null,
    createdAt: EXAMPLE_NOW,
    // Payload bodies are serialised from the bare row: `source_event` stays null in them.
    rawEventId: null,
  };
}

/** Options of {@link examplePayload}: the ids and time the example envelope shows. */
export interface ExampleOptions {
  notificationId?: string;
  webhookId?: string;
  createdAt?: string;
}

/**
 * A realistic notification document for any of the 43 catalog events (R §2.6), built with the same builders as
 * real deliveries from a fixed sample journey (MAEU bill of lading MAEU221876618, container MRKU3700927, Yantian →
 * Los Angeles at Fenix Marine Services, rail to Chicago). `GET /webhook_notifications/examples?event=` answers it
 * and `POST /webhooks/trigger` sends it (DECISIONS.md §Webhooks). Its ids are fixed example ids
 * ({@link EXAMPLE_IDS}) unless given.
 * @throws Error when `event` is not a catalog event (callers validate with `isWebhookEvent` first).
 */
export function examplePayload(event: string, options: ExampleOptions = {}): WebhookPayloadDocument {
  if (!isWebhookEvent(event)) throw new Error(`not a webhook event: ${event}`);
  const rows = exampleRows();
  const createdAt = options.createdAt ?? EXAMPLE_NOW;
  const envelope = (reference: Linkage): NotificationEnvelope => ({
    notificationId: options.notificationId ?? EXAMPLE_IDS.notification,
    webhookId: options.webhookId ?? EXAMPLE_IDS.webhook,
    event,
    createdAt,
    reference,
  });
  if (event.startsWith("tracking_request.")) {
    const e = event as TrackingRequestEvent;
    const request: TrackingRequestRow =
      e === "tracking_request.failed"
        ? { ...rows.request, status: "failed", failedReason: "not_found", shipmentId: null }
        : e === "tracking_request.awaiting_manifest"
          ? { ...rows.request, status: "awaiting_manifest", shipmentId: null }
          : e === "tracking_request.tracking_stopped"
            ? { ...rows.request, status: "tracking_stopped", updatedAt: createdAt }
            : rows.request;
    const shipment: ShipmentView =
      e === "tracking_request.tracking_stopped"
        ? { ...rows.shipment, lineTrackingStoppedAt: createdAt, lineTrackingStoppedReason: "all_containers_terminated" }
        : rows.shipment;
    return notificationDocument(
      envelope({ id: request.id, type: "tracking_request" }),
      trackingRequestIncluded(e, request, shipment, [rows.container]),
    );
  }
  if (event === "container.updated") {
    const row: ContainerUpdatedEventRow = {
      id: EXAMPLE_IDS.updatedEvent,
      accountId: "example",
      containerId: rows.container.id,
      shipmentId: rows.shipment.id,
      terminalId: rows.fenix.id,
      changeset: {
        available_for_pickup: [false, true],
        holds_at_pod_terminal: [[{ name: "customs", status: "hold", description: "CBP exam hold" }], []],
      },
      timestamp: createdAt,
      timezone: rows.pod.timeZone,
      dataSource: "terminal",
      createdAt,
    };
    return notificationDocument(
      envelope({ id: row.id, type: "container_updated_event" }),
      containerUpdatedIncluded(row, rows.container, rows.shipment),
    );
  }
  if (event === "container.created") {
    const e: ContainerCreatedEvent = {
      id: EXAMPLE_IDS.createdEvent,
      containerId: rows.container.id,
      shipmentId: rows.shipment.id,
      timestamp: rows.container.createdAt,
      timezone: "Etc/UTC",
    };
    const fresh: ContainerRow = {
      ...rows.container,
      currentStatus: "on_ship",
      availabilityKnown: false,
      availableForPickup: null,
      podArrivedAt: null,
      podDischargedAt: null,
      pickupLfd: null,
      pickupLfdLine: null,
      pickupLfdTerminal: null,
      pickupAppointmentAt: null,
      locationAtPodTerminal: null,
      terminalCheckedAt: null,
    };
    return notificationDocument(
      envelope({ id: e.id, type: "container_created_event" }),
      containerCreatedIncluded(e, fresh, rows.shipment),
    );
  }
  if (event === "container.pod_terminal_changed") {
    const e: PodTerminalChangedEvent = {
      id: EXAMPLE_IDS.podTerminalChangedEvent,
      containerId: rows.container.id,
      shipmentId: rows.shipment.id,
      terminalId: rows.fenix.id,
      timestamp: createdAt,
      dataSource: "shipping_line",
    };
    return notificationDocument(
      envelope({ id: e.id, type: "container_pod_terminal_changed_event" }),
      podTerminalChangedIncluded(e, rows.container, rows.shipment),
    );
  }
  if (event === "shipment.estimated.arrival") {
    const row: EstimatedEventRow = {
      id: EXAMPLE_IDS.estimatedEvent,
      accountId: "example",
      shipmentId: rows.shipment.id,
      event,
      estimatedTimestamp: "2025-06-02T14:00:00Z",
      locationLocode: rows.pod.code,
      locationId: rows.pod.id,
      voyageNumber: EXAMPLE_VESSEL.voyage,
      timezone: rows.pod.timeZone,
      dataSource: "shipping_line",
      createdAt,
    };
    return notificationDocument(
      envelope({ id: row.id, type: "estimated_event" }),
      estimatedArrivalIncluded(row, rows.shipment, { name: EXAMPLE_VESSEL.name, imo: EXAMPLE_VESSEL.imo }),
    );
  }
  const row = exampleTransportEvent(event, rows);
  return notificationDocument(
    envelope({ id: row.id, type: "transport_event" }),
    transportEventIncluded({ event: row, container: rows.container, shipment: rows.shipment }),
  );
}
