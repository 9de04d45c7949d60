import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../env";
import { executionContextOf, includeParam, loadContext, queryParams } from "../lib/http";
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
import { sourcesFor } from "../tracking/sources";
import {
  CreateTrackingRequestBody,
  parseTrackingRequestFilters,
  TrackingRequestDocument,
  TrackingRequestListDocument,
  trackingRequestFilterParams,
  UpdateTrackingRequestBody,
} from "./schemas";
import { trackingRequestResource } from "./serializer";
import { createTrackingRequest, getTrackingRequest, listTrackingRequests, updateTrackingRequest } from "./service";

const tags = ["Tracking requests"];
const IdParam = pathIdParam("TrackingRequest");
/** `tracked_object` is included unless the client asks otherwise (docs/api.md §Includes). */
const DEFAULT_INCLUDE = "tracked_object";

const createRouteDef = createRoute({
  method: "post",
  path: "/tracking_requests",
  tags,
  summary: "Create a tracking request",
  description:
    "Starts tracking a bill of lading, booking or container number at a shipping line. Answers 201 with status `pending`; the lookup runs asynchronously. Sandbox: `scac: TEST` with `TEST-TR-SUCCEEDED` or `TEST-TR-FAILED`. Own rate bucket: 100 per minute.",
  request: { body: { content: jsonBodyContent(CreateTrackingRequestBody), required: true } },
  responses: {
    201: { description: "Created, status pending.", content: jsonApiContent(TrackingRequestDocument) },
    ...commonErrors,
    ...bodyErrors,
  },
});

const listRouteDef = createRoute({
  method: "get",
  path: "/tracking_requests",
  tags,
  summary: "List tracking requests",
  description: "Newest first. `tracked_object` (the shipment) is included by default.",
  request: {
    query: z.object({
      ...listQuery,
      include: includeQuery(["tracked_object", "customer"]),
      ...trackingRequestFilterParams,
    }),
  },
  responses: {
    200: { description: "A page of tracking requests.", content: jsonApiContent(TrackingRequestListDocument) },
    ...commonErrors,
  },
});

const getRouteDef = createRoute({
  method: "get",
  path: "/tracking_requests/{id}",
  tags,
  summary: "Get a tracking request",
  request: { params: IdParam, query: z.object({ include: includeQuery(["tracked_object", "customer"]) }) },
  responses: {
    200: { description: "The tracking request.", content: jsonApiContent(TrackingRequestDocument) },
    ...commonErrors,
    ...notFoundResponse,
  },
});

const patchRouteDef = createRoute({
  method: "patch",
  path: "/tracking_requests/{id}",
  tags,
  summary: "Update a tracking request's reference numbers",
  request: { params: IdParam, body: { content: jsonBodyContent(UpdateTrackingRequestBody), required: true } },
  responses: {
    200: { description: "The updated tracking request.", content: jsonApiContent(TrackingRequestDocument) },
    ...commonErrors,
    ...notFoundResponse,
    ...bodyErrors,
  },
});

/** The request's `waitUntil` as a `defer` (src/tracking-requests/service.ts), when the runtime gives one. */
function deferOf(c: Context<AppEnv>): ((work: Promise<unknown>) => void) | undefined {
  const ctx = executionContextOf(c);
  return ctx ? (work) => ctx.waitUntil(work) : undefined;
}

/** Routes of `/tracking_requests` (docs/api.md §Tracking request endpoints). */
export const trackingRequestRoutes = new OpenAPIHono<AppEnv>()
  .openapi(createRouteDef, async (c) => {
    const body = c.req.valid("json");
    const a = body.data.attributes;
    // `c.get`, not `c.var`: Hono's `c.var` copies every variable into a new object on each access.
    const row = await createTrackingRequest(
      {
        db: c.get("db"),
        clock: c.get("clock"),
        queue: c.env.TRACKING_REQUESTS_QUEUE,
        supportedScacs: sourcesFor(c.env).supportedScacs,
        defer: deferOf(c),
      },
      c.get("principal").accountId,
      {
        requestType: a.request_type,
        requestNumber: a.request_number,
        scac: a.scac,
        refNumbers: a.ref_numbers,
        shipmentTags: a.shipment_tags,
        autoDetectScac: a.auto_detect_vocc_scac,
        customerId: body.data.relationships?.customer.data?.id ?? null,
        initialCustomFields: a.initial_custom_fields,
      },
    );
    return sendJsonApi(c, { data: trackingRequestResource.serialize(row) }, 201);
  })
  .openapi(listRouteDef, async (c) => {
    const params = queryParams(c);
    const page = parsePage(params);
    const include = parseInclude(includeParam(params, DEFAULT_INCLUDE), trackingRequestResource);
    const filters = parseTrackingRequestFilters(Object.fromEntries(params));
    const ctx = loadContext(c);
    const { rows, total } = await listTrackingRequests(ctx.db, ctx.accountId, filters, page);
    return sendJsonApi(c, await listDocument(ctx, trackingRequestResource, rows, include, c.req.url, page, total));
  })
  .openapi(getRouteDef, async (c) => {
    const params = queryParams(c);
    const include = parseInclude(includeParam(params, DEFAULT_INCLUDE), trackingRequestResource);
    const ctx = loadContext(c);
    const row = await getTrackingRequest(ctx.db, ctx.accountId, c.req.valid("param").id);
    return sendJsonApi(c, await resourceDocument(ctx, trackingRequestResource, row, include, c.req.url));
  })
  .openapi(patchRouteDef, async (c) => {
    const body = c.req.valid("json");
    const a = body.data.attributes;
    const row = await updateTrackingRequest(
      { db: c.var.db, clock: c.var.clock },
      c.var.principal.accountId,
      c.req.valid("param").id,
      {
        bodyId: body.data.id,
        refNumbers: a.ref_numbers,
        refNumber: a.ref_number,
        shipmentTags: a.shipment_tags,
      },
    );
    return sendJsonApi(c, { data: trackingRequestResource.serialize(row), links: { self: c.req.url } });
  });
