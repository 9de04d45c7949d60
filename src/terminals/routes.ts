import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { eq } from "drizzle-orm";
import { terminals } from "../db/schema";
import type { AppEnv } from "../env";
import { ApiError } from "../lib/errors";
import { includeParam, loadContext, queryParams } from "../lib/http";
import { isUuid } from "../lib/ids";
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
import { TerminalAttributes } from "./schemas";
import { terminalResource } from "./serializer";

const TerminalSchema = resourceSchema("terminal", TerminalAttributes, "Terminal");

const getRouteDef = createRoute({
  method: "get",
  path: "/terminals/{id}",
  tags: ["Reference data"],
  summary: "Get a terminal",
  request: {
    params: pathIdParam("Terminal"),
    query: z.object({ include: includeQuery(["port"]) }),
  },
  responses: {
    200: {
      description: "The terminal.",
      content: jsonApiContent(singleDocumentSchema(TerminalSchema, "TerminalDocument")),
    },
    ...commonErrors,
    ...notFoundResponse,
  },
});

/** `GET /terminals/{id}` (docs/api.md §Reference data endpoints). */
export const terminalRoutes = new OpenAPIHono<AppEnv>().openapi(getRouteDef, async (c) => {
  const id = c.req.valid("param").id;
  const include = parseInclude(includeParam(queryParams(c)), terminalResource);
  if (!isUuid(id)) throw ApiError.notFound("Couldn't find Terminal");
  const [row] = await c.var.db.select().from(terminals).where(eq(terminals.id, id.toLowerCase())).limit(1);
  if (!row) throw ApiError.notFound("Couldn't find Terminal");
  return sendJsonApi(c, await resourceDocument(loadContext(c), terminalResource, row, include, c.req.url));
});
