import { sql } from "drizzle-orm";
import { index, integer, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { CONTAINER_STATUSES } from "../../tracking/status";
import { accounts, parties } from "./accounts";
import type { StagedCustomFields } from "./custom-fields";
import { terminals } from "./reference";

/** A terminal hold as served in `holds_at_pod_terminal` (docs/api.md §Holds). */
export interface TerminalHold {
  name: "freight" | "customs" | "USDA" | "VACIS" | "TMF" | "other";
  status: "hold" | "pending";
  description: string | null;
}

/** A terminal fee as served in `fees_at_pod_terminal` (docs/api.md §Fees); `amount` in the local currency. */
export interface TerminalFee {
  type: "demurrage" | "extended_dwell_time" | "exam" | "total" | "other";
  amount: number;
  currency_code: string;
}

/**
 * Tracking requests (docs/api.md §Tracking request resource, docs/decisions.md §Tracking requests). `request_number` is
 * kept as sent; `normalized_number` (trimmed, upper-cased) is what duplicates are detected on. `scac` is null while
 * auto-detection runs. `shipment_id` is the `tracked_object` once tracking exists.
 */
export const trackingRequests = sqliteTable(
  "tracking_requests",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    requestType: text("request_type").notNull(),
    requestNumber: text("request_number").notNull(),
    normalizedNumber: text("normalized_number").notNull(),
    /** The normalised number without spaces and dashes, as carrier inference compares numbers. */
    compactNumber: text("compact_number").notNull().default(""),
    /** SCAC as sent (upper-cased); null while auto-detection runs. */
    scac: text("scac"),
    /** The line's own SCAC when `scac` is an alternative one (MEDU → MSCU): what duplicates are keyed on. */
    lineScac: text("line_scac"),
    autoDetectScac: integer("auto_detect_scac", { mode: "boolean" }).notNull().default(false),
    refNumbers: text("ref_numbers", { mode: "json" }).$type<string[]>().notNull().default([]),
    shipmentTags: text("shipment_tags", { mode: "json" }).$type<string[]>().notNull().default([]),
    status: text("status").notNull(),
    failedReason: text("failed_reason"),
    isRetrying: integer("is_retrying", { mode: "boolean" }).notNull().default(false),
    retryCount: integer("retry_count"),
    customerId: text("customer_id").references(() => parties.id),
    shipmentId: text("shipment_id"),
    /**
     * `initial_custom_fields` of the create, validated and staged (docs/api.md §Custom fields): the values the lookup
     * writes onto the shipment and containers it creates. Null when none were sent.
     */
    initialCustomFields: text("initial_custom_fields", { mode: "json" }).$type<StagedCustomFields | null>(),
    nextAttemptAt: text("next_attempt_at"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [
    index("tracking_requests_account_created_idx").on(t.accountId, t.createdAt, t.id),
    // One pending or created request per (number, line) in an account, enforced even under concurrent creates.
    uniqueIndex("tracking_requests_active_number_idx")
      .on(t.accountId, t.normalizedNumber, t.lineScac)
      .where(sql`status IN ('pending', 'created')`),
    index("tracking_requests_account_number_idx").on(t.accountId, t.normalizedNumber),
    // Cross-account history of a number for carrier inference (src/infer/service.ts).
    index("tracking_requests_compact_number_idx").on(t.compactNumber, t.status),
    index("tracking_requests_status_next_idx").on(t.status, t.nextAttemptAt),
  ],
);

/**
 * Shipments: one bill of lading or booking as tracked at the shipping line (docs/api.md §Shipment resource). Port and
 * terminal ids point at the reference tables; the LOCODE and name columns are what the serializer emits.
 */
export const shipments = sqliteTable(
  "shipments",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    billOfLadingNumber: text("bill_of_lading_number").notNull(),
    normalizedNumber: text("normalized_number").notNull(),
    refNumbers: text("ref_numbers", { mode: "json" }).$type<string[]>().notNull().default([]),
    tags: text("tags", { mode: "json" }).$type<string[]>().notNull().default([]),
    shippingLineScac: text("shipping_line_scac").notNull(),
    customerId: text("customer_id").references(() => parties.id),
    portOfLadingId: text("port_of_lading_id"),
    portOfLadingLocode: text("port_of_lading_locode"),
    portOfLadingName: text("port_of_lading_name"),
    portOfDischargeId: text("port_of_discharge_id"),
    portOfDischargeLocode: text("port_of_discharge_locode"),
    portOfDischargeName: text("port_of_discharge_name"),
    podTerminalId: text("pod_terminal_id").references(() => terminals.id),
    destinationId: text("destination_id"),
    destinationLocode: text("destination_locode"),
    destinationName: text("destination_name"),
    destinationTerminalId: text("destination_terminal_id"),
    podVesselName: text("pod_vessel_name"),
    podVesselImo: text("pod_vessel_imo"),
    podVoyageNumber: text("pod_voyage_number"),
    polEtdAt: text("pol_etd_at"),
    polAtdAt: text("pol_atd_at"),
    polOriginalEtdAt: text("pol_original_etd_at"),
    podEtaAt: text("pod_eta_at"),
    podOriginalEtaAt: text("pod_original_eta_at"),
    podAtaAt: text("pod_ata_at"),
    destinationEtaAt: text("destination_eta_at"),
    destinationAtaAt: text("destination_ata_at"),
    destinationOriginalEtaAt: text("destination_original_eta_at"),
    polTimezone: text("pol_timezone"),
    podTimezone: text("pod_timezone"),
    destinationTimezone: text("destination_timezone"),
    lineTrackingLastAttemptedAt: text("line_tracking_last_attempted_at"),
    lineTrackingLastSucceededAt: text("line_tracking_last_succeeded_at"),
    /**
     * Why the latest line-tracking attempt failed (an extension, issue 13 §1): `shipping_line_unreachable`,
     * `unrecognized_response`, or `shipping_line_credentials_rejected` (the line refused our credentials: a
     * configuration error); null when it succeeded.
     */
    lineTrackingFailedReason: text("line_tracking_failed_reason"),
    lineTrackingStoppedAt: text("line_tracking_stopped_at"),
    lineTrackingStoppedReason: text("line_tracking_stopped_reason"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [
    index("shipments_account_created_idx").on(t.accountId, t.createdAt, t.id),
    index("shipments_account_number_idx").on(t.accountId, t.normalizedNumber),
    // GET /v2/vessels/{imo} names a vessel a shipment will arrive on (src/vessels/service.ts).
    index("shipments_pod_vessel_imo_idx").on(t.podVesselImo),
    // The retention job's walk of stopped shipments from its cursor (src/archive/job.ts archiveRawEvents).
    index("shipments_tracking_stopped_idx")
      .on(t.lineTrackingStoppedAt)
      .where(sql`line_tracking_stopped_at IS NOT NULL`),
  ],
);

/**
 * Containers: one box on one shipment for one account (docs/api.md §Container resource). Holds and fees are JSON
 * arrays; the three import deadlines are columns and `pickup_lfd` is stored coalesced (docs/decisions.md).
 * `tracked_equipment_id` links the row to the shared Tracker of its box.
 */
/**
 * A container's `current_status` as its rank in journey order (CONTAINER_STATUSES), the ORDER BY term of
 * `GET /containers?sort=current_status` and the expression of `containers_account_status_order_idx`: SQLite uses an
 * expression index only for the very same expression, so both read this one.
 */
export const CONTAINER_STATUS_RANK = sql.raw(
  `(CASE "current_status" ${CONTAINER_STATUSES.map((s, i) => `WHEN '${s}' THEN ${i}`).join(" ")} END)`,
);

export const containers = sqliteTable(
  "containers",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    shipmentId: text("shipment_id")
      .notNull()
      .references(() => shipments.id),
    trackedEquipmentId: text("tracked_equipment_id"),
    number: text("number").notNull(),
    refNumbers: text("ref_numbers", { mode: "json" }).$type<string[]>().notNull().default([]),
    sealNumber: text("seal_number"),
    equipmentType: text("equipment_type"),
    equipmentLength: integer("equipment_length"),
    equipmentHeight: text("equipment_height"),
    weightInLbs: real("weight_in_lbs"),
    currentStatus: text("current_status").notNull().default("new"),
    availabilityKnown: integer("availability_known", { mode: "boolean" }).notNull().default(false),
    availableForPickup: integer("available_for_pickup", { mode: "boolean" }),
    holdsAtPodTerminal: text("holds_at_pod_terminal", { mode: "json" }).$type<TerminalHold[]>().notNull().default([]),
    feesAtPodTerminal: text("fees_at_pod_terminal", { mode: "json" }).$type<TerminalFee[]>().notNull().default([]),
    pickupLfdTerminal: text("pickup_lfd_terminal"),
    pickupLfdRail: text("pickup_lfd_rail"),
    pickupLfdLine: text("pickup_lfd_line"),
    pickupLfd: text("pickup_lfd"),
    pickupAppointmentAt: text("pickup_appointment_at"),
    emptyOutAt: text("empty_out_at"),
    polFullInAt: text("pol_full_in_at"),
    polVesselLoadedAt: text("pol_vessel_loaded_at"),
    polVesselDepartedAt: text("pol_vessel_departed_at"),
    podArrivedAt: text("pod_arrived_at"),
    podDischargedAt: text("pod_discharged_at"),
    podFullOutAt: text("pod_full_out_at"),
    podFullOutChassisNumber: text("pod_full_out_chassis_number"),
    locationAtPodTerminal: text("location_at_pod_terminal"),
    terminalCheckedAt: text("terminal_checked_at"),
    finalDestinationFullOutAt: text("final_destination_full_out_at"),
    emptyTerminatedAt: text("empty_terminated_at"),
    deliveredAt: text("delivered_at"),
    podTimezone: text("pod_timezone"),
    finalDestinationTimezone: text("final_destination_timezone"),
    emptyTerminatedTimezone: text("empty_terminated_timezone"),
    podRailCarrierScac: text("pod_rail_carrier_scac"),
    indRailCarrierScac: text("ind_rail_carrier_scac"),
    podLastTrackingRequestAt: text("pod_last_tracking_request_at"),
    shipmentLastTrackingRequestAt: text("shipment_last_tracking_request_at"),
    railLastTrackingRequestAt: text("rail_last_tracking_request_at"),
    /**
     * Extensions (issue 13 §1; the reference records no attempt for facilities): when the POD terminal / the inland
     * rail ramp was last asked about the box, answered or not, and why that attempt failed (null when it answered:
     * `terminal_unreachable`, `unrecognized_response`, `terminal_credentials_rejected`, or a source's own reason).
     * The reference's `pod_last_tracking_request_at` / `rail_last_tracking_request_at` move only on an answer.
     */
    terminalTrackingLastAttemptedAt: text("terminal_tracking_last_attempted_at"),
    terminalTrackingFailedReason: text("terminal_tracking_failed_reason"),
    railTrackingLastAttemptedAt: text("rail_tracking_last_attempted_at"),
    railTrackingFailedReason: text("rail_tracking_failed_reason"),
    podRailLoadedAt: text("pod_rail_loaded_at"),
    podRailDepartedAt: text("pod_rail_departed_at"),
    indEtaAt: text("ind_eta_at"),
    indAtaAt: text("ind_ata_at"),
    indRailUnloadedAt: text("ind_rail_unloaded_at"),
    podTerminalId: text("pod_terminal_id").references(() => terminals.id),
    pickupFacilityId: text("pickup_facility_id").references(() => terminals.id),
    /** Denormalised from the shipment for the `filter[pod_locode]` and `filter[scac]` filters. */
    podLocode: text("pod_locode"),
    scac: text("scac"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [
    index("containers_account_created_idx").on(t.accountId, t.createdAt, t.id),
    index("containers_account_number_idx").on(t.accountId, t.number),
    // Cross-account history of a box or an owner prefix for carrier inference (a range on the number).
    index("containers_number_idx").on(t.number),
    index("containers_account_status_idx").on(t.accountId, t.currentStatus, t.createdAt),
    index("containers_shipment_idx").on(t.shipmentId),
    index("containers_tracked_equipment_idx").on(t.trackedEquipmentId),
    // The orders of `GET /containers?sort=` (src/containers/list-order.ts; migration 0021): each walks the account's
    // range in order and stops at the page, instead of sorting every box of the account. `IS NULL` first puts boxes
    // without the value last.
    index("containers_account_scac_order_idx").on(t.accountId, sql`(${t.scac} IS NULL)`, t.scac, t.id),
    index("containers_account_pod_order_idx").on(t.accountId, sql`(${t.podLocode} IS NULL)`, t.podLocode, t.id),
    index("containers_account_lfd_order_idx").on(t.accountId, sql`(${t.pickupLfd} IS NULL)`, t.pickupLfd, t.id),
    index("containers_account_status_order_idx").on(t.accountId, CONTAINER_STATUS_RANK, t.id),
    index("containers_account_updated_idx").on(t.accountId, t.updatedAt, t.id),
  ],
);

/**
 * Vetted milestones of a container (docs/api.md §Transport event resource). `event` is one of the 35
 * `container.transport.*` names; `timestamp` is UTC with the local zone in `timezone`.
 */
export const transportEvents = sqliteTable(
  "transport_events",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    containerId: text("container_id")
      .notNull()
      .references(() => containers.id),
    shipmentId: text("shipment_id").notNull(),
    event: text("event").notNull(),
    voyageNumber: text("voyage_number"),
    timestamp: text("timestamp"),
    timezone: text("timezone"),
    locationLocode: text("location_locode"),
    locationId: text("location_id"),
    terminalId: text("terminal_id"),
    vesselName: text("vessel_name"),
    vesselImo: text("vessel_imo"),
    /**
     * New value of a `*.changed` event (an LFD or appointment time), else null (docs/api.md §Transport event resource
     * `value`).
     */
    value: text("value"),
    dataSource: text("data_source").notNull(),
    invalidatedAt: text("invalidated_at"),
    createdAt: text("created_at").notNull(),
    /**
     * Id of the `raw_events` row the event was recorded from (its `source_event`,
     * docs/api.md §Transport event resource), written with it in the same batch (src/tracking/box-writes.ts); null for
     * events no carrier feed row stands behind (terminal-made ones, `*.changed`) and for rows written before the column
     * whose raw event migration 0008 could not find. No foreign key: the link is provenance, read only to serialise it.
     */
    rawEventId: text("raw_event_id"),
  },
  (t) => [
    index("transport_events_container_idx").on(t.containerId, t.timestamp, t.id),
    // A vessel only events know (GET /v2/vessels/{id}, src/vessels/service.ts): its latest event, any account.
    index("transport_events_vessel_imo_idx").on(t.vesselImo, t.createdAt),
  ],
);

/**
 * `container.updated` facts (docs/webhooks.md §Payloads `container_updated_event`): the changeset
 * `{attribute: [old, new]}` of one update of one container.
 */
export const containerUpdatedEvents = sqliteTable(
  "container_updated_events",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    containerId: text("container_id")
      .notNull()
      .references(() => containers.id),
    shipmentId: text("shipment_id").notNull(),
    terminalId: text("terminal_id"),
    changeset: text("changeset", { mode: "json" }).$type<Record<string, [unknown, unknown]>>().notNull(),
    timestamp: text("timestamp").notNull(),
    timezone: text("timezone"),
    dataSource: text("data_source").notNull(),
    createdAt: text("created_at").notNull(),
  },
  (t) => [index("container_updated_events_container_idx").on(t.containerId, t.createdAt)],
);

/** `shipment.estimated.arrival` facts (docs/webhooks.md §Payloads `estimated_event`): a new POD ETA of a shipment. */
export const estimatedEvents = sqliteTable(
  "estimated_events",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    shipmentId: text("shipment_id")
      .notNull()
      .references(() => shipments.id),
    event: text("event").notNull(),
    estimatedTimestamp: text("estimated_timestamp").notNull(),
    locationLocode: text("location_locode"),
    locationId: text("location_id"),
    voyageNumber: text("voyage_number"),
    timezone: text("timezone"),
    dataSource: text("data_source").notNull(),
    createdAt: text("created_at").notNull(),
  },
  (t) => [index("estimated_events_shipment_idx").on(t.shipmentId, t.createdAt)],
);

/** Carrier feed rows as received (docs/api.md §Raw event resource), ordered by `index` per container. */
export const rawEvents = sqliteTable(
  "raw_events",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    containerId: text("container_id")
      .notNull()
      .references(() => containers.id),
    index: integer("index").notNull(),
    event: text("event").notNull(),
    originalEvent: text("original_event"),
    timestamp: text("timestamp"),
    estimated: integer("estimated", { mode: "boolean" }).notNull().default(false),
    actualOn: text("actual_on"),
    estimatedOn: text("estimated_on"),
    location: text("location"),
    locationLocode: text("location_locode"),
    vesselName: text("vessel_name"),
    vesselImo: text("vessel_imo"),
    voyageNumber: text("voyage_number"),
    timezone: text("timezone"),
    dataSource: text("data_source").notNull(),
    invalidatedAt: text("invalidated_at"),
    payload: text("payload", { mode: "json" }).$type<unknown>(),
    createdAt: text("created_at").notNull(),
  },
  (t) => [index("raw_events_container_idx").on(t.containerId, t.index)],
);

/**
 * One physical box being tracked (SCAC + container number), shared by every account that tracks it;
 * its Tracker Durable Object is named by `id`.
 */
export const trackedEquipment = sqliteTable(
  "tracked_equipment",
  {
    id: text("id").primaryKey(),
    scac: text("scac").notNull(),
    number: text("number").notNull(),
    /** Shipment number (BL/booking) the box is polled by at the carrier, and the request type it came from. */
    shipmentNumber: text("shipment_number"),
    requestType: text("request_type"),
    lastPolledAt: text("last_polled_at"),
    nextPollAt: text("next_poll_at"),
    stoppedAt: text("stopped_at"),
    createdAt: text("created_at").notNull(),
  },
  (t) => [
    uniqueIndex("tracked_equipment_scac_number_idx").on(t.scac, t.number),
    index("tracked_equipment_next_poll_idx").on(t.nextPollAt),
  ],
);

/** Which account's container row follows which tracked box. */
export const subscriptions = sqliteTable(
  "subscriptions",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    trackedEquipmentId: text("tracked_equipment_id")
      .notNull()
      .references(() => trackedEquipment.id),
    containerId: text("container_id")
      .notNull()
      .references(() => containers.id),
    createdAt: text("created_at").notNull(),
  },
  (t) => [
    uniqueIndex("subscriptions_container_idx").on(t.containerId),
    index("subscriptions_tracked_equipment_idx").on(t.trackedEquipmentId),
  ],
);
