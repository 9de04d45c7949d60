import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { ROUTING_ENTITLEMENT, ROUTING_NOT_ENABLED_DETAIL } from "../containers/shipping-route";
import type { AppEnv } from "../env";
import { ApiError } from "../lib/errors";
import { queryParams } from "../lib/http";
import {
  commonErrors,
  ErrorDocumentSchema,
  jsonApiContent,
  notFoundResponse,
  pathIdParam,
  sendJsonApi,
} from "../lib/openapi";
import {
  DEFAULT_SPEED_KNOTS,
  type FuturePositions,
  MAX_FUTURE_POSITIONS,
  predictFuturePositions,
  vesselForPrediction,
} from "./future-positions";
import { serializeVessel } from "./serializer";

/**
 * `GET /v2/vessels/{id}/future_positions` and `/future_positions_with_coordinates` (docs/api.md §Future positions). Both
 * paths have a literal last segment, so they never clash with `GET /v2/vessels/{key}` (one segment) whatever the
 * mounting order.
 */

const tags = ["Vessels", "Routing (Paid)"];

const PositionSchema = z
  .object({
    latitude: z.number(),
    longitude: z.number(),
    heading: z.number().nullable(),
    timestamp: z.string(),
    estimated: z.boolean(),
  })
  .openapi("VesselPosition");

const VesselWithPositionsDocument = z
  .object({
    data: z.object({
      id: z.string(),
      type: z.literal("vessel"),
      attributes: z.object({
        name: z.string().nullable(),
        imo: z.string().nullable(),
        mmsi: z.string().nullable(),
        latitude: z.number().nullable(),
        longitude: z.number().nullable(),
        nautical_speed_knots: z.number().nullable(),
        navigational_heading_degrees: z.number().nullable(),
        position_timestamp: z.string().nullable(),
        positions: z.array(PositionSchema),
      }),
    }),
    links: z.object({ self: z.string() }),
  })
  .openapi("VesselWithPositionsDocument");

const portQuery = {
  port_id: z
    .string()
    .optional()
    .openapi({ description: "Destination port of the leg: its id (UUID) or UN/LOCODE. Required." }),
  previous_port_id: z
    .string()
    .optional()
    .openapi({ description: "The port the leg starts from: its id (UUID) or UN/LOCODE. Required." }),
};
const coordinateQuery = {
  latitude: z
    .string()
    .optional()
    .openapi({ description: "Where the vessel is: latitude, −90…90. Required (or `current_latitude`)." }),
  longitude: z.string().optional().openapi({ description: "Longitude, −180…180. Required (or `current_longitude`)." }),
  current_latitude: z
    .string()
    .optional()
    .openapi({ description: "Alias of `latitude` (the retired routing guide's name)." }),
  current_longitude: z.string().optional().openapi({ description: "Alias of `longitude`." }),
};

const behaviour = `One point every minute (\`timestamp\` exactly 60 s apart), each \`estimated: true\` with \`heading\` along the track, along the shortest sea route (Eurostat maritime network; never a straight line over land), sailed from now at the vessel's last \`nautical_speed_knots\` (${DEFAULT_SPEED_KNOTS} kn when unknown or under 5 kn). At most ${MAX_FUTURE_POSITIONS} points (30 days): a longer passage stops short of the port. Needs the \`${ROUTING_ENTITLEMENT}\` entitlement: without it every request answers 403 \`${ROUTING_NOT_ENABLED_DETAIL}\`.`;

const responses = {
  200: {
    description: "The vessel with its predicted positions.",
    content: jsonApiContent(VesselWithPositionsDocument),
  },
  ...commonErrors,
  403: {
    description: `The account lacks the \`${ROUTING_ENTITLEMENT}\` entitlement.`,
    content: jsonApiContent(ErrorDocumentSchema),
  },
  ...notFoundResponse,
  422: {
    description: "A port has no coordinates, or no sea route joins the two ends.",
    content: jsonApiContent(ErrorDocumentSchema),
  },
};

const futurePositionsDef = createRoute({
  method: "get",
  path: "/vessels/{id}/future_positions",
  tags,
  summary: "Predicted positions of a vessel from the previous port to the next (paid feature `routing`)",
  description: `The leg from \`previous_port_id\` to \`port_id\` as if it started now, for a leg not yet begun. ${behaviour}`,
  request: { params: pathIdParam("Vessel"), query: z.object(portQuery) },
  responses,
});

const withCoordinatesDef = createRoute({
  method: "get",
  path: "/vessels/{id}/future_positions_with_coordinates",
  tags,
  summary: "Predicted positions of a vessel from a given position to the next port (paid feature `routing`)",
  description: `From \`latitude\`/\`longitude\` (the vessel's position now; the first point is that position) to \`port_id\`. ${behaviour}`,
  request: { params: pathIdParam("Vessel"), query: z.object({ ...portQuery, ...coordinateQuery }) },
  responses,
});

/** A required query parameter, trimmed; 400 naming it when missing or empty. */
function required(params: URLSearchParams, name: string): string {
  const value = params.get(name)?.trim();
  if (!value) throw ApiError.badParameter(name, `${name} is required.`);
  return value;
}

/**
 * A coordinate parameter (`latitude` or its alias `current_latitude` …): a decimal number within ±`limit`.
 * @throws ApiError 400 naming the parameter given (or the main name when neither is) when missing or invalid.
 */
function coordinate(params: URLSearchParams, name: string, alias: string, limit: number): number {
  const given = params.get(name) !== null ? name : params.get(alias) !== null ? alias : name;
  const raw = required(params, given);
  const value = /^[+-]?(\d+(\.\d*)?|\.\d+)$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isFinite(value) || Math.abs(value) > limit) {
    throw ApiError.badParameter(given, `${given} must be a number from -${limit} to ${limit}.`);
  }
  return value;
}

/** The `{data: vessel_with_positions, links: {self}}` document (docs/api.md §Future positions). */
export function vesselWithPositionsDocument(result: FuturePositions, selfUrl: string) {
  return { data: serializeVessel({ ...result.vessel, positions: result.positions }), links: { self: selfUrl } };
}

/**
 * Routes of the vessel's predicted positions (docs/api.md §Future positions). Order of checks: the entitlement (403),
 * the vessel (404, like every unknown id), the parameters (400 naming one), the ports (404).
 */
export const futurePositionRoutes = new OpenAPIHono<AppEnv>()
  .openapi(futurePositionsDef, async (c) => {
    const vessel = await vesselForPrediction(c.var.primaryDb, c.var.principal.accountId, c.req.valid("param").id);
    const params = queryParams(c);
    const portId = required(params, "port_id");
    const previousPortId = required(params, "previous_port_id");
    const result = await predictFuturePositions(c.var.db, vessel, { portId, previousPortId }, c.var.clock.now());
    return sendJsonApi(c, vesselWithPositionsDocument(result, c.req.url));
  })
  .openapi(withCoordinatesDef, async (c) => {
    const vessel = await vesselForPrediction(c.var.primaryDb, c.var.principal.accountId, c.req.valid("param").id);
    const params = queryParams(c);
    const portId = required(params, "port_id");
    const previousPortId = required(params, "previous_port_id");
    const latitude = coordinate(params, "latitude", "current_latitude", 90);
    const longitude = coordinate(params, "longitude", "current_longitude", 180);
    const result = await predictFuturePositions(
      c.var.db,
      vessel,
      { portId, previousPortId, from: { latitude, longitude } },
      c.var.clock.now(),
    );
    return sendJsonApi(c, vesselWithPositionsDocument(result, c.req.url));
  });
