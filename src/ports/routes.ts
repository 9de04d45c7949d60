import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../env";
import { ApiError } from "../lib/errors";
import { includeParam, loadContext, queryParams } from "../lib/http";
import { resourceDocument } from "../lib/jsonapi/document";
import { parseInclude } from "../lib/jsonapi/include";
import {
  commonErrors,
  includeQuery,
  jsonApiContent,
  notFoundResponse,
  pathIdParam,
  resourceSchema,
  sendJsonApi,
  singleDocumentSchema,
} from "../lib/openapi";
import { PortAttributes } from "./schemas";
import { portResource } from "./serializer";
import { findPort } from "./service";

const PortSchema = resourceSchema("port", PortAttributes, "Port");

const getRouteDef = createRoute({
  method: "get",
  path: "/ports/{id}",
  tags: ["Reference data"],
  summary: "Get a port by UN/LOCODE (current or alternative, e.g. CNSGH for CNSHA) or id",
  request: {
    params: pathIdParam("Port"),
    query: z.object({ include: includeQuery(["terminals"]) }),
  },
  responses: {
    200: { description: "The port.", content: jsonApiContent(singleDocumentSchema(PortSchema, "PortDocument")) },
    ...commonErrors,
    ...notFoundResponse,
  },
});

/**
 * `GET /ports/{id}`: by UN/LOCODE, current or alternative (`CNSGH` answers Shanghai, `code: CNSHA`; issue 12), or
 * UUID (docs/api.md §Reference data endpoints); `links.self` keeps what was asked.
 */
export const portRoutes = new OpenAPIHono<AppEnv>().openapi(getRouteDef, async (c) => {
  const id = c.req.valid("param").id;
  const include = parseInclude(includeParam(queryParams(c)), portResource);
  const row = await findPort(c.var.db, id);
  if (!row) throw ApiError.notFound("Couldn't find Port");
  return sendJsonApi(c, await resourceDocument(loadContext(c), portResource, row, include, c.req.url));
});
