/**
 * The MCP side of the container route (tool `get_container_route`, paid feature `routing`): what both
 * `TrackingApi` implementations share so the tool answers alike over `/mcp` and over stdio —
 * - {@link routingNotEnabledError}: the one `forbidden_feature` error for an account without the entitlement
 *   (the Worker raises it on the service's 403, the stdio server on the REST API's 403);
 * - {@link routeFromDocument}: the REST document of `GET /v2/containers/{id}/route` read back into the
 *   `ContainerRoute` the Worker builds directly (src/containers/shipping-route-serializer.ts writes it without loss).
 * The route itself is built by src/containers/shipping-route.ts.
 */

import {
  type ContainerRoute,
  ROUTING_ENTITLEMENT,
  ROUTING_NOT_ENABLED_DETAIL,
  type RouteLeg,
  type RouteStop,
  type VesselRef,
} from "../containers/shipping-route";
import { TrackingApiError } from "./api";

/**
 * The `forbidden_feature` error of `getContainerRoute` for an account without the `routing` entitlement: the
 * REST 403 detail (REFERENCE-SERVICE.md §4) plus what to do instead, with `feature: "routing"`.
 */
export function routingNotEnabledError(): TrackingApiError {
  return new TrackingApiError(
    "forbidden_feature",
    `${ROUTING_NOT_ENABLED_DETAIL}. Ask the account owner to enable the \`${ROUTING_ENTITLEMENT}\` feature; until then use get_container_transport_events and get_shipment_details for the journey.`,
    { feature: ROUTING_ENTITLEMENT },
  );
}

/** A resource of the route document as read here (attributes untyped). */
interface RouteResourceLike {
  id: string;
  type: string;
  attributes: Record<string, unknown>;
  relationships?: Record<string, { data: { id: string; type: string } | { id: string; type: string }[] | null }>;
}

/** The parts of a route document (`include=port,vessel,route_location`) this reads. */
export interface RouteDocumentLike {
  data: RouteResourceLike;
  included?: RouteResourceLike[];
}

function str(value: unknown): string | null {
  return typeof value === "string" ? value : null;
}

function toOne(resource: RouteResourceLike, name: string): { id: string; type: string } | null {
  const data = resource.relationships?.[name]?.data;
  return data && !Array.isArray(data) ? data : null;
}

/**
 * The `ContainerRoute` of a route document fetched with its route locations and vessels included (ports are not
 * needed: each location carries its UN/LOCODE, name and time zone). Locations are read in the order of
 * `data.relationships.route_locations`; leg `i` is the `outbound_*` side of location `i` with the arrival times of
 * location `i + 1`.
 * @throws TrackingApiError `upstream` when the document lacks the container linkage or an included location
 *   (an answer this client cannot read; never expected from this service).
 */
export function routeFromDocument(doc: RouteDocumentLike): ContainerRoute {
  const included = new Map((doc.included ?? []).map((r) => [`${r.type}:${r.id}`, r]));
  const unreadable = () =>
    new TrackingApiError("upstream", "The tracking service answered with a route this client cannot read.");
  const container = toOne(doc.data, "container");
  const refs = doc.data.relationships?.route_locations?.data;
  if (!container || !Array.isArray(refs)) throw unreadable();
  const locations = refs.map((ref) => {
    const r = included.get(`route_location:${ref.id}`);
    if (!r) throw unreadable();
    return r;
  });
  const vesselOf = (location: RouteResourceLike, side: "inbound" | "outbound"): VesselRef | null => {
    const link = toOne(location, `${side}_vessel`);
    const vessel = link ? included.get(`vessel:${link.id}`) : undefined;
    if (!vessel) return null;
    return {
      name: str(vessel.attributes.name) ?? "",
      imo: str(vessel.attributes.imo),
      voyage_number: str(location.attributes[`${side}_voyage_number`]),
    };
  };
  const stops: RouteStop[] = locations.map((l) => ({
    role: l.attributes.role as RouteStop["role"],
    locode: str(l.attributes.location_locode),
    name: str(l.attributes.location_name),
    timezone: str(l.attributes.timezone),
    arrived_at: str(l.attributes.inbound_ata_at),
    estimated_arrival_at: str(l.attributes.inbound_eta_at),
    departed_at: str(l.attributes.outbound_atd_at),
    estimated_departure_at: str(l.attributes.outbound_etd_at),
  }));
  const legs: RouteLeg[] = [];
  for (let i = 0; i + 1 < locations.length; i++) {
    const from = locations[i] as RouteResourceLike;
    const to = stops[i + 1] as RouteStop;
    const stop = stops[i] as RouteStop;
    legs.push({
      mode: (str(from.attributes.outbound_mode) ?? "vessel") as RouteLeg["mode"],
      from_locode: stop.locode,
      to_locode: to.locode,
      vessel: vesselOf(from, "outbound"),
      carrier_scac: str(from.attributes.outbound_scac),
      departed_at: stop.departed_at,
      estimated_departure_at: stop.estimated_departure_at,
      arrived_at: to.arrived_at,
      estimated_arrival_at: to.estimated_arrival_at,
    });
  }
  return {
    container_id: container.id,
    container_number: str(doc.data.attributes.container_number) ?? "",
    stops,
    legs,
  };
}
