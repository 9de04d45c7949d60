import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../env";
import { includeParam, loadContext, queryParams } from "../lib/http";
import { listDocument, resourceDocument } from "../lib/jsonapi/document";
import { parseInclude } from "../lib/jsonapi/include";
import { parsePage } from "../lib/jsonapi/pagination";
import { commonErrors, includeQuery, jsonApiContent, listQuery, notFoundResponse, sendJsonApi } from "../lib/openapi";
import { ContainerDocument, ContainerListDocument } from "./schemas";
import { containerResource } from "./serializer";
import { CONTAINER_STATUSES, getContainer, listContainers } from "./service";

const tags = ["Containers"];
const INCLUDES = ["shipment", "pod_terminal", "pickup_facility", "transport_events"];

const listRouteDef = createRoute({
  method: "get",
  path: "/containers",
  tags,
  summary: "List containers",
  description: "The account's containers, newest first.",
  request: {
    query: z.object({
      ...listQuery,
      include: includeQuery(INCLUDES),
      "filter[number]": z.string().optional().openapi({ description: "Container number (ISO 6346)." }),
      "filter[status]": z.enum(CONTAINER_STATUSES).optional().openapi({ description: "current_status" }),
      "filter[shipment_id]": z.string().optional(),
      "filter[pod_locode]": z.string().optional().openapi({ description: "UN/LOCODE of the port of discharge." }),
      "filter[scac]": z.string().optional(),
      "filter[updated_at][start]": z.string().optional().openapi({ description: "ISO 8601" }),
      "filter[updated_at][end]": z.string().optional().openapi({ description: "ISO 8601" }),
      "filter[pickup_lfd][start]": z.string().optional().openapi({ description: "ISO 8601" }),
      "filter[pickup_lfd][end]": z.string().optional().openapi({ description: "ISO 8601" }),
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
    params: z.object({
      id: z
        .string()
        .max(64)
        .openapi({ param: { name: "id", in: "path" } }),
    }),
    query: z.object({ include: includeQuery(INCLUDES) }),
  },
  responses: {
    200: { description: "The container.", content: jsonApiContent(ContainerDocument) },
    ...commonErrors,
    ...notFoundResponse,
  },
});

/** Routes of `/containers` (SPEC.md §4.1–4.2, R §3.1–3.2). */
export const containerRoutes = new OpenAPIHono<AppEnv>()
  .openapi(listRouteDef, async (c) => {
    const params = queryParams(c);
    const page = parsePage(params);
    const include = parseInclude(includeParam(params), containerResource);
    const ctx = loadContext(c);
    const { rows, total } = await listContainers(ctx.db, ctx.accountId, params, page);
    return sendJsonApi(c, await listDocument(ctx, containerResource, rows, include, c.req.url, page, total));
  })
  .openapi(getRouteDef, async (c) => {
    const params = queryParams(c);
    const include = parseInclude(includeParam(params), containerResource);
    const ctx = loadContext(c);
    const row = await getContainer(ctx.db, ctx.accountId, c.req.valid("param").id);
    return sendJsonApi(c, await resourceDocument(ctx, containerResource, row, include, c.req.url));
  });
