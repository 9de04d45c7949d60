import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { ROUTING_ENTITLEMENT, ROUTING_NOT_ENABLED_DETAIL } from "../containers/shipping-route";
import { allShards } from "../db/shards";
import type { AppEnv } from "../env";
import { loadContext, queryParams } from "../lib/http";
import { resourceDocument } from "../lib/jsonapi/document";
import {
  commonErrors,
  ErrorDocumentSchema,
  jsonApiContent,
  notFoundResponse,
  resourceSchema,
  sendJsonApi,
  singleDocumentSchema,
} from "../lib/openapi";
import { VesselAttributes, vesselQuery } from "./schemas";
import { vesselType } from "./serializer";
import { getVessel, parsePositionWindow } from "./service";

const VesselSchema = resourceSchema("vessel", VesselAttributes, "Vessel");

const getRouteDef = createRoute({
  method: "get",
  path: "/vessels/{id}",
  tags: ["Vessels"],
  summary: "Get a vessel by id or IMO number",
  description: `A vessel by its id (UUID) or its 7-digit IMO number (the reference's \`/vessels/{id}\` and \`/vessels/{imo}\`): name, IMO, MMSI and the latest AIS position (null until the AIS feed has one, docs/configuration.md §AIS positions). Vessels are shared by every account. \`show_positions[from_timestamp]\` / \`show_positions[to_timestamp]\` (or \`show_positions=true\`) add \`positions\`, the recorded track (default: the last 7 days); they need the \`${ROUTING_ENTITLEMENT}\` entitlement, without which the request answers 403 \`${ROUTING_NOT_ENABLED_DETAIL}\`.`,
  request: {
    params: z.object({ id: z.string().openapi({ description: "Vessel id (UUID) or IMO number", example: "9301809" }) }),
    query: z.object(vesselQuery),
  },
  responses: {
    200: { description: "The vessel.", content: jsonApiContent(singleDocumentSchema(VesselSchema, "VesselDocument")) },
    ...commonErrors,
    403: {
      description: `Positions asked for by an account without the \`${ROUTING_ENTITLEMENT}\` entitlement: detail \`${ROUTING_NOT_ENABLED_DETAIL}\`, \`source: null\`.`,
      content: jsonApiContent(ErrorDocumentSchema),
    },
    ...notFoundResponse,
  },
});

/** `GET /vessels/{id}` (docs/api.md §Vessel resource); `links.self` echoes the URL as asked (IMO form kept). */
export const vesselRoutes = new OpenAPIHono<AppEnv>().openapi(getRouteDef, async (c) => {
  const ctx = loadContext(c);
  const window = parsePositionWindow(Object.fromEntries(queryParams(c)), c.var.clock.now());
  // Vessels are shared: the row and positions are in the primary, the records naming a vessel in every shard.
  const shards = allShards(c.env).map((s) => s.db);
  const view = await getVessel(c.get("primaryDb"), shards, ctx.accountId, c.req.valid("param").id, window);
  return sendJsonApi(c, await resourceDocument(ctx, vesselType, view, new Map(), c.req.url));
});
