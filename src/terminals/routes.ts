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
import { terminalResource } from "./serializer";

const TerminalSchema = resourceSchema(
  "terminal",
  z.object({
    id: z.string(),
    name: z.string(),
    nickname: z.string().nullable(),
    firms_code: z.string().nullable(),
    smdg_code: z.string().nullable(),
    bic_facility_code: z.string().nullable(),
    provided_data: z.record(z.string(), z.union([z.boolean(), z.string()])).openapi({
      description:
        "For each field a terminal poll observes (`pickup_lfd`, `pod_full_out_at`, `available_for_pickup`, fees, holds, appointment, yard location, chassis), whether this deployment serves it at this terminal (true where one of its terminal sources covers the facility), each with a `<field>_notes` string; rail ramps also flag `empty_terminated_at`.",
    }),
    street: z.string().nullable(),
    city: z.string().nullable(),
    state: z.string().nullable(),
    state_abbr: z.string().nullable(),
    zip: z.string().nullable(),
    country: z.string().nullable().openapi({ description: "Country name in English", example: "United States" }),
    country_code: z.string().nullable(),
    time_zone: z.string().nullable().openapi({ description: "IANA time zone", example: "America/Los_Angeles" }),
    latitude: z.string().nullable().openapi({ description: "Decimal degrees (WGS 84)", example: "33.731389" }),
    longitude: z.string().nullable().openapi({ description: "Decimal degrees (WGS 84)", example: "-118.248611" }),
    facility_type: z.string().nullable(),
  }),
  "Terminal",
);

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

/** `GET /terminals/{id}` (R §3.20). */
export const terminalRoutes = new OpenAPIHono<AppEnv>().openapi(getRouteDef, async (c) => {
  const id = c.req.valid("param").id;
  const include = parseInclude(includeParam(queryParams(c)), terminalResource);
  if (!isUuid(id)) throw ApiError.notFound("Couldn't find Terminal");
  const [row] = await c.var.db.select().from(terminals).where(eq(terminals.id, id.toLowerCase())).limit(1);
  if (!row) throw ApiError.notFound("Couldn't find Terminal");
  return sendJsonApi(c, await resourceDocument(loadContext(c), terminalResource, row, include, c.req.url));
});
