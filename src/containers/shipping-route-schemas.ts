/**
 * Schemas of `GET /v2/containers/{id}/route` (the paid `routing` feature): the `route`, `route_location` and
 * `vessel` resources, for the OpenAPI document and the typed client (src/client/types.ts infers its attribute
 * types from them). The shapes follow what the reference service's SDK and MCP server read from this endpoint
 * (docs/api.md §What a client can expect `containers.route`, docs/mcp.md §Compatibility with the reference server
 * `get_container_route`): a `route` whose `route_locations` are the stops in journey order, each with `inbound_*` /
 * `outbound_*` leg facts and links to its `port` and its inbound/outbound `vessel`. Our additions are marked "(ours)".
 */

import { z } from "@hono/zod-openapi";
import { resourceSchema } from "../lib/openapi";
import { VesselAttributes } from "../vessels/schemas";
import { ROUTE_LEG_MODES, ROUTE_STOP_ROLES } from "./shipping-route";

const ts = (description: string) =>
  z.string().nullable().openapi({ format: "date-time", example: "2025-05-01T06:00:00Z", description });

/** Attributes of a `route` (one per container). */
export const RouteAttributes = z
  .object({
    container_number: z.string().openapi({ description: "ISO 6346 container number (ours).", example: "MSCU1234566" }),
    total_legs: z
      .number()
      .int()
      .openapi({ description: "Legs between consecutive route locations: one fewer than locations (ours)." }),
    created_at: z
      .string()
      .openapi({ format: "date-time", description: "When the container (and so its route) was created." }),
    updated_at: z
      .string()
      .openapi({ format: "date-time", description: "The later of the container's and its shipment's last change." }),
  })
  .openapi("RouteAttributes");

const legMode = (side: "inbound" | "outbound") =>
  z
    .enum(ROUTE_LEG_MODES)
    .nullable()
    .openapi({
      description: `How the box ${side === "inbound" ? "arrives at" : "leaves"} this location: \`vessel\` (ocean), \`feeder\` (feeder vessel or barge), \`rail\`; null at the ${side === "inbound" ? "first" : "last"} location.`,
    });

/**
 * Attributes of a `route_location`: one stop of the route. `inbound_*` describe the leg that arrives here (null
 * at the first stop), `outbound_*` the leg that leaves (null at the last stop); times are UTC, `timezone` gives
 * their local meaning.
 */
export const RouteLocationAttributes = z
  .object({
    role: z.enum(ROUTE_STOP_ROLES).openapi({
      description:
        "port_of_lading (POL), transshipment (a transshipment or feeder port), port_of_discharge (POD), inland_destination (ours).",
    }),
    location_locode: z.string().nullable().openapi({ description: "UN/LOCODE (ours).", example: "SGSIN" }),
    location_name: z.string().nullable().openapi({ description: "Port or place name (ours).", example: "Singapore" }),
    timezone: z.string().nullable().openapi({ description: "IANA time zone (ours).", example: "Asia/Singapore" }),
    inbound_mode: legMode("inbound"),
    inbound_scac: z.string().nullable().openapi({
      description: "Who carries the inbound leg: the rail carrier's SCAC, or the shipping line's on vessel legs.",
    }),
    inbound_voyage_number: z.string().nullable(),
    inbound_eta_at: ts("Estimated arrival (ETA)."),
    inbound_ata_at: ts("Actual arrival (ATA)."),
    outbound_mode: legMode("outbound"),
    outbound_scac: z.string().nullable().openapi({
      description: "Who carries the outbound leg: the rail carrier's SCAC, or the shipping line's on vessel legs.",
    }),
    outbound_voyage_number: z.string().nullable(),
    outbound_etd_at: ts("Estimated departure (ETD)."),
    outbound_atd_at: ts("Actual departure (ATD)."),
  })
  .openapi("RouteLocationAttributes");

const RouteSchema = resourceSchema("route", RouteAttributes, "Route");
const RouteLocationSchema = resourceSchema("route_location", RouteLocationAttributes, "RouteLocation");
// The route's vessels are the `vessel` resource of GET /v2/vessels/{id}, completed from the vessels table.
const VesselSchema = resourceSchema("vessel", VesselAttributes, "Vessel");

/**
 * `{data: route, included?, links}`. `included` (only when asked with `include`) holds the `route_location`s in
 * journey order, then their `port`s (the `Port` resource of `GET /ports/{id}`), then their `vessel`s.
 */
export const RouteDocument = z
  .object({
    data: RouteSchema,
    included: z
      .array(z.union([RouteLocationSchema, VesselSchema, z.looseObject({ id: z.string(), type: z.literal("port") })]))
      .optional(),
    links: z.object({ self: z.string() }),
  })
  .openapi("RouteDocument");
