/**
 * The JSON:API document of `GET /v2/containers/{id}/route` (shapes in shipping-route-schemas.ts): a
 * {@link ContainerRoute} as one `route` with its `route_locations` (the stops in journey order), their `port`s and
 * their `vessel`s.
 *
 * Ids are name-based UUIDs (`deterministicId`), so the same route always has the same ids: the route
 * `route:<container id>`, its locations `route_location:<container id>:<index>`, a vessel
 * `vessel:<IMO>:<name>` (the same vessel on two legs is one resource).
 *
 * Leg facts sit on both ends: leg `i` (from stop `i` to stop `i + 1`) is the `outbound_*` of location `i` and the
 * `inbound_*` of location `i + 1`; a stop's own times are its `inbound_eta_at`/`inbound_ata_at` and
 * `outbound_etd_at`/`outbound_atd_at`. So the route can be read back without loss (test/mcp/pure-parts.unit.test.ts
 * reads it back).
 */

import type { z } from "@hono/zod-openapi";
import type { ports } from "../db/schema";
import { ApiError } from "../lib/errors";
import { deterministicId } from "../lib/ids";
import { resourceTypeNamed } from "../lib/jsonapi/include-registry";
import type { JsonApiDocument, Linkage, ResourceObject } from "../lib/jsonapi/types";
import { findPortByLocode } from "../reference/locations";
import { vesselIdForImo } from "../vessels/identity";
import type { VesselRow } from "../vessels/position-store";
import { serializeVessel } from "../vessels/serializer";
import type { ContainerRoute, RouteLeg, VesselRef } from "./shipping-route";
import type { RouteAttributes, RouteLocationAttributes } from "./shipping-route-schemas";

/** Longest `include` value accepted (as src/lib/jsonapi/include.ts). */
const MAX_INCLUDE_LENGTH = 500;

/** Relationships of a `route` that `include` may name (with the SDK's singular spelling `route_location`). */
const ROUTE_RELATIONSHIPS = ["route_locations", "route_location", "port", "vessel"] as const;
/** Relationships of a `route_location` that `include` may name after `route_locations.`. */
const ROUTE_LOCATION_RELATIONSHIPS = ["port", "location", "inbound_vessel", "outbound_vessel"] as const;

/**
 * Include paths the route accepts, for the OpenAPI description. `route_location`, `port` and `vessel` are what the
 * reference SDK sends (`include=port,vessel,route_location`, docs/api.md §What a client can expect): shorthands for
 * `route_locations`, `route_locations.port` and `route_locations.inbound_vessel,route_locations.outbound_vessel`.
 * A port or vessel path also includes the route locations that link to it (JSON:API: the intermediate resources
 * of a path are included).
 */
export const ROUTE_INCLUDES = [
  ...ROUTE_RELATIONSHIPS,
  ...ROUTE_LOCATION_RELATIONSHIPS.map((name) => `route_locations.${name}`),
];

/** What a route document includes. */
export interface RouteInclude {
  routeLocations: boolean;
  ports: boolean;
  vessels: boolean;
}

function isOneOf<T extends string>(list: readonly T[], value: string | undefined): value is T {
  return value !== undefined && (list as readonly string[]).includes(value);
}

/**
 * Parses the `include` parameter of the route (absent or empty: nothing included); see {@link ROUTE_INCLUDES}.
 * @throws ApiError 400 (`source.parameter: include`) for an unknown name, worded as the reference service words it
 *   (`<name> is not specified as a relationship on V2::RouteSerializer`, or `V2::RouteLocationSerializer` after
 *   `route_locations.`), for a path nested deeper than that, or for a value over 500 characters.
 */
export function parseRouteInclude(raw: string | null | undefined): RouteInclude {
  const include: RouteInclude = { routeLocations: false, ports: false, vessels: false };
  if (raw === null || raw === undefined || raw.trim() === "") return include;
  if (raw.length > MAX_INCLUDE_LENGTH) throw ApiError.badParameter("include", "include is too long.");
  for (const part of raw.split(",")) {
    const path = part.trim();
    if (path === "") continue;
    const [first, second, ...deeper] = path.split(".");
    if (!isOneOf(ROUTE_RELATIONSHIPS, first)) {
      throw ApiError.badParameter("include", `${first} is not specified as a relationship on V2::RouteSerializer`);
    }
    let target: string = first;
    if (second !== undefined) {
      if (first !== "route_locations" && first !== "route_location") {
        throw ApiError.badParameter("include", `${path} is nested too deeply.`);
      }
      if (!isOneOf(ROUTE_LOCATION_RELATIONSHIPS, second)) {
        throw ApiError.badParameter(
          "include",
          `${second} is not specified as a relationship on V2::RouteLocationSerializer`,
        );
      }
      if (deeper.length > 0) throw ApiError.badParameter("include", `${path} is nested too deeply.`);
      target = second;
    }
    include.routeLocations = true;
    if (target === "port" || target === "location") include.ports = true;
    if (target === "vessel" || target === "inbound_vessel" || target === "outbound_vessel") include.vessels = true;
  }
  return include;
}

/** A route and the ports of its stops (rows of the `ports` reference table, by UN/LOCODE). */
export interface LoadedRoute {
  route: ContainerRoute;
  /** Ports whose `code` is the locode of a stop; stops without one link to no port. */
  ports: (typeof ports.$inferSelect)[];
  /** Rows of the `vessels` table for the legs' IMO numbers (MMSI, latest position); a leg's vessel may have none. */
  vessels: VesselRow[];
  /** `created_at` of the route: when its container was created (UTC ISO 8601). */
  createdAt: string;
  /** `updated_at` of the route: the later of its container's and its shipment's last change (UTC ISO 8601). */
  updatedAt: string;
}

/**
 * Id of a vessel resource: the IMO-number id every other document uses (`vesselIdForImo`), or, for a vessel known only
 * by name, one per name.
 */
async function vesselId(v: VesselRef): Promise<string> {
  return vesselIdForImo(v.imo) ?? deterministicId(`vessel::${v.name}`);
}

/**
 * The route document: `{data: route, included?, links: {self}}`, `included` as `include` asks (route locations in
 * journey order, then ports, then vessels, each once).
 */
export async function routeDocument(
  loaded: LoadedRoute,
  include: RouteInclude,
  selfUrl: string,
): Promise<JsonApiDocument> {
  const { route } = loaded;
  const portByCode = new Map(loaded.ports.map((p) => [p.code, p]));
  // A stop keeps the UN/LOCODE its events name; a retired one (CNSGH) finds the port under its current code (CNSHA).
  const portOf = (locode: string) => portByCode.get(findPortByLocode(locode)?.code ?? locode);
  const routeId = await deterministicId(`route:${route.container_id}`);
  const vessels = new Map<string, VesselRef>();
  const vesselLink = async (v: VesselRef | null | undefined): Promise<Linkage | null> => {
    if (!v) return null;
    const id = await vesselId(v);
    vessels.set(id, v);
    return { id, type: "vessel" };
  };

  const locations: ResourceObject[] = [];
  for (const [i, stop] of route.stops.entries()) {
    const inbound: RouteLeg | undefined = route.legs[i - 1];
    const outbound: RouteLeg | undefined = route.legs[i];
    const port = stop.locode ? portOf(stop.locode) : undefined;
    const portLink: Linkage | null = port ? { id: port.id, type: "port" } : null;
    const attributes: z.infer<typeof RouteLocationAttributes> = {
      role: stop.role,
      location_locode: stop.locode,
      location_name: stop.name,
      timezone: stop.timezone,
      inbound_mode: inbound?.mode ?? null,
      inbound_scac: inbound?.carrier_scac ?? null,
      inbound_voyage_number: inbound?.vessel?.voyage_number ?? null,
      inbound_eta_at: stop.estimated_arrival_at,
      inbound_ata_at: stop.arrived_at,
      outbound_mode: outbound?.mode ?? null,
      outbound_scac: outbound?.carrier_scac ?? null,
      outbound_voyage_number: outbound?.vessel?.voyage_number ?? null,
      outbound_etd_at: stop.estimated_departure_at,
      outbound_atd_at: stop.departed_at,
    };
    locations.push({
      id: await deterministicId(`route_location:${route.container_id}:${i}`),
      type: "route_location",
      attributes,
      relationships: {
        // `location` as the reference's documentation names it, `port` as its SDK reads it: the same linkage.
        location: { data: portLink },
        port: { data: portLink },
        inbound_vessel: { data: await vesselLink(inbound?.vessel) },
        outbound_vessel: { data: await vesselLink(outbound?.vessel) },
      },
    });
  }

  const attributes: z.infer<typeof RouteAttributes> = {
    container_number: route.container_number,
    total_legs: route.legs.length,
    created_at: loaded.createdAt,
    updated_at: loaded.updatedAt,
  };
  const data: ResourceObject = {
    id: routeId,
    type: "route",
    attributes,
    relationships: {
      container: { data: { id: route.container_id, type: "container" } },
      route_locations: { data: locations.map((l) => ({ id: l.id, type: l.type })) },
    },
  };
  const doc: JsonApiDocument = { data, links: { self: selfUrl } };
  if (include.routeLocations) {
    const included: ResourceObject[] = [...locations];
    if (include.ports) {
      const seen = new Set<string>();
      for (const stop of route.stops) {
        const port = stop.locode ? portOf(stop.locode) : undefined;
        if (!port || seen.has(port.id)) continue;
        seen.add(port.id);
        included.push(resourceTypeNamed("port").serialize(port));
      }
    }
    if (include.vessels) {
      // The `vessel` resource of GET /v2/vessels/{id}: the leg's name and IMO number, with the MMSI and latest position
      // of the vessels table where it has the vessel.
      const rows = new Map(loaded.vessels.map((r) => [r.id, r]));
      for (const [id, v] of vessels) {
        const row = rows.get(id);
        included.push(serializeVessel(row ? { ...row, id, name: v.name ?? row.name, imo: v.imo } : { id, ...v }));
      }
    }
    doc.included = included;
  }
  return doc;
}
