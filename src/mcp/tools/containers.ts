import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { ContentBlock } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import {
  FeeSummary,
  feeSummaryOf,
  hoursBetween,
  LfdStatus,
  lfdStatusOf,
  localTime,
  Readiness,
  readinessOf,
  shortUtc,
  TrackingHealth,
  trackingHealthOf,
} from "../../containers/derived-views";
import { CONTAINER_SORT_KEYS } from "../../containers/list-order";
import { orNull } from "../../lib/nullable";
import { CONTAINER_STATUSES } from "../../tracking/status";
import { JOURNEY_PHASES, labelOf, PHASE_LABELS, phaseOf } from "../../transport-events/milestone-catalog";
import type { ContainerDetails, ContainerInclude, TransportEventDetails } from "../api";
import {
  ContainerSummary,
  CustomFieldOutput,
  containerIdArg,
  containerSummary,
  containerUri,
  customFieldsOutput,
  isoDateArg,
  listFilterFields,
  locodeArg,
  type McpDeps,
  pageOptions,
  pagingAliases,
  pagingInput,
  pagingOf,
  pagingOutput,
  plural,
  READ_ONLY,
  registerTrackingTool,
  resolveContainerId,
  ShipmentSummary,
  scacArg,
  shipmentSummary,
  withNotFound,
} from "./common";

const nullableString = orNull(z.string());

const Hold = z.object({
  name: z.string().describe("freight, customs, USDA, VACIS, TMF or other."),
  status: z.enum(["hold", "pending"]).describe("hold = active; pending = expected, not yet active."),
  description: nullableString,
});

/** One event of a timeline (get_container_transport_events, get_container with transport_events). */
const TimelineEntry = z.object({
  event: z.string().describe("Full event name, e.g. container.transport.vessel_departed."),
  label: z.string(),
  phase: z.enum(JOURNEY_PHASES),
  timestamp: nullableString.describe("UTC."),
  timezone: nullableString,
  local_time: nullableString.describe("The time in the event's local time zone."),
  location: z.object({ locode: nullableString, name: nullableString }).nullable(),
  terminal: z.object({ name: z.string(), firms_code: nullableString }).nullable(),
  voyage_number: nullableString,
  data_source: z.string(),
  value: nullableString.describe("New value of a *.changed event (e.g. the new LFD)."),
});

function timelineEntry({ event, location, terminal }: TransportEventDetails): z.infer<typeof TimelineEntry> {
  const e = event.attributes;
  const locode = location?.attributes.code ?? e.location_locode;
  return {
    event: e.event,
    label: labelOf(e.event),
    phase: phaseOf(e.event),
    timestamp: e.timestamp,
    timezone: e.timezone,
    local_time: localTime(e.timestamp, e.timezone),
    location: locode || location ? { locode: locode ?? null, name: location?.attributes.name ?? null } : null,
    terminal: terminal ? { name: terminal.attributes.name, firms_code: terminal.attributes.firms_code } : null,
    voyage_number: e.voyage_number,
    data_source: e.data_source,
    value: e.value,
  };
}

/** The curated container snapshot of `get_container` (also rendered by the container resource). */
export const ContainerSnapshot = {
  id: z.string(),
  number: z.string(),
  current_status: z.string().describe("Authoritative status from the tracking data (docs/decisions.md §Containers)."),
  resource_uri: z.string(),
  equipment: z.object({
    type: nullableString,
    length_ft: orNull(z.number()),
    height: nullableString,
    weight_lbs: orNull(z.number()),
    seal_number: nullableString,
  }),
  location: z.object({
    pod_terminal: z
      .object({ name: z.string(), nickname: nullableString, firms_code: nullableString, time_zone: nullableString })
      .nullable(),
    location_at_pod_terminal: nullableString,
    pod_arrived_at: nullableString,
    pod_discharged_at: nullableString,
    pod_full_out_at: nullableString,
    final_destination_full_out_at: nullableString,
    empty_terminated_at: nullableString,
    pod_timezone: nullableString,
    terminal_checked_at: nullableString,
  }),
  readiness: Readiness,
  last_free_day: LfdStatus,
  pickup_appointment_at: nullableString,
  holds: z.array(Hold),
  fees: FeeSummary,
  rail: z
    .object({
      pod_rail_carrier_scac: nullableString,
      pod_rail_loaded_at: nullableString,
      pod_rail_departed_at: nullableString,
      ind_rail_carrier_scac: nullableString,
      ind_eta_at: nullableString,
      ind_ata_at: nullableString,
      ind_rail_unloaded_at: nullableString,
      final_destination_timezone: nullableString,
    })
    .nullable()
    .describe("Inland rail leg; null when the container has no rail data."),
  shipment: ShipmentSummary.nullable(),
  tracking_stopped: z.boolean(),
  custom_fields: z.array(CustomFieldOutput).describe("The account's own fields on this container (PO numbers …)."),
  tracking_health: TrackingHealth.describe("Per source: last attempt, last answer, failure reason."),
  transport_events: z
    .object({ total: z.number().int(), timeline: z.array(TimelineEntry) })
    .optional()
    .describe("Present when include has transport_events."),
};

/** The snapshot of a container at `nowMs` (readiness docs/api.md §Readiness, LFD urgency, fees without `total`). */
export function containerSnapshot(d: ContainerDetails, nowMs: number): z.infer<z.ZodObject<typeof ContainerSnapshot>> {
  const c = d.container.attributes;
  const shipment = d.shipment?.attributes;
  const terminal = d.pod_terminal?.attributes;
  const hasRail = [
    c.pod_rail_carrier_scac,
    c.pod_rail_loaded_at,
    c.pod_rail_departed_at,
    c.ind_rail_carrier_scac,
    c.ind_eta_at,
    c.ind_ata_at,
    c.ind_rail_unloaded_at,
  ].some((v) => v !== null);
  const snapshot: z.infer<z.ZodObject<typeof ContainerSnapshot>> = {
    id: d.container.id,
    number: c.number,
    current_status: c.current_status,
    resource_uri: containerUri(d.container.id),
    equipment: {
      type: c.equipment_type,
      length_ft: c.equipment_length,
      height: c.equipment_height,
      weight_lbs: c.weight_in_lbs,
      seal_number: c.seal_number,
    },
    location: {
      pod_terminal: terminal
        ? {
            name: terminal.name,
            nickname: terminal.nickname,
            firms_code: terminal.firms_code,
            time_zone: terminal.time_zone,
          }
        : null,
      location_at_pod_terminal: c.location_at_pod_terminal,
      pod_arrived_at: c.pod_arrived_at,
      pod_discharged_at: c.pod_discharged_at,
      pod_full_out_at: c.pod_full_out_at,
      final_destination_full_out_at: c.final_destination_full_out_at,
      empty_terminated_at: c.empty_terminated_at,
      pod_timezone: c.pod_timezone,
      terminal_checked_at: c.terminal_checked_at,
    },
    readiness: readinessOf(c),
    last_free_day: lfdStatusOf(c, shipment ?? null, nowMs),
    pickup_appointment_at: c.pickup_appointment_at,
    holds: c.holds_at_pod_terminal,
    fees: feeSummaryOf(c.fees_at_pod_terminal),
    rail: hasRail
      ? {
          pod_rail_carrier_scac: c.pod_rail_carrier_scac,
          pod_rail_loaded_at: c.pod_rail_loaded_at,
          pod_rail_departed_at: c.pod_rail_departed_at,
          ind_rail_carrier_scac: c.ind_rail_carrier_scac,
          ind_eta_at: c.ind_eta_at,
          ind_ata_at: c.ind_ata_at,
          ind_rail_unloaded_at: c.ind_rail_unloaded_at,
          final_destination_timezone: c.final_destination_timezone,
        }
      : null,
    shipment: d.shipment ? shipmentSummary(d.shipment) : null,
    custom_fields: customFieldsOutput(d.custom_fields),
    tracking_stopped: shipment?.line_tracking_stopped_at != null,
    tracking_health: trackingHealthOf(c, shipment),
  };
  if (d.transport_events) {
    snapshot.transport_events = {
      total: d.transport_events.length,
      timeline: d.transport_events.map(timelineEntry),
    };
  }
  return snapshot;
}

/** Markdown of a container snapshot (the get_container text block and the svc://container/{id} resource). */
export function containerMarkdown(s: z.infer<z.ZodObject<typeof ContainerSnapshot>>): string {
  const lfd = s.last_free_day;
  const lines = [
    `# Container ${s.number}`,
    "",
    `- Status: **${s.current_status}**${s.tracking_stopped ? " (tracking stopped)" : ""}`,
    `- Ready for pickup: **${s.readiness.status}**: ${s.readiness.explanation}`,
    `- Last free day: ${lfd.pickup_lfd ? `${lfd.pickup_lfd_local ?? shortUtc(lfd.pickup_lfd)} (${lfd.urgency}${lfd.days_remaining !== null && lfd.urgency !== "none" ? `, ${lfd.days_remaining} days` : ""})` : "not reported"}${lfd.note ? `: ${lfd.note}` : ""}`,
  ];
  const terminal = s.location.pod_terminal;
  if (terminal)
    lines.push(`- POD terminal: ${terminal.name}${terminal.firms_code ? ` (FIRMS ${terminal.firms_code})` : ""}`);
  if (s.shipment) {
    lines.push(
      `- Shipment: ${s.shipment.bill_of_lading_number} (${s.shipment.shipping_line_name}), ${s.shipment.port_of_lading_locode ?? "?"} → ${s.shipment.port_of_discharge_locode ?? "?"}, POD ETA ${shortUtc(s.shipment.pod_eta_at)}, ATA ${shortUtc(s.shipment.pod_ata_at)}`,
    );
  }
  if (s.holds.length > 0) {
    lines.push(`- Holds: ${s.holds.map((h) => `${h.name} (${h.status})`).join(", ")}`);
  }
  if (s.fees.items.length > 0) {
    lines.push(
      `- Fees: ${s.fees.items.map((f) => `${f.type} ${f.amount} ${f.currency_code}`).join(", ")}; total ${s.fees.sum_by_currency.map((a) => `${a.amount} ${a.currency_code}`).join(" + ")} (terminal \`total\` line excluded)`,
    );
  }
  if (s.custom_fields.length > 0) {
    lines.push(
      `- Custom fields: ${s.custom_fields.map((f) => `${f.api_slug} = ${f.display_value ?? "—"}`).join(", ")}`,
    );
  }
  if (s.pickup_appointment_at) lines.push(`- Pickup appointment: ${shortUtc(s.pickup_appointment_at)}`);
  if (s.rail) {
    lines.push(
      `- Rail: ${s.rail.pod_rail_carrier_scac ?? s.rail.ind_rail_carrier_scac ?? "carrier unknown"}, departed ${shortUtc(s.rail.pod_rail_departed_at)}, inland ETA ${shortUtc(s.rail.ind_eta_at)}, ATA ${shortUtc(s.rail.ind_ata_at)}`,
    );
  }
  if (s.tracking_health.failing_sources.length > 0) lines.push(`- Tracking: ${s.tracking_health.explanation}`);
  lines.push(
    `- Equipment: ${[s.equipment.length_ft ? `${s.equipment.length_ft}'` : null, s.equipment.height, s.equipment.type].filter(Boolean).join(" ") || "unknown"}`,
  );
  lines.push(`- Id: ${s.id}`);
  return lines.join("\n");
}

/**
 * Container tools (docs/mcp.md §Tools): `get_container`, `get_container_transport_events`, `get_container_route`
 * (paid `routing` feature) and `list_containers` (with `resource_link`s to `svc://container/{id}`).
 */
export function registerContainerTools(server: McpServer, deps: McpDeps): void {
  registerTrackingTool(server, deps, {
    name: "get_container",
    title: "Get a container",
    description:
      "A container's state: status, location at the POD, readiness for pickup (available, no active hold), LFD urgency (overdue / imminent < 48 h / upcoming; unknown if tracking stopped or terminal data > 7 days old), holds, fees (no `total` line), rail leg, shipment, source health. include: transport_events adds the timeline.",
    input: {
      id: containerIdArg,
      include: z
        .array(z.enum(["shipment", "pod_terminal", "transport_events"]))
        .max(3)
        .optional()
        .describe("shipment and pod_terminal are always included; add transport_events for the timeline."),
    },
    output: ContainerSnapshot,
    annotations: READ_ONLY,
    async run(args, { api, clock }) {
      const id = await resolveContainerId(api, args.id);
      const include: ContainerInclude[] = ["shipment", "pod_terminal"];
      if (args.include?.includes("transport_events")) include.push("transport_events");
      const details = await withNotFound("container", id, () => api.getContainer(id, include));
      const snapshot = containerSnapshot(details, clock.now());
      return { structured: snapshot, text: containerMarkdown(snapshot) };
    },
  });

  registerTrackingTool(server, deps, {
    name: "get_container_transport_events",
    title: "Container milestone timeline",
    description:
      "A container's past transport events (milestones) in chronological order, each with its journey phase (origin, transshipment, feeder, port of discharge, rail, inland), location, terminal and local time, plus a per-phase summary. Estimates are not listed (see get_shipment_details for ETAs). No events is an empty timeline, not an error. The milestone glossary resource (svc://docs/milestone-glossary) explains each event.",
    input: { id: containerIdArg },
    output: {
      container_id: z.string(),
      total_events: z.number().int(),
      latest_event: TimelineEntry.nullable().describe("The latest actual event: where the box is now."),
      timeline: z.array(TimelineEntry),
      phases: z
        .array(
          z.object({
            phase: z.enum(JOURNEY_PHASES),
            label: z.string(),
            event_count: z.number().int(),
            first_at: nullableString,
            last_at: nullableString,
            events: z.array(z.string()).describe("Event labels in order."),
          }),
        )
        .describe("Phases that have events, in journey order."),
    },
    annotations: READ_ONLY,
    async run(args, { api }) {
      const id = await resolveContainerId(api, args.id);
      const events = await withNotFound("container", id, () => api.getTransportEvents(id));
      const timeline = events.map(timelineEntry);
      const phases = JOURNEY_PHASES.flatMap((phase) => {
        const inPhase = timeline.filter((e) => e.phase === phase);
        if (inPhase.length === 0) return [];
        const times = inPhase.map((e) => e.timestamp).filter((t): t is string => !!t);
        return [
          {
            phase,
            label: PHASE_LABELS[phase],
            event_count: inPhase.length,
            first_at: times[0] ?? null,
            last_at: times[times.length - 1] ?? null,
            events: inPhase.map((e) => e.label),
          },
        ];
      });
      const latest = timeline[timeline.length - 1] ?? null;
      const lines =
        timeline.length === 0
          ? ["No transport events recorded yet for this container."]
          : [
              `${plural(timeline.length, "event")}; latest: ${latest?.label} at ${latest?.location?.name ?? latest?.location?.locode ?? "unknown location"} (${latest?.local_time ?? shortUtc(latest?.timestamp ?? null)}).`,
              ...phases.map((p) => `- ${p.label}: ${p.events.join(" → ")}`),
            ];
      return {
        structured: { container_id: id, total_events: timeline.length, latest_event: latest, timeline, phases },
        text: lines.join("\n"),
      };
    },
  });

  registerTrackingTool(server, deps, {
    name: "get_container_route",
    title: "Container route (paid feature)",
    description:
      "The container's route: stops from the port of lading through transshipment/feeder ports to the port of discharge and inland destination, with the vessel (name, IMO, voyage) or rail carrier of each leg and actual vs. estimated departure/arrival times,, and the vessel carrying it now with its position when known. Paid feature: accounts without the `routing` feature get an error saying so; use get_container_transport_events and get_shipment_details instead.",
    input: { id: containerIdArg },
    output: {
      container_id: z.string(),
      container_number: z.string(),
      total_legs: z.number().int(),
      stops: z.array(
        z.object({
          role: z.enum(["port_of_lading", "transshipment", "port_of_discharge", "inland_destination"]),
          locode: nullableString,
          name: nullableString,
          timezone: nullableString,
          arrived_at: nullableString,
          estimated_arrival_at: nullableString,
          departed_at: nullableString,
          estimated_departure_at: nullableString,
        }),
      ),
      legs: z.array(
        z.object({
          mode: z.enum(["vessel", "feeder", "rail"]),
          from_locode: nullableString,
          to_locode: nullableString,
          vessel: z.object({ name: z.string(), imo: nullableString, voyage_number: nullableString }).nullable(),
          carrier_scac: nullableString.describe("Rail carrier SCAC for rail legs."),
          departed_at: nullableString,
          estimated_departure_at: nullableString,
          arrived_at: nullableString,
          estimated_arrival_at: nullableString,
          delay_hours: orNull(z.number()).describe(
            "Actual (or latest) arrival minus the estimate, in hours, when both are known.",
          ),
        }),
      ),
      current_vessel: z
        .object({
          vessel_name: nullableString,
          imo: z.string(),
          voyage_number: nullableString,
          from_locode: nullableString,
          to_locode: nullableString,
          latitude: z.number(),
          longitude: z.number(),
          speed_knots: orNull(z.number()),
          heading_degrees: orNull(z.number()),
          timestamp: z.string(),
        })
        .nullable()
        .describe(
          "The vessel carrying the box now (a leg departed, not arrived) and its latest position; null when not at sea or unknown.",
        ),
    },
    annotations: READ_ONLY,
    async run(args, { api }) {
      const id = await resolveContainerId(api, args.id);
      const { route, currentVessel } = await withNotFound("container", id, () => api.getContainerRoute(id));
      const legs = route.legs.map((l) => ({ ...l, delay_hours: hoursBetween(l.estimated_arrival_at, l.arrived_at) }));
      const lines = [
        `Route of ${route.container_number}: ${route.stops.map((s) => s.locode ?? s.name ?? "?").join(" → ")}`,
        ...legs.map(
          (l) =>
            `- ${l.from_locode ?? "?"} → ${l.to_locode ?? "?"} by ${l.mode}${l.vessel ? ` ${l.vessel.name}${l.vessel.voyage_number ? ` voy. ${l.vessel.voyage_number}` : ""}` : l.carrier_scac ? ` (${l.carrier_scac})` : ""}: departed ${shortUtc(l.departed_at ?? null)}, arrived ${shortUtc(l.arrived_at)}${l.arrived_at ? "" : ` (ETA ${shortUtc(l.estimated_arrival_at)})`}`,
        ),
      ];
      if (currentVessel) {
        const v = currentVessel;
        lines.push(
          `Now: ${v.vessel_name ?? v.imo} at ${v.latitude.toFixed(3)}, ${v.longitude.toFixed(3)}${v.speed_knots !== null ? `, ${v.speed_knots} kn` : ""}${v.heading_degrees !== null ? `, heading ${v.heading_degrees}°` : ""} (${shortUtc(v.timestamp)}), bound for ${v.to_locode ?? "?"}`,
        );
      }
      return {
        structured: {
          container_id: route.container_id,
          container_number: route.container_number,
          total_legs: legs.length,
          stops: route.stops,
          legs,
          current_vessel: currentVessel,
        },
        text: lines.join("\n"),
      };
    },
  });

  registerTrackingTool(server, deps, {
    name: "list_containers",
    title: "List containers",
    description:
      "A page of the account's containers, newest first (or by `sort`), optionally filtered by status, port of discharge (UN/LOCODE), carrier SCAC, holds or last update. Each row links to its svc://container/{id} resource; call get_container for details. Page with `page`; `next_page` says what to ask for next.",
    input: {
      status: z.enum(CONTAINER_STATUSES).optional().describe("current_status to filter on."),
      port: locodeArg.optional(),
      carrier: scacArg.optional(),
      updated_after: isoDateArg.optional().describe("Only containers updated at or after this time (ISO 8601)."),
      has_holds: z.boolean().optional().describe("Only containers with (true) or without (false) a hold in force."),
      sort: z
        .string()
        .max(30)
        .optional()
        .describe(`${CONTAINER_SORT_KEYS.join(", ")}; - for descending.`),
      include: z
        .array(z.enum(["shipment"]))
        .max(1)
        .optional()
        .describe("shipment: add each container's shipment (BL, carrier, ports)."),
      ...pagingInput,
    },
    aliases: pagingAliases,
    fields: listFilterFields,
    output: {
      items: z.array(ContainerSummary.extend({ shipment: ShipmentSummary.nullable().optional() })),
      ...pagingOutput,
      applied_filters: z.object({
        status: nullableString,
        port: nullableString,
        carrier: nullableString,
        updated_after: nullableString,
      }),
    },
    annotations: READ_ONLY,
    async run(args, { api }) {
      const withShipment = args.include?.includes("shipment") === true;
      const page = await api.listContainers(
        {
          "filter[status]": args.status,
          "filter[pod_locode]": args.port?.toUpperCase(),
          "filter[scac]": args.carrier?.toUpperCase(),
          "filter[updated_at][start]": args.updated_after,
          "filter[has_holds]": args.has_holds === undefined ? undefined : String(args.has_holds),
        },
        pageOptions(args),
        { includeShipment: withShipment, sort: args.sort },
      );
      const items = page.items.map((d) => ({
        ...containerSummary(d.container),
        // null: no shipment.
        ...(withShipment ? { shipment: d.shipment ? shipmentSummary(d.shipment) : null } : {}),
      }));
      const paging = pagingOf(page);
      const links: ContentBlock[] = items.map((c) => ({
        type: "resource_link",
        uri: c.resource_uri,
        name: `Container ${c.number}`,
        description: `${c.current_status}${c.pickup_lfd ? `, LFD ${c.pickup_lfd}` : ""}`,
        mimeType: "text/markdown",
      }));
      const text =
        items.length === 0
          ? page.total === 0
            ? "No containers match."
            : `Page ${paging.page} is past the last page (${page.total} containers).`
          : `${plural(page.total, "container")} match; page ${paging.page} has ${items.length}${paging.next_page ? ` (next_page ${paging.next_page})` : ""}:\n${items
              .map(
                (c) =>
                  `- ${c.number}: ${c.current_status}${c.active_holds.length ? `, holds ${c.active_holds.join("/")}` : ""}${c.pickup_lfd ? `, LFD ${shortUtc(c.pickup_lfd)}` : ""} (id ${c.id})`,
              )
              .join("\n")}`;
      return {
        structured: {
          items,
          ...paging,
          applied_filters: {
            status: args.status ?? null,
            port: args.port?.toUpperCase() ?? null,
            carrier: args.carrier?.toUpperCase() ?? null,
            updated_after: args.updated_after ?? null,
          },
        },
        text,
        extra: links,
      };
    },
  });
}
