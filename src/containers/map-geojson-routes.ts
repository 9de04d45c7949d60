import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../env";
import { commonErrors, ErrorDocumentSchema, jsonApiContent, notFoundResponse, pathIdParam } from "../lib/openapi";
import { getContainerMap } from "./map-geojson-service";
import { ROUTING_ENTITLEMENT, ROUTING_NOT_ENABLED_DETAIL } from "./shipping-route";

/**
 * `GET /v2/containers/{id}/map_geojson` (docs/api.md §Container map). The body is GeoJSON, not JSON:API: served as
 * `application/json` as the reference serves it (clients written for it check that type), or as RFC 7946's
 * `application/geo+json` to a client whose `Accept` names that type.
 */

const GEO_JSON_MEDIA_TYPE = "application/geo+json";

const FeatureSchema = z
  .object({
    type: z.literal("Feature"),
    geometry: z.object({
      type: z.enum(["Point", "LineString", "MultiLineString"]),
      coordinates: z.array(z.unknown()),
    }),
    properties: z.object({ feature_type: z.string() }).catchall(z.unknown()),
  })
  .openapi("MapFeature");

const ContainerMapSchema = z
  .object({ type: z.literal("FeatureCollection"), features: z.array(FeatureSchema) })
  .openapi("ContainerMap");

const mapRouteDef = createRoute({
  method: "get",
  path: "/containers/{id}/map_geojson",
  tags: ["Containers", "Routing (Paid)"],
  summary: "Get a container's map as GeoJSON (paid feature `routing`)",
  description: `An RFC 7946 FeatureCollection (not a JSON:API document): the route's ports as points (\`feature_type: port\`, \`label\` POL, TS1…, POD, with ETA/ATA/ETD/ATD), the vessel carrying the box now (\`current_vessel\`), the legs sailed (\`past_vessel_locations\`: the vessel's recorded track, else the sea route), the rest of the leg under way (\`estimated_partial_leg\`) and the legs not started (\`estimated_full_legs\`) along the sea route. Coordinates \`[longitude, latitude]\`; a leg crossing the antimeridian is a MultiLineString cut there. No route data yet: \`{"type":"FeatureCollection","features":[]}\`. Needs the \`${ROUTING_ENTITLEMENT}\` entitlement: without it every id answers 403 \`${ROUTING_NOT_ENABLED_DETAIL}\`.`,
  request: { params: pathIdParam("Container") },
  responses: {
    200: {
      description: "The map.",
      content: {
        "application/json": { schema: ContainerMapSchema },
        [GEO_JSON_MEDIA_TYPE]: { schema: ContainerMapSchema },
      },
    },
    ...commonErrors,
    403: {
      description: `The account lacks the \`${ROUTING_ENTITLEMENT}\` entitlement.`,
      content: jsonApiContent(ErrorDocumentSchema),
    },
    ...notFoundResponse,
  },
});

/** The map route (docs/api.md §Container map); mounted beside the other `/containers` routes. */
export const containerMapRoutes = new OpenAPIHono<AppEnv>().openapi(mapRouteDef, async (c) => {
  const map = await getContainerMap(
    c.var.db,
    c.var.primaryDb,
    c.var.principal.accountId,
    c.req.valid("param").id,
    c.var.clock.now(),
  );
  const type = (c.req.header("Accept") ?? "").includes(GEO_JSON_MEDIA_TYPE) ? GEO_JSON_MEDIA_TYPE : "application/json";
  return c.body(JSON.stringify(map), 200, { "Content-Type": type }) as never;
});
