import { createRoute, OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env";
import { ApiError } from "../lib/errors";
import { loadContext } from "../lib/http";
import { resourceDocument } from "../lib/jsonapi/document";
import {
  commonErrors,
  jsonApiContent,
  notFoundResponse,
  pathIdParam,
  resourceSchema,
  sendJsonApi,
  singleDocumentSchema,
} from "../lib/openapi";
import { findMetroArea } from "../reference/metro-areas";
import { MetroAreaAttributes } from "./schemas";
import { metroAreaResource } from "./serializer";

const MetroAreaSchema = resourceSchema("metro_area", MetroAreaAttributes, "MetroArea");

const getRouteDef = createRoute({
  method: "get",
  path: "/metro_areas/{id}",
  tags: ["Reference data"],
  summary: "Get a metro area by UN/LOCODE (e.g. USEWI) or id",
  description:
    "An inland city that groups rail ramps and inland ports (Elwood, Chicago, Dallas, Toronto…). Shared reference data: the same for every account.",
  request: { params: pathIdParam("MetroArea") },
  responses: {
    200: {
      description: "The metro area.",
      content: jsonApiContent(singleDocumentSchema(MetroAreaSchema, "MetroAreaDocument")),
    },
    ...commonErrors,
    ...notFoundResponse,
  },
});

/** `GET /metro_areas/{id}` (docs/api.md §Reference data endpoints): by UN/LOCODE or UUID; `links.self` as asked. */
export const metroAreaRoutes = new OpenAPIHono<AppEnv>().openapi(getRouteDef, async (c) => {
  const row = findMetroArea(c.req.valid("param").id);
  if (!row) throw ApiError.notFound("Couldn't find MetroArea");
  return sendJsonApi(c, await resourceDocument(loadContext(c), metroAreaResource, row, new Map(), c.req.url));
});
