/**
 * Example notification documents (GET /webhook_notifications/examples, POST /webhooks/trigger; docs/decisions.md
 * §Webhooks): one for each catalog event, built with the builders of real deliveries (payloads.ts) from a fixed sample
 * journey (Yantian → Los Angeles, Fenix Marine Services, rail to Chicago).
 */
import type { ContainerRow } from "../containers/serializer";
import type { Linkage } from "../lib/jsonapi/types";
import { PORTS } from "../reference/generated/ports.ts";
import { TERMINALS } from "../reference/generated/terminals.ts";
import type { PortRecord, TerminalRecord } from "../reference/types";
import type { ShipmentView } from "../shipments/serializer";
import type { TrackingRequestRow } from "../tracking-requests/serializer";
import type { TransportEventRow } from "../transport-events/serializer";
import { isWebhookEvent } from "./catalog";
import {
  type ContainerCreatedEvent,
  type ContainerUpdatedEventRow,
  containerCreatedIncluded,
  containerUpdatedIncluded,
  type EstimatedEventRow,
  estimatedArrivalIncluded,
  type NotificationEnvelope,
  notificationDocument,
  type PodTerminalChangedEvent,
  podTerminalChangedIncluded,
  type TrackingRequestEvent,
  trackingRequestIncluded,
  transportEventIncluded,
  type WebhookPayloadDocument,
} from "./payloads";

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
    initialCustomFields: null,
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
 * A realistic notification document for any of the 43 catalog events (docs/webhooks.md §Events), built with the same
 * builders as real deliveries from a fixed sample journey (MAEU bill of lading MAEU221876618, container MRKU3700927,
 * Yantian → Los Angeles at Fenix Marine Services, rail to Chicago). `GET /webhook_notifications/examples?event=`
 * answers it and `POST /webhooks/trigger` sends it (docs/decisions.md §Webhooks). Its ids are fixed example ids
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
