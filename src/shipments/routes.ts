import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../env";
import { includeParam, loadContext, queryParams } from "../lib/http";
import { listDocument, resourceDocument } from "../lib/jsonapi/document";
import { parseInclude } from "../lib/jsonapi/include";
import { parsePage } from "../lib/jsonapi/pagination";
import {
  bodyErrors,
  commonErrors,
  includeQuery,
  jsonApiContent,
  jsonBodyContent,
  listQuery,
  notFoundResponse,
  pathIdParam,
  sendJsonApi,
} from "../lib/openapi";
import {
  parseShipmentFilters,
  ShipmentActionBody,
  ShipmentDocument,
  ShipmentListDocument,
  shipmentFilterParams,
  UpdateShipmentBody,
} from "./schemas";
import { shipmentResource } from "./serializer";
import { getShipment, listShipments, resumeShipmentTracking, stopTrackingShipment, updateShipment } from "./service";

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
      ...shipmentFilterParams,
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
    params: pathIdParam("Shipment"),
    query: z.object({ include: includeQuery(INCLUDES) }),
  },
  responses: {
    200: { description: "The shipment.", content: jsonApiContent(ShipmentDocument) },
    ...commonErrors,
    ...notFoundResponse,
  },
});

const IdParam = pathIdParam("Shipment");

const patchRouteDef = createRoute({
  method: "patch",
  path: "/shipments/{id}",
  tags,
  summary: "Update a shipment's reference numbers and tags",
  description: "Each list sent replaces the shipment's list (at most 50 items of at most 255 characters).",
  request: { params: IdParam, body: { content: jsonBodyContent(UpdateShipmentBody), required: true } },
  responses: {
    200: { description: "The updated shipment.", content: jsonApiContent(ShipmentDocument) },
    ...commonErrors,
    ...notFoundResponse,
    ...bodyErrors,
  },
});

const actionBody = { content: jsonBodyContent(ShipmentActionBody), required: false };

const stopRouteDef = createRoute({
  method: "patch",
  path: "/shipments/{id}/stop_tracking",
  tags,
  summary: "Stop tracking a shipment",
  description:
    "Sets `line_tracking_stopped_at` (reason `cancelled_by_user`); its containers stop updating and its tracking requests become `tracking_stopped`. Data collected so far stays readable. Body optional. Idempotent.",
  request: { params: IdParam, body: actionBody },
  responses: {
    200: { description: "The stopped shipment.", content: jsonApiContent(ShipmentDocument) },
    ...commonErrors,
    ...notFoundResponse,
    ...bodyErrors,
  },
});

const resumeRouteDef = createRoute({
  method: "patch",
  path: "/shipments/{id}/resume_tracking",
  tags,
  summary: "Resume tracking a shipment",
  description:
    "Clears the stop: tracking requests go back to `created` and the containers update again. Updates made upstream while stopped may be missed. Body optional. Idempotent.",
  request: { params: IdParam, body: actionBody },
  responses: {
    200: { description: "The shipment, tracking again.", content: jsonApiContent(ShipmentDocument) },
    ...commonErrors,
    ...notFoundResponse,
    ...bodyErrors,
  },
});

/** Routes of `/shipments` (docs/api.md §Shipment endpoints). */
export const shipmentRoutes = new OpenAPIHono<AppEnv>()
  .openapi(listRouteDef, async (c) => {
    const params = queryParams(c);
    const page = parsePage(params);
    const include = parseInclude(includeParam(params), shipmentResource);
    const filters = parseShipmentFilters(Object.fromEntries(params));
    const ctx = loadContext(c);
    const { rows, total } = await listShipments(ctx.db, ctx.accountId, filters, page);
    return sendJsonApi(c, await listDocument(ctx, shipmentResource, rows, include, c.req.url, page, total));
  })
  .openapi(getRouteDef, async (c) => {
    const params = queryParams(c);
    const include = parseInclude(includeParam(params), shipmentResource);
    const ctx = loadContext(c);
    const row = await getShipment(ctx.db, ctx.accountId, c.req.valid("param").id);
    return sendJsonApi(c, await resourceDocument(ctx, shipmentResource, row, include, c.req.url));
  })
  .openapi(patchRouteDef, async (c) => {
    const { data } = c.req.valid("json");
    const ctx = loadContext(c);
    const row = await updateShipment({ db: ctx.db, clock: c.var.clock }, ctx.accountId, c.req.valid("param").id, {
      bodyId: data.id,
      refNumbers: data.attributes.ref_numbers,
      tags: data.attributes.tags,
    });
    return sendJsonApi(c, await resourceDocument(ctx, shipmentResource, row, new Map(), c.req.url));
  })
  .openapi(stopRouteDef, async (c) => {
    const ctx = loadContext(c);
    const deps = { db: ctx.db, clock: c.var.clock, env: c.env };
    const row = await stopTrackingShipment(
      deps,
      ctx.accountId,
      c.req.valid("param").id,
      actionBodyId(c.req.valid("json")),
    );
    return sendJsonApi(c, await resourceDocument(ctx, shipmentResource, row, new Map(), c.req.url));
  })
  .openapi(resumeRouteDef, async (c) => {
    const ctx = loadContext(c);
    const deps = { db: ctx.db, clock: c.var.clock, env: c.env };
    const row = await resumeShipmentTracking(
      deps,
      ctx.accountId,
      c.req.valid("param").id,
      actionBodyId(c.req.valid("json")),
    );
    return sendJsonApi(c, await resourceDocument(ctx, shipmentResource, row, new Map(), c.req.url));
  });

/** `data.id` of an optional action body (the validator hands over `{}` when no body was sent). */
function actionBodyId(body: Partial<z.infer<typeof ShipmentActionBody>>): string | undefined {
  return body.data?.id;
}
