/**
 * The webhook event catalog (docs/webhooks.md §Events): the 43 event names a webhook may subscribe to, the names of
 * `webhook_notification.event`, and the `event` parameter of `GET /webhook_notifications/examples` and
 * `POST /webhooks/trigger`. Grouped by category as `GET /webhooks/events` lists them.
 */

/** One event of the catalog: its name and what it means. */
export interface WebhookEventDescription {
  name: string;
  description: string;
}

/**
 * One category of `GET /webhooks/events` (docs/webhooks.md §Events `webhook_event_category`): slug id, display name,
 * events.
 */
export interface WebhookEventCategory {
  /** Slug id, e.g. `tracking-request-events` (docs/webhooks.md §Events). */
  id: string;
  name: string;
  events: readonly WebhookEventDescription[];
}

const transport = (name: string, description: string): WebhookEventDescription => ({
  name: `container.transport.${name}`,
  description,
});

/**
 * The catalog by category, in the order `GET /webhooks/events` lists it (docs/webhooks.md §Events "Event-catalog
 * categories"). Every one of the 43 events appears in exactly one category. The `document.*` events are sent by the
 * document extraction (src/documents/extraction-job.ts, docs/api.md §Documents "Extraction").
 */
export const WEBHOOK_EVENT_CATALOG: readonly WebhookEventCategory[] = [
  {
    id: "tracking-request-events",
    name: "Tracking Request Events",
    events: [
      {
        name: "tracking_request.succeeded",
        description: "The shipment was found and its tracking records were created.",
      },
      { name: "tracking_request.failed", description: "Tracking could not be created for the submitted number." },
      {
        name: "tracking_request.awaiting_manifest",
        description: "The shipping line knows the number but has no manifest yet; it is re-checked.",
      },
      {
        name: "tracking_request.tracking_stopped",
        description: "Tracking of the shipment stopped (all containers returned, stale, or stopped by the user).",
      },
    ],
  },
  {
    id: "transport-milestone-origin-events",
    name: "Transport Milestone Events - Origin",
    events: [
      transport("empty_out", "Empty container picked up at origin."),
      transport("full_in", "Full container gated in at the port of lading (POL)."),
      transport("vessel_loaded", "Container loaded on the vessel at the POL."),
      transport("vessel_departed", "Vessel departed the POL with the container."),
    ],
  },
  {
    id: "transport-milestone-transshipment-events",
    name: "Transport Milestone Events - Transshipment",
    events: [
      transport("transshipment_arrived", "Container arrived at a transshipment port."),
      transport("transshipment_discharged", "Container discharged at a transshipment port."),
      transport("transshipment_loaded", "Container loaded on the next vessel at a transshipment port."),
      transport("transshipment_departed", "Vessel departed a transshipment port with the container."),
    ],
  },
  {
    id: "transport-milestone-feeder-events",
    name: "Transport Milestone Events - Feeder",
    events: [
      transport("feeder_arrived", "Feeder vessel or barge arrived with the container."),
      transport("feeder_discharged", "Container discharged from a feeder vessel or barge."),
      transport("feeder_loaded", "Container loaded on a feeder vessel or barge."),
      transport("feeder_departed", "Feeder vessel or barge departed with the container."),
    ],
  },
  {
    id: "transport-milestone-destination-events",
    name: "Transport Milestone Events - Destination",
    events: [
      transport("vessel_arrived", "Vessel arrived at the port of discharge (POD)."),
      transport("vessel_berthed", "Vessel berthed at the POD terminal."),
      transport("vessel_discharged", "Container discharged at the POD."),
      transport("available", "Container became available for pickup at the destination."),
      transport("not_available", "Container is no longer available for pickup (e.g. a hold was placed)."),
      transport("full_out", "Full container gated out at the POD (or the rail terminal of an inland move)."),
      transport("delivered", "Container was marked delivered."),
      transport("empty_in", "Empty container returned."),
    ],
  },
  {
    id: "transport-milestone-rail-events",
    name: "Transport Milestone Events - Rail",
    events: [
      transport("rail_loaded", "Container loaded on a train."),
      transport("rail_departed", "Train departed with the container."),
      transport("rail_arrived", "Train arrived at a rail terminal (including interchanges)."),
      transport("rail_unloaded", "Container unloaded from the train."),
      transport("arrived_at_inland_destination", "Container arrived at its inland destination (rail moves only)."),
    ],
  },
  {
    id: "estimated-events",
    name: "Estimated Events",
    events: [
      transport("estimated.vessel_departed", "The estimated time of departure from the POL changed."),
      { name: "shipment.estimated.arrival", description: "The shipment's estimated arrival at the POD changed." },
      transport("estimated.vessel_arrived", "The vessel's estimated time of arrival changed."),
      transport(
        "estimated.arrived_at_inland_destination",
        "The estimated arrival at the inland destination changed (rail moves only).",
      ),
    ],
  },
  {
    id: "container-updates-events",
    name: "Container Updates Events",
    events: [
      { name: "container.created", description: "A container was added to a tracked shipment." },
      {
        name: "container.updated",
        description: "Container attributes changed; the changeset maps each attribute to [previous, current].",
      },
      {
        name: "container.pod_terminal_changed",
        description: "The container's POD terminal changed (an advisory on the water, an off-dock move at the port).",
      },
      { name: "container.pickup_lfd.changed", description: "The pickup last free day (LFD) changed." },
      { name: "container.pickup_lfd_line.changed", description: "The shipping line's pickup LFD changed." },
      { name: "container.pickup_lfd_terminal.changed", description: "The terminal's pickup LFD changed." },
      { name: "container.pickup_lfd_rail.changed", description: "The rail pickup LFD changed." },
      { name: "container.pickup_appointment.changed", description: "The pickup appointment changed." },
    ],
  },
  {
    id: "document-processing-events",
    name: "Document Processing Events",
    events: [
      { name: "document.extracted", description: "A document was read: its document_representation is stored." },
      {
        name: "document.extraction_failed",
        description: "A document could not be read (e.g. a scanned PDF without a text layer).",
      },
    ],
  },
];

/**
 * Every webhook event name, in the reference service's spec order (docs/webhooks.md §Events): the 35 transport-event
 * values of docs/api.md §Transport event names with the eight shipment, tracking request and container events after
 * `vessel_berthed`.
 */
export const WEBHOOK_EVENTS: readonly string[] = [
  "container.transport.vessel_arrived",
  "container.transport.estimated.vessel_arrived",
  "container.transport.vessel_discharged",
  "container.transport.vessel_loaded",
  "container.transport.vessel_departed",
  "container.transport.estimated.vessel_departed",
  "container.transport.rail_departed",
  "container.transport.rail_arrived",
  "container.transport.rail_loaded",
  "container.transport.rail_unloaded",
  "container.transport.transshipment_arrived",
  "container.transport.transshipment_discharged",
  "container.transport.transshipment_loaded",
  "container.transport.transshipment_departed",
  "container.transport.feeder_arrived",
  "container.transport.feeder_discharged",
  "container.transport.feeder_loaded",
  "container.transport.feeder_departed",
  "container.transport.empty_out",
  "container.transport.full_in",
  "container.transport.full_out",
  "container.transport.empty_in",
  "container.transport.vessel_berthed",
  "shipment.estimated.arrival",
  "tracking_request.succeeded",
  "tracking_request.failed",
  "tracking_request.awaiting_manifest",
  "tracking_request.tracking_stopped",
  "container.created",
  "container.updated",
  "container.pod_terminal_changed",
  "container.transport.arrived_at_inland_destination",
  "container.transport.estimated.arrived_at_inland_destination",
  "container.pickup_lfd.changed",
  "container.pickup_lfd_line.changed",
  "container.pickup_lfd_terminal.changed",
  "container.pickup_lfd_rail.changed",
  "container.pickup_appointment.changed",
  "container.transport.available",
  "container.transport.not_available",
  "container.transport.delivered",
  "document.extracted",
  "document.extraction_failed",
];

const EVENT_SET: ReadonlySet<string> = new Set(WEBHOOK_EVENTS);

/** Whether `name` is one of the 43 catalog events (docs/webhooks.md §Events). Exact, case-sensitive match. */
export function isWebhookEvent(name: string): boolean {
  return EVENT_SET.has(name);
}

/**
 * Extension events (not in the reference service's catalog, docs/webhooks.md §Events), delivered only to webhooks that
 * list them explicitly: a tracking source (a shipping line's API, a terminal's) refused our credentials, and later
 * accepted them again (issue 13 §1; src/tracking/source-outages.ts). An account is told once per outage, whatever the
 * number of its boxes and polls, with a `source_outage` reference object. `link.created`: a document was linked to a
 * shipment or container (announced by the reference's changelog but absent from its catalog, REFERENCE-SERVICE-MORE
 * §7.10; src/documents/links.ts), once per link, with the document as reference object. Kept out of `GET /webhooks/events` and of
 * {@link WEBHOOK_EVENTS}, so a client that subscribes to the whole reference catalog never receives an event it does
 * not know.
 */
export const EXTENSION_WEBHOOK_EVENTS = [
  "source_outage.started",
  "source_outage.resolved",
  "container.free_time.ending_soon",
  "container.charges.started",
  "link.created",
] as const;

/** One of {@link EXTENSION_WEBHOOK_EVENTS}. */
export type ExtensionWebhookEvent = (typeof EXTENSION_WEBHOOK_EVENTS)[number];

/** Whether `name` is one of the {@link EXTENSION_WEBHOOK_EVENTS}. Exact, case-sensitive match. */
export function isExtensionWebhookEvent(name: string): name is ExtensionWebhookEvent {
  return (EXTENSION_WEBHOOK_EVENTS as readonly string[]).includes(name);
}
