import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../env";
import { includeParam, loadContext, queryParams } from "../lib/http";
import { listDocument, resourceDocument } from "../lib/jsonapi/document";
import { parseInclude } from "../lib/jsonapi/include";
import { parsePage } from "../lib/jsonapi/pagination";
import { commonErrors, includeQuery, jsonApiContent, listQuery, notFoundResponse, sendJsonApi } from "../lib/openapi";
import { ShipmentDocument, ShipmentListDocument } from "./schemas";
import { shipmentResource } from "./serializer";
import { getShipment, listShipments } from "./service";

const tags = ["Shipments"];
const INCLUDES = [
  "containers",
  "pod_terminal",
  "port_of_lading",
  "port_of_discharge",
  "destination",
  "destination_terminal",
];

const listRouteDef = createRoute({
  method: "get",
  path: "/shipments",
  tags,
  summary: "List shipments",
  description: "The account's shipments, newest first. A new tracking request can take a few minutes to show here.",
  request: {
    query: z.object({
      ...listQuery,
      include: includeQuery(INCLUDES),
      number: z.string().optional().openapi({ description: "The tracked bill of lading or booking number." }),
      "filter[tracking_stopped]": z.enum(["true", "false"]).optional(),
      "filter[scac]": z.string().optional(),
      "filter[pod_locode]": z.string().optional(),
      "filter[updated_at][start]": z.string().optional().openapi({ description: "ISO 8601" }),
      "filter[updated_at][end]": z.string().optional().openapi({ description: "ISO 8601" }),
    }),
  },
  responses: {
    200: { description: "A page of shipments.", content: jsonApiContent(ShipmentListDocument) },
    ...commonErrors,
  },
});

const getRouteDef = createRoute({
  method: "get",
  path: "/shipments/{id}",
  tags,
  summary: "Get a shipment",
  request: {
    params: z.object({
      id: z
        .string()
        .max(64)
        .openapi({ param: { name: "id", in: "path" } }),
    }),
    query: z.object({ include: includeQuery(INCLUDES) }),
  },
  responses: {
    200: { description: "The shipment.", content: jsonApiContent(ShipmentDocument) },
    ...commonErrors,
    ...notFoundResponse,
  },
});

/** Routes of `/shipments` (SPEC.md §4.3b, R §3.11–3.12). */
export const shipmentRoutes = new OpenAPIHono<AppEnv>()
  .openapi(listRouteDef, async (c) => {
    const params = queryParams(c);
    const page = parsePage(params);
    const include = parseInclude(includeParam(params), shipmentResource);
    const ctx = loadContext(c);
    const { rows, total } = await listShipments(ctx.db, ctx.accountId, params, page);
    return sendJsonApi(c, await listDocument(ctx, shipmentResource, rows, include, c.req.url, page, total));
  })
  .openapi(getRouteDef, async (c) => {
    const params = queryParams(c);
    const include = parseInclude(includeParam(params), shipmentResource);
    const ctx = loadContext(c);
    const row = await getShipment(ctx.db, ctx.accountId, c.req.valid("param").id);
    return sendJsonApi(c, await resourceDocument(ctx, shipmentResource, row, include, c.req.url));
  });
