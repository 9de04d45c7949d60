import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../env";
import { includeParam, loadContext, queryParams } from "../lib/http";
import { collectionDocument, listDocument, resourceDocument } from "../lib/jsonapi/document";
import { parseInclude } from "../lib/jsonapi/include";
import { parsePage } from "../lib/jsonapi/pagination";
import {
  bodyErrors,
  commonErrors,
  ErrorDocumentSchema,
  includeQuery,
  jsonApiContent,
  jsonBodyContent,
  listQuery,
  notFoundResponse,
  pathIdParam,
  sendJsonApi,
} from "../lib/openapi";
import { RawEventListDocument } from "../raw-events/schemas";
import { rawEventResource } from "../raw-events/serializer";
import { listContainerRawEvents } from "../raw-events/service";
import { TransportEventListDocument } from "../transport-events/schemas";
import { transportEventResource } from "../transport-events/serializer";
import { listContainerTransportEvents } from "../transport-events/service";
import { CONTAINER_SORT_KEYS, parseContainerSort } from "./list-order";
import {
  ContainerDocument,
  ContainerListDocument,
  containerFilterParams,
  parseContainerFilters,
  UpdateContainerBody,
} from "./schemas";
import { containerResource } from "./serializer";
import { getContainerView, listContainers, refreshContainer, updateContainerRefNumbers } from "./service";
import { ROUTING_ENTITLEMENT, ROUTING_NOT_ENABLED_DETAIL } from "./shipping-route";
import { RouteDocument } from "./shipping-route-schemas";
import { parseRouteInclude, ROUTE_INCLUDES, routeDocument } from "./shipping-route-serializer";
import { getContainerRoute } from "./shipping-route-service";

const tags = ["Containers"];
const INCLUDES = ["shipment", "pod_terminal", "pickup_facility", "transport_events"];
const TRANSPORT_EVENT_INCLUDES = ["location", "terminal", "shipment", "container", "vessel"];
const RAW_EVENT_INCLUDES = ["location", "vessel", "container"];
/**
 * The raw events endpoint includes the event locations and vessels unless told otherwise, as the reference does
 * (docs/api.md §Includes: "returns `included` (location ports and vessels) even without an `include` parameter").
 */
const RAW_EVENT_DEFAULT_INCLUDE = "location,vessel";
const IdParam = pathIdParam("Container");

const listRouteDef = createRoute({
  method: "get",
  path: "/containers",
  tags,
  summary: "List containers",
  description:
    "The account's containers, newest first, or in the order of `sort` (an extension). `filter[has_holds]`, `filter[custom_field][slug|value]` and `filter[search]` are extensions too.",
  request: {
    query: z.object({
      ...listQuery,
      include: includeQuery(INCLUDES),
      sort: z
        .string()
        .optional()
        .openapi({
          description: `Extension: one of ${CONTAINER_SORT_KEYS.map((k) => `\`${k}\``).join(", ")}, with \`-\` in front for descending (\`sort=pickup_lfd\`, \`sort=-pod_eta_at\`). Ascending puts boxes without the value last; descending is the exact reverse. \`current_status\` sorts in journey order, \`available_for_pickup\` available first; \`pod_eta_at\` is the shipment's. Ties go by id in the same direction. Absent: newest first.`,
          example: "pickup_lfd",
        }),
      ...containerFilterParams,
    }),
  },
  responses: {
    200: { description: "A page of containers.", content: jsonApiContent(ContainerListDocument) },
    ...commonErrors,
  },
});

const getRouteDef = createRoute({
  method: "get",
  path: "/containers/{id}",
  tags,
  summary: "Get a container",
  request: {
    params: pathIdParam("Container"),
    query: z.object({ include: includeQuery(INCLUDES) }),
  },
  responses: {
    200: { description: "The container.", content: jsonApiContent(ContainerDocument) },
    ...commonErrors,
    ...notFoundResponse,
  },
});

const patchRouteDef = createRoute({
  method: "patch",
  path: "/containers/{id}",
  tags,
  summary: "Update a container's reference numbers",
  description:
    "`ref_numbers` replaces the container's list (at most 50 items of at most 255 characters; `[]` clears it). The reference declares this operation as `PATCH /containers` without an id; the id is in the path here. Answers the container as `GET /containers/{id}` does.",
  request: { params: IdParam, body: { content: jsonBodyContent(UpdateContainerBody), required: true } },
  responses: {
    200: { description: "The updated container.", content: jsonApiContent(ContainerDocument) },
    ...commonErrors,
    ...notFoundResponse,
    ...bodyErrors,
  },
});

const transportEventsRouteDef = createRoute({
  method: "get",
  path: "/containers/{id}/transport_events",
  tags,
  summary: "List a container's transport events",
  description:
    "Past, vetted milestones of the container, oldest first (`timestamp`, then `id`); estimates (`container.transport.estimated.*`) are not listed. Paginated like every list.",
  request: {
    params: IdParam,
    query: z.object({ ...listQuery, include: includeQuery(TRANSPORT_EVENT_INCLUDES) }),
  },
  responses: {
    200: { description: "A page of transport events.", content: jsonApiContent(TransportEventListDocument) },
    ...commonErrors,
    ...notFoundResponse,
  },
});

const rawEventsRouteDef = createRoute({
  method: "get",
  path: "/containers/{id}/raw_events",
  tags,
  summary: "List a container's raw carrier events (deprecated)",
  description:
    "Every carrier feed row of the container in carrier order (`index`), estimated rows included; not paginated (no `links`, no `meta`). The event locations (ports) are included by default; `include=` (empty) includes nothing. Deprecated: use `/containers/{id}/transport_events`.",
  deprecated: true,
  request: {
    params: IdParam,
    query: z.object({
      include: includeQuery(RAW_EVENT_INCLUDES).openapi({
        description: `Comma-separated relationships to include: ${RAW_EVENT_INCLUDES.join(", ")} (default: location,vessel).`,
      }),
    }),
  },
  responses: {
    200: { description: "The container's raw events.", content: jsonApiContent(RawEventListDocument) },
    ...commonErrors,
    ...notFoundResponse,
  },
});

const refreshRouteDef = createRoute({
  method: "patch",
  path: "/containers/{id}/refresh",
  tags,
  summary: "Refresh a container now",
  description:
    "Queues an immediate poll of the container's sources; results arrive as updates and webhooks. No request body. Answers plain JSON (not JSON:API) naming the sources queued. Own rate bucket: 10 per minute.",
  request: { params: IdParam },
  responses: {
    200: {
      description: "The refresh was queued.",
      content: {
        "application/json": {
          schema: z
            .object({ message: z.string().openapi({ example: "Started refresh for Shipping line, Terminal" }) })
            .openapi("RefreshResult"),
        },
      },
    },
    ...commonErrors,
    ...notFoundResponse,
    422: {
      description: "The container's shipment stopped tracking (`code: tracking_stopped`).",
      content: jsonApiContent(ErrorDocumentSchema),
    },
  },
});

const routeRouteDef = createRoute({
  method: "get",
  path: "/containers/{id}/route",
  tags,
  summary: "Get a container's route (paid feature `routing`)",
  description: `The container's route: its \`route_locations\` in journey order — port of lading (POL), transshipment and feeder ports, port of discharge (POD), inland destination — each with the leg arriving (\`inbound_*\`) and the leg leaving (\`outbound_*\`): mode (vessel, feeder, rail), vessel and voyage, rail carrier SCAC, estimated and actual times. Built from the container's milestones and estimates and its shipment's ETD/ETAs. \`include=port,vessel,route_location\` (what the reference SDK sends) adds the locations, their ports and vessels. Needs the \`${ROUTING_ENTITLEMENT}\` entitlement: without it every id answers 403 \`${ROUTING_NOT_ENABLED_DETAIL}\`.`,
  request: {
    params: IdParam,
    query: z.object({ include: includeQuery(ROUTE_INCLUDES) }),
  },
  responses: {
    200: { description: "The route.", content: jsonApiContent(RouteDocument) },
    ...commonErrors,
    403: {
      description: `The account lacks the \`${ROUTING_ENTITLEMENT}\` entitlement: title \`Forbidden\`, detail \`${ROUTING_NOT_ENABLED_DETAIL}\`, \`source: null\`.`,
      content: jsonApiContent(ErrorDocumentSchema),
    },
    ...notFoundResponse,
  },
});

/**
 * Routes of `/containers` (docs/api.md §Container endpoints; the route: docs/api.md §What a client can expect,
 * §Accounts and entitlements).
 */
export const containerRoutes = new OpenAPIHono<AppEnv>()
  .openapi(listRouteDef, async (c) => {
    const params = queryParams(c);
    const page = parsePage(params);
    const include = parseInclude(includeParam(params), containerResource);
    const filters = parseContainerFilters(Object.fromEntries(params));
    const sort = parseContainerSort(params.get("sort"));
    const ctx = loadContext(c);
    const { rows, total, prefetched } = await listContainers(ctx.db, ctx.accountId, filters, page, include, sort);
    return sendJsonApi(
      c,
      await listDocument(ctx, containerResource, rows, include, c.req.url, page, total, prefetched),
    );
  })
  .openapi(getRouteDef, async (c) => {
    const params = queryParams(c);
    const include = parseInclude(includeParam(params), containerResource);
    const ctx = loadContext(c);
    const { view, prefetched } = await getContainerView(ctx.db, ctx.accountId, c.req.valid("param").id, include);
    return sendJsonApi(c, await resourceDocument(ctx, containerResource, view, include, c.req.url, prefetched));
  })
  .openapi(patchRouteDef, async (c) => {
    const { data } = c.req.valid("json");
    const ctx = loadContext(c);
    const view = await updateContainerRefNumbers(
      { db: ctx.db, clock: c.var.clock },
      ctx.accountId,
      c.req.valid("param").id,
      { bodyId: data.id, refNumbers: data.attributes.ref_numbers },
    );
    return sendJsonApi(c, await resourceDocument(ctx, containerResource, view, new Map(), c.req.url));
  })
  .openapi(transportEventsRouteDef, async (c) => {
    const params = queryParams(c);
    const page = parsePage(params);
    const include = parseInclude(includeParam(params), transportEventResource);
    const ctx = loadContext(c);
    const { rows, total } = await listContainerTransportEvents(ctx.db, ctx.accountId, c.req.valid("param").id, page);
    return sendJsonApi(c, await listDocument(ctx, transportEventResource, rows, include, c.req.url, page, total));
  })
  .openapi(rawEventsRouteDef, async (c) => {
    const include = parseInclude(includeParam(queryParams(c), RAW_EVENT_DEFAULT_INCLUDE), rawEventResource);
    const ctx = loadContext(c);
    const rows = await listContainerRawEvents(ctx.db, ctx.accountId, c.req.valid("param").id);
    return sendJsonApi(c, await collectionDocument(ctx, rawEventResource, rows, include));
  })
  .openapi(routeRouteDef, async (c) => {
    // The include is checked before any read, so a bad one is a 400 whatever the account may see.
    const include = parseRouteInclude(queryParams(c).get("include"));
    const ctx = loadContext(c);
    const loaded = await getContainerRoute(ctx.db, c.get("primaryDb"), ctx.accountId, c.req.valid("param").id);
    return sendJsonApi(c, await routeDocument(loaded, include, c.req.url));
  })
  .openapi(refreshRouteDef, async (c) => {
    const sources = await refreshContainer(
      { db: c.var.db, trackers: c.env.TRACKER },
      c.var.principal.accountId,
      c.req.valid("param").id,
    );
    return c.json({ message: `Started refresh for ${sources.join(", ")}` }, 200);
  });
