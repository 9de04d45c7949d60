/**
 * A container's route (the paid `routing` feature, docs/api.md §Accounts and entitlements): the stops from the port of
 * lading (POL) through transshipment and feeder ports to the port of discharge (POD) and, for inland moves, the
 * inland destination, with the legs between them (vessel, voyage, rail carrier) and actual vs. estimated times.
 *
 * This module is the pure part, shared by `GET /v2/containers/{id}/route` (src/containers/shipping-route-service.ts,
 * shipping-route-serializer.ts) and the MCP tool `get_container_route` (src/mcp): the route's types and
 * {@link buildContainerRoute}, which reads only the container, its shipment and its transport events (estimates
 * included). No I/O.
 */

// ---------------------------------------------------------------------------------------------------------------
// The route
// ---------------------------------------------------------------------------------------------------------------

/**
 * Entitlement (an entry of `accounts.entitlements`) that unlocks the route: docs/api.md §Accounts and entitlements
 * "routing".
 */
export const ROUTING_ENTITLEMENT = "routing";

/** `detail` of the 403 for an account without {@link ROUTING_ENTITLEMENT}, verbatim from docs/api.md §Errors. */
export const ROUTING_NOT_ENABLED_DETAIL = "Routing data feature is not enabled for this account";

/** A vessel as named by the carrier; `imo` is the IMO number when known, `voyage_number` the carrier's voyage. */
export interface VesselRef {
  name: string;
  imo: string | null;
  voyage_number: string | null;
}

/** Role of a stop on a container's route. */
export type RouteStopRole = "port_of_lading" | "transshipment" | "port_of_discharge" | "inland_destination";

/** Every {@link RouteStopRole}, in journey order. */
export const ROUTE_STOP_ROLES = ["port_of_lading", "transshipment", "port_of_discharge", "inland_destination"] as const;

/** How a leg moves the box: `vessel` (ocean), `feeder` (feeder vessel or barge to/from a hub), `rail` (inland). */
export type RouteLegMode = "vessel" | "feeder" | "rail";

/** Every {@link RouteLegMode}. */
export const ROUTE_LEG_MODES = ["vessel", "feeder", "rail"] as const;

/**
 * One stop of a container's route: actual times from transport events and container milestones, estimated times
 * from `estimated.*` events and the shipment (POL ETD, POD ETA, destination/inland ETA). All times UTC ISO 8601;
 * `timezone` (IANA) gives their local meaning.
 */
export interface RouteStop {
  role: RouteStopRole;
  /** UN/LOCODE when known. */
  locode: string | null;
  name: string | null;
  timezone: string | null;
  /** Actual arrival (ATA). */
  arrived_at: string | null;
  /** Estimated arrival (ETA). */
  estimated_arrival_at: string | null;
  /** Actual departure (ATD). */
  departed_at: string | null;
  /** Estimated departure (ETD). */
  estimated_departure_at: string | null;
}

/**
 * One leg between two consecutive stops. Its times are those of its ends: departure from the `from` stop,
 * arrival at the `to` stop.
 */
export interface RouteLeg {
  mode: RouteLegMode;
  from_locode: string | null;
  to_locode: string | null;
  /** The vessel of a `vessel`/`feeder` leg when known; null for rail legs. */
  vessel: VesselRef | null;
  /** Who carries the box on this leg: the rail carrier's SCAC on rail legs, the shipping line's on vessel legs. */
  carrier_scac: string | null;
  departed_at: string | null;
  estimated_departure_at: string | null;
  arrived_at: string | null;
  estimated_arrival_at: string | null;
}

/**
 * A container's route: stops POL → transshipments → POD → inland destination, and the legs between them
 * (`legs[i]` goes from `stops[i]` to `stops[i + 1]`, so there is one leg fewer than stops).
 */
export interface ContainerRoute {
  container_id: string;
  /** ISO 6346 container number. */
  container_number: string;
  stops: RouteStop[];
  legs: RouteLeg[];
}

// ---------------------------------------------------------------------------------------------------------------
// Building it
// ---------------------------------------------------------------------------------------------------------------

/** The container facts a route reads (a subset of `ContainerRecord`). */
export interface RouteContainer {
  id: string;
  number: string;
  pol_vessel_departed_at: string | null;
  pod_arrived_at: string | null;
  pod_discharged_at: string | null;
  pod_rail_loaded_at: string | null;
  pod_rail_departed_at: string | null;
  pod_rail_carrier_scac: string | null;
  ind_rail_carrier_scac: string | null;
  ind_eta_at: string | null;
  ind_ata_at: string | null;
  pod_timezone: string | null;
  final_destination_timezone: string | null;
}

/** The shipment facts a route reads (a subset of `ShipmentRecord`). */
export interface RouteShipment {
  /** The line carrying the box on its vessel legs (`inbound_scac`/`outbound_scac` of those legs); absent = unknown. */
  shipping_line_scac?: string | null;
  port_of_lading_locode: string | null;
  port_of_lading_name: string | null;
  port_of_discharge_locode: string | null;
  port_of_discharge_name: string | null;
  destination_locode: string | null;
  destination_name: string | null;
  destination_timezone: string | null;
  pol_timezone: string | null;
  pod_timezone: string | null;
  pol_etd_at: string | null;
  pol_atd_at: string | null;
  pod_eta_at: string | null;
  pod_ata_at: string | null;
  destination_eta_at: string | null;
  destination_ata_at: string | null;
  pod_vessel_name: string | null;
  pod_vessel_imo: string | null;
  pod_voyage_number: string | null;
}

/** A transport event as the route reads it; `container.transport.estimated.*` events carry estimates. */
export interface RouteEvent {
  event: string;
  timestamp: string | null;
  timezone: string | null;
  locode: string | null;
  location_name: string | null;
  vessel_name: string | null;
  vessel_imo: string | null;
  voyage_number: string | null;
}

const PREFIX = "container.transport.";

/** The event name without `container.transport.`, and whether it is an estimate. */
function parseEvent(name: string): { action: string; estimated: boolean } {
  const rest = name.startsWith(PREFIX) ? name.slice(PREFIX.length) : name;
  if (rest.startsWith("estimated.")) return { action: rest.slice("estimated.".length), estimated: true };
  return { action: rest, estimated: false };
}

interface Stop extends RouteStop {
  /** Vessel seen leaving this stop (loaded/departed events). */
  outbound: VesselRef | null;
  /** Vessel seen arriving at this stop (arrived/discharged events). */
  inbound: VesselRef | null;
  feeder: boolean;
  /** First and last actual event times seen at this stop (UTC ISO), to order transfer ports. */
  firstAt: string | null;
  lastAt: string | null;
}

function vesselOf(e: RouteEvent): VesselRef | null {
  return e.vessel_name ? { name: e.vessel_name, imo: e.vessel_imo, voyage_number: e.voyage_number } : null;
}

function emptyStop(role: RouteStop["role"], locode: string | null, name: string | null, tz: string | null): Stop {
  return {
    role,
    locode,
    name,
    timezone: tz,
    arrived_at: null,
    estimated_arrival_at: null,
    departed_at: null,
    estimated_departure_at: null,
    outbound: null,
    inbound: null,
    feeder: false,
    firstAt: null,
    lastAt: null,
  };
}

/** Whether two references name one vessel: the same IMO number when both have one, else the same name. */
function sameVessel(a: VesselRef, b: VesselRef): boolean {
  if (a.imo && b.imo) return a.imo === b.imo;
  return a.name.trim().toUpperCase() === b.name.trim().toUpperCase();
}

/** Earliest non-null of two UTC ISO strings (they compare as strings). */
function earliest(a: string | null, b: string | null): string | null {
  if (!a) return b;
  if (!b) return a;
  return a < b ? a : b;
}

/**
 * Builds the route of a container. Stops: POL (from the shipment), every other port where the events show a
 * transshipment or feeder move (in order of first event; a port whose events all precede the POL departure is a
 * feeder into the POL and comes before it), POD, and the inland destination when the shipment has one distinct
 * from the POD. Actual times come from events and the container/shipment milestones; estimates from
 * `estimated.*` events and the shipment's ETD/ETAs. A leg's vessel is the one seen leaving its origin, else the
 * one seen arriving at its end, else (last ocean leg) the shipment's POD vessel. When the box is seen leaving its
 * last known port on another vessel than the one that reaches the POD, and no event names the port where it changes
 * (a transshipment still to come), the route has a transshipment stop without a UN/LOCODE there, so the leg into the
 * POD is on the shipment's POD vessel. Events without a time are ignored.
 */
export function buildContainerRoute(
  container: RouteContainer,
  shipment: RouteShipment,
  events: RouteEvent[],
): ContainerRoute {
  const polCode = shipment.port_of_lading_locode;
  const podCode = shipment.port_of_discharge_locode;
  const pol = emptyStop("port_of_lading", polCode, shipment.port_of_lading_name, shipment.pol_timezone);
  pol.departed_at = shipment.pol_atd_at ?? container.pol_vessel_departed_at;
  pol.estimated_departure_at = shipment.pol_etd_at;
  const pod = emptyStop(
    "port_of_discharge",
    podCode,
    shipment.port_of_discharge_name,
    shipment.pod_timezone ?? container.pod_timezone,
  );
  pod.arrived_at = container.pod_arrived_at ?? shipment.pod_ata_at;
  pod.estimated_arrival_at = shipment.pod_eta_at;
  const middle = new Map<string, Stop>();

  const sorted = events
    .filter((e) => e.timestamp)
    .sort((a, b) =>
      (a.timestamp ?? "") < (b.timestamp ?? "") ? -1 : (a.timestamp ?? "") > (b.timestamp ?? "") ? 1 : 0,
    );
  for (const e of sorted) {
    const { action, estimated } = parseEvent(e.event);
    const at = e.timestamp;
    const vessel = vesselOf(e);
    const isTransfer = action.startsWith("transshipment_") || action.startsWith("feeder_");
    let stop: Stop | undefined;
    if (e.locode && e.locode === polCode) stop = pol;
    else if (e.locode && e.locode === podCode) stop = pod;
    else if (isTransfer && e.locode) {
      stop = middle.get(e.locode);
      if (!stop) {
        stop = emptyStop("transshipment", e.locode, e.location_name, e.timezone);
        middle.set(e.locode, stop);
      }
    }
    if (!stop) continue;
    if (action.startsWith("feeder_") && stop.role === "transshipment") stop.feeder = true;
    if (!estimated) {
      stop.firstAt ??= at;
      stop.lastAt = at;
    }
    const arriving = /(_arrived|_discharged|_berthed)$/.test(action);
    const leaving = /(_departed|_loaded)$/.test(action);
    if (arriving) {
      if (estimated) stop.estimated_arrival_at = at;
      else if (/_arrived$/.test(action) || !stop.arrived_at) stop.arrived_at = earliest(stop.arrived_at, at);
      if (vessel) stop.inbound = vessel;
    } else if (leaving) {
      if (estimated) stop.estimated_departure_at = at;
      else if (/_departed$/.test(action)) stop.departed_at = at;
      if (vessel && !action.startsWith("rail_")) stop.outbound = vessel;
    }
    stop.timezone ??= e.timezone;
    if (!stop.name && e.location_name) stop.name = e.location_name;
  }

  // Transfer ports in time order; one whose events all precede the departure from the POL is a feeder into it.
  const polAnchor = pol.departed_at ?? pol.firstAt;
  const byFirst = (a: Stop, b: Stop) => ((a.firstAt ?? "") < (b.firstAt ?? "") ? -1 : 1);
  const transfers = [...middle.values()].sort(byFirst);
  const before = transfers.filter((m) => polAnchor !== null && m.lastAt !== null && m.lastAt <= polAnchor);
  const after = transfers.filter((m) => !before.includes(m));
  const stops: Stop[] = [...before, pol, ...after, pod];
  // The box leaves its last known port on one vessel while the POD is reached on another (the shipment's POD vessel,
  // or the one its arrival names): it changes vessel at a port no event names yet (a planned transshipment). Say so —
  // a transshipment stop without a UN/LOCODE — instead of a last leg on a vessel the shipment does not name.
  const lastPort = stops[stops.length - 2];
  const podVessel: VesselRef | null =
    pod.inbound ??
    (shipment.pod_vessel_name
      ? { name: shipment.pod_vessel_name, imo: shipment.pod_vessel_imo, voyage_number: shipment.pod_voyage_number }
      : null);
  if (lastPort?.outbound && podVessel && !sameVessel(lastPort.outbound, podVessel)) {
    stops.splice(stops.length - 1, 0, emptyStop("transshipment", null, null, null));
  }
  const destCode = shipment.destination_locode;
  let inland: Stop | null = null;
  if (destCode && destCode !== podCode) {
    inland = emptyStop(
      "inland_destination",
      destCode,
      shipment.destination_name,
      shipment.destination_timezone ?? container.final_destination_timezone,
    );
    inland.arrived_at = container.ind_ata_at ?? shipment.destination_ata_at;
    inland.estimated_arrival_at = container.ind_eta_at ?? shipment.destination_eta_at;
    for (const e of sorted) {
      const { action, estimated } = parseEvent(e.event);
      if (action !== "arrived_at_inland_destination" && !(e.locode === destCode && action === "rail_arrived")) continue;
      if (estimated) inland.estimated_arrival_at ??= e.timestamp;
      else inland.arrived_at ??= e.timestamp;
    }
    pod.departed_at = container.pod_rail_departed_at;
    stops.push(inland);
  }

  const legs: RouteLeg[] = [];
  for (let i = 0; i + 1 < stops.length; i++) {
    const from = stops[i] as Stop;
    const to = stops[i + 1] as Stop;
    const rail = to.role === "inland_destination";
    const lastOcean = to.role === "port_of_discharge";
    const shipmentVessel: VesselRef | null =
      lastOcean && shipment.pod_vessel_name
        ? { name: shipment.pod_vessel_name, imo: shipment.pod_vessel_imo, voyage_number: shipment.pod_voyage_number }
        : null;
    legs.push({
      mode: rail ? "rail" : from.feeder || to.feeder ? "feeder" : "vessel",
      from_locode: from.locode,
      to_locode: to.locode,
      vessel: rail ? null : (from.outbound ?? to.inbound ?? shipmentVessel),
      carrier_scac: rail
        ? (container.pod_rail_carrier_scac ?? container.ind_rail_carrier_scac)
        : (shipment.shipping_line_scac ?? null),
      departed_at: from.departed_at,
      estimated_departure_at: from.estimated_departure_at,
      arrived_at: to.arrived_at,
      estimated_arrival_at: to.estimated_arrival_at,
    });
  }
  return {
    container_id: container.id,
    container_number: container.number,
    stops: stops.map(({ outbound: _o, inbound: _i, feeder: _f, firstAt: _a, lastAt: _l, ...stop }) => stop),
    legs,
  };
}
