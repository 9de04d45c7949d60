/**
 * The milestone catalog by journey phase: what each `container.transport.*` event means for the box, its phase of the
 * journey and the container attributes it sets. One source for the MCP `get_container_transport_events` grouping and
 * the `svc://docs/milestone-glossary` resource (src/mcp/glossary.ts), and for any other view of a journey. Our own
 * text; event names from docs/api.md §Transport event names, the attributes each sets from docs/decisions.md
 * §Containers and the tracking engine (src/tracking/events.ts).
 */

/** Journey phases, in the order a box lives through them. */
export const JOURNEY_PHASES = [
  "origin",
  "transshipment",
  "feeder",
  "destination",
  "rail",
  "inland",
  "estimates",
  "updates",
  "other",
] as const;

/** A journey phase. */
export type JourneyPhase = (typeof JOURNEY_PHASES)[number];

/** Heading of each phase. */
export const PHASE_LABELS: Record<JourneyPhase, string> = {
  origin: "Origin (port of lading)",
  transshipment: "Transshipment",
  feeder: "Feeder / barge",
  destination: "Port of discharge",
  rail: "Rail",
  inland: "Inland destination",
  estimates: "Estimates",
  updates: "Container updates",
  other: "Other",
};

/** One milestone of the catalog. */
export interface MilestoneEntry {
  /** Full event name, e.g. `container.transport.vessel_departed`. */
  event: string;
  phase: JourneyPhase;
  /** Short human label. */
  label: string;
  /** What it means for the box. */
  meaning: string;
  /** Container attributes it sets, if any. */
  sets: string[];
}

const T = "container.transport.";

/** The catalog, in journey order. */
export const MILESTONES: readonly MilestoneEntry[] = [
  {
    event: `${T}empty_out`,
    phase: "origin",
    label: "Empty out",
    meaning: "The empty box was picked up at the origin depot for stuffing.",
    sets: ["empty_out_at"],
  },
  {
    event: `${T}full_in`,
    phase: "origin",
    label: "Full in",
    meaning: "The loaded box gated in at the port of lading (POL) terminal.",
    sets: ["pol_full_in_at"],
  },
  {
    event: `${T}vessel_loaded`,
    phase: "origin",
    label: "Vessel loaded",
    meaning: "Loaded on the ocean vessel at the POL.",
    sets: ["pol_vessel_loaded_at"],
  },
  {
    event: `${T}vessel_departed`,
    phase: "origin",
    label: "Vessel departed",
    meaning: "The vessel left the POL with the box aboard; status becomes on_ship.",
    sets: ["pol_vessel_departed_at", "current_status=on_ship"],
  },
  {
    event: `${T}transshipment_arrived`,
    phase: "transshipment",
    label: "Transshipment arrived",
    meaning: "The vessel reached an intermediate port where the box changes ships. May repeat for each port.",
    sets: [],
  },
  {
    event: `${T}transshipment_discharged`,
    phase: "transshipment",
    label: "Transshipment discharged",
    meaning: "Unloaded at the transshipment port, waiting for the next vessel.",
    sets: [],
  },
  {
    event: `${T}transshipment_loaded`,
    phase: "transshipment",
    label: "Transshipment loaded",
    meaning: "Loaded on the onward vessel at the transshipment port.",
    sets: [],
  },
  {
    event: `${T}transshipment_departed`,
    phase: "transshipment",
    label: "Transshipment departed",
    meaning: "The onward vessel left the transshipment port.",
    sets: [],
  },
  {
    event: `${T}feeder_arrived`,
    phase: "feeder",
    label: "Feeder arrived",
    meaning: "A feeder vessel or barge reached a port on a short connecting leg.",
    sets: [],
  },
  {
    event: `${T}feeder_discharged`,
    phase: "feeder",
    label: "Feeder discharged",
    meaning: "Unloaded from the feeder vessel or barge.",
    sets: [],
  },
  {
    event: `${T}feeder_loaded`,
    phase: "feeder",
    label: "Feeder loaded",
    meaning: "Loaded on a feeder vessel or barge.",
    sets: [],
  },
  {
    event: `${T}feeder_departed`,
    phase: "feeder",
    label: "Feeder departed",
    meaning: "The feeder vessel or barge left port.",
    sets: [],
  },
  {
    event: `${T}vessel_arrived`,
    phase: "destination",
    label: "Vessel arrived",
    meaning: "The vessel reached the port of discharge (POD). The box is still aboard.",
    sets: ["pod_arrived_at"],
  },
  {
    event: `${T}vessel_berthed`,
    phase: "destination",
    label: "Vessel berthed",
    meaning: "The vessel is alongside the POD terminal berth; discharge can start.",
    sets: [],
  },
  {
    event: `${T}vessel_discharged`,
    phase: "destination",
    label: "Vessel discharged",
    meaning:
      "The box is off the ship on the POD terminal. Status becomes grounded/available/not_available (or awaiting_inland_transfer for rail moves).",
    sets: ["pod_discharged_at", "current_status"],
  },
  {
    event: `${T}available`,
    phase: "destination",
    label: "Available for pickup",
    meaning:
      "The terminal reports the box can be picked up. Ready for pickup also needs no active hold (docs/api.md §Readiness).",
    sets: ["available_for_pickup=true", "current_status=available"],
  },
  {
    event: `${T}not_available`,
    phase: "destination",
    label: "Not available",
    meaning: "The terminal reports the box cannot be picked up (holds, not yet released, ...).",
    sets: ["available_for_pickup=false", "current_status=not_available"],
  },
  {
    event: `${T}full_out`,
    phase: "destination",
    label: "Full out",
    meaning:
      "The loaded box left the terminal (truck pickup, or gate-out to rail). Picked up at the final point ends LFD exposure.",
    sets: ["pod_full_out_at (port moves) or final_destination_full_out_at (inland)", "current_status=picked_up"],
  },
  {
    event: `${T}delivered`,
    phase: "destination",
    label: "Delivered",
    meaning: "Marked delivered by the account.",
    sets: ["delivered_at", "current_status=delivered"],
  },
  {
    event: `${T}empty_in`,
    phase: "destination",
    label: "Empty returned",
    meaning: "The empty box was returned; the journey is complete and tracking winds down.",
    sets: ["empty_terminated_at", "current_status=empty_returned"],
  },
  {
    event: `${T}rail_loaded`,
    phase: "rail",
    label: "Rail loaded",
    meaning: "Loaded on a train at the POD rail ramp (inland moves). See pod_rail_carrier_scac.",
    sets: ["pod_rail_loaded_at", "current_status=on_rail"],
  },
  {
    event: `${T}rail_departed`,
    phase: "rail",
    label: "Rail departed",
    meaning: "The train left the POD ramp.",
    sets: ["pod_rail_departed_at", "current_status=on_rail"],
  },
  {
    event: `${T}rail_arrived`,
    phase: "rail",
    label: "Rail arrived",
    meaning: "The train reached a rail terminal (also fires at interchanges on the way).",
    sets: [],
  },
  {
    event: `${T}rail_unloaded`,
    phase: "rail",
    label: "Rail unloaded",
    meaning: "Unloaded from the train at the inland ramp; availability there decides the status.",
    sets: ["ind_rail_unloaded_at"],
  },
  {
    event: `${T}arrived_at_inland_destination`,
    phase: "inland",
    label: "Arrived at inland destination",
    meaning: "The box reached its inland destination (shipments with an inland leg only).",
    sets: ["ind_ata_at"],
  },
  {
    event: `${T}estimated.vessel_departed`,
    phase: "estimates",
    label: "Estimated departure changed",
    meaning: "A new estimated time of departure (ETD) from the POL.",
    sets: ["shipment pol_etd_at"],
  },
  {
    event: `${T}estimated.vessel_arrived`,
    phase: "estimates",
    label: "Estimated arrival changed",
    meaning: "A new estimated time of arrival (ETA) at the POD.",
    sets: ["shipment pod_eta_at"],
  },
  {
    event: `${T}estimated.arrived_at_inland_destination`,
    phase: "estimates",
    label: "Estimated inland arrival changed",
    meaning: "A new ETA at the inland destination.",
    sets: ["ind_eta_at"],
  },
  {
    event: "shipment.estimated.arrival",
    phase: "estimates",
    label: "Shipment ETA changed",
    meaning: "The shipping line changed the shipment's POD ETA (webhook event).",
    sets: ["shipment pod_eta_at"],
  },
  {
    event: "container.pickup_lfd.changed",
    phase: "updates",
    label: "Last free day changed",
    meaning: "The last free day (LFD) for pickup changed; `value` is the new LFD.",
    sets: ["pickup_lfd"],
  },
  {
    event: "container.pickup_lfd_line.changed",
    phase: "updates",
    label: "Line LFD changed",
    meaning: "The shipping line's LFD changed (preferred over the terminal's).",
    sets: ["import_deadlines.pickup_lfd_line", "pickup_lfd"],
  },
  {
    event: "container.pickup_lfd_terminal.changed",
    phase: "updates",
    label: "Terminal LFD changed",
    meaning: "The terminal's LFD changed.",
    sets: ["import_deadlines.pickup_lfd_terminal", "pickup_lfd"],
  },
  {
    event: "container.pickup_lfd_rail.changed",
    phase: "updates",
    label: "Rail LFD changed",
    meaning: "The inland rail facility's LFD changed.",
    sets: ["import_deadlines.pickup_lfd_rail", "ind_facility_lfd_on"],
  },
  {
    event: "container.pickup_appointment.changed",
    phase: "updates",
    label: "Pickup appointment changed",
    meaning: "The terminal pickup appointment changed; `value` is the new time.",
    sets: ["pickup_appointment_at"],
  },
];

const BY_EVENT = new Map(MILESTONES.map((m) => [m.event, m]));

/** The catalog entry of an event name, or null for names outside the catalog. */
export function milestoneOf(event: string): MilestoneEntry | null {
  return BY_EVENT.get(event) ?? null;
}

/** The phase of an event name (`other` for names outside the catalog). */
export function phaseOf(event: string): JourneyPhase {
  return milestoneOf(event)?.phase ?? "other";
}

/** Short label of an event: the catalog label, else the last segment of the name humanised. */
export function labelOf(event: string): string {
  const entry = milestoneOf(event);
  if (entry) return entry.label;
  const last = event.split(".").pop() ?? event;
  const words = last.replace(/_/g, " ");
  return words.charAt(0).toUpperCase() + words.slice(1);
}
