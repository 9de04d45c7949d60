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

/**
 * Webhook notification bodies (docs/webhooks.md §Payloads, docs/decisions.md §Webhooks "Body"): the JSON:API document
 * whose primary data is the `webhook_notification`, with the `included` resources of its event family. Pure builders
 * over rows: the engine (src/tracking/box-writes.ts, persist.ts, consumers.ts, maintenance.ts) builds every real body
 * with them from the rows it writes, and examples.ts `examplePayload` builds the example of each catalog event with the
 * same builders from a fixed sample journey (Yantian → Los Angeles, Fenix Marine Services, rail to Chicago).
 *
 * Deviations from the reference service, all on purpose: locations are `port` resources and facilities `terminal`
 * resources, as everywhere else in this API (the reference sometimes types inland places `metro_area` and rail
 * ramps `rail_terminal`); included containers carry empty `transport_events`/`raw_events` linkage (as the
 * reference's own examples do), follow the API for the events.
 */

/** `webhook_notification.delivery_status` (docs/webhooks.md §Delivery status). */
export type DeliveryStatus = "pending" | "succeeded" | "failed";

/** The `webhook_notification` resource, primary data of every delivered body (docs/webhooks.md §Payloads envelope). */
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

/** A delivered webhook body (docs/webhooks.md §Payloads): `{data: webhook_notification, included: [...]}`. */
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
  /**
   * Shown in the body as sent: `pending` (docs/webhooks.md §Delivery status: what the payload shows while being
   * delivered).
   */
  deliveryStatus?: DeliveryStatus;
}

/** The envelope of docs/webhooks.md §Payloads around `included`. The webhook itself is never included. */
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
// Reference objects of the event families that have no endpoint of their own (docs/webhooks.md §Notification resource).

/** A `container_updated_events` row as drizzle returns it. */
export type ContainerUpdatedEventRow = typeof containerUpdatedEvents.$inferSelect;
/** An `estimated_events` row as drizzle returns it. */
export type EstimatedEventRow = typeof estimatedEvents.$inferSelect;

/**
 * `container_updated_event` (docs/webhooks.md §Notification resource): the changeset `{attribute: [before, after]}` of
 * one update.
 */
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

/**
 * `estimated_event` (docs/webhooks.md §Notification resource): a new POD ETA of a shipment
 * (`shipment.estimated.arrival`).
 */
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

/** A `container.created` fact (docs/webhooks.md §Notification resource `container_created_event`). */
export interface ContainerCreatedEvent {
  id: string;
  containerId: string;
  shipmentId: string;
  timestamp: string;
  timezone: string | null;
}

/** `container_created_event` (docs/webhooks.md §Notification resource). */
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

/**
 * A `container.pod_terminal_changed` fact (docs/webhooks.md §Notification resource
 * `container_pod_terminal_changed_event`).
 */
export interface PodTerminalChangedEvent {
  id: string;
  containerId: string;
  shipmentId: string;
  /** The new POD terminal (null when the line no longer names one). */
  terminalId: string | null;
  timestamp: string;
  dataSource: "shipping_line" | "terminal";
}

/**
 * `container_pod_terminal_changed_event` (docs/webhooks.md §Notification resource): relationships container, terminal
 * (the new one), shipment.
 */
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
// `included` per event family (docs/webhooks.md §Payloads table).

/** What a transport event's body includes besides the event itself, in docs/webhooks.md §Payloads's order. */
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

/**
 * Whether `event` is announced with a `transport_event` as its reference object
 * (docs/webhooks.md §Notification resource).
 */
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
 * `container.pickup_appointment.changed` notification (docs/webhooks.md §Payloads): shipment, container, location port,
 * terminal, vessel and the transport event for the milestone families; the transport event alone, without
 * relationships, for estimates and the terminal/rail LFD and appointment changes; nothing for available / not_available
 * / delivered (their reference object is the transport event). A part that is unknown (no terminal yet) is left out.
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

/**
 * `included` of `container.updated` (docs/webhooks.md §Payloads): shipment, POD port, terminal, container,
 * container_updated_event.
 */
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

/** `included` of `container.created` (docs/webhooks.md §Payloads): shipment, container, container_created_event. */
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
 * `included` of `container.pod_terminal_changed` (docs/webhooks.md §Payloads): shipment, container, the new terminal,
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

/**
 * `included` of `shipment.estimated.arrival` (docs/webhooks.md §Payloads): shipment, POD port, vessel when known,
 * estimated_event.
 */
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
 * `included` of a `tracking_request.*` notification (docs/webhooks.md §Payloads): `succeeded` → the containers, the
 * shipment and the request; `tracking_stopped` → the shipment (with `line_tracking_stopped_*`) and the request;
 * `failed` and `awaiting_manifest` → the request alone. `request` holds the row after the change.
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
