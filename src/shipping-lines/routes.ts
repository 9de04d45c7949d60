import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../env";
import { ApiError } from "../lib/errors";
import { queryParams } from "../lib/http";
import { parseStringFilter } from "../lib/jsonapi/filters";
import { listLinksAndMeta, parsePage } from "../lib/jsonapi/pagination";
import {
  commonErrors,
  jsonApiContent,
  listDocumentSchema,
  listQuery,
  notFoundResponse,
  pathId,
  resourceSchema,
  sendJsonApi,
  singleDocumentSchema,
} from "../lib/openapi";
import { allShippingLines, findShippingLine } from "../reference/shipping-lines";
import { sourcesFor } from "../tracking/sources";
import { ShippingLineAttributes } from "./schemas";
import { serializeShippingLine } from "./serializer";
import { searchShippingLines } from "./service";

const tags = ["Shipping lines"];
const ShippingLineSchema = resourceSchema("shipping_line", ShippingLineAttributes, "ShippingLine");
/** All lines fit one page by default (the reference serves them unpaginated, docs/api.md §Reference data endpoints). */
const SHIPPING_LINES_PAGE_SIZE = 100;

const listRouteDef = createRoute({
  method: "get",
  path: "/shipping_lines",
  tags,
  summary: "List shipping lines",
  description: "Every known ocean carrier, sorted by SCAC. `search` matches SCAC, alternative SCACs and names.",
  request: { query: z.object({ ...listQuery, search: z.string().optional() }) },
  responses: {
    200: {
      description: "Shipping lines.",
      content: jsonApiContent(listDocumentSchema(ShippingLineSchema, "ShippingLineList")),
    },
    ...commonErrors,
  },
});

const getRouteDef = createRoute({
  method: "get",
  path: "/shipping_lines/{scac}",
  tags,
  summary: "Get a shipping line by SCAC (or alternative SCAC, or id)",
  request: {
    params: z.object({ scac: pathId("ShippingLine", "scac") }),
  },
  responses: {
    200: {
      description: "The line.",
      content: jsonApiContent(singleDocumentSchema(ShippingLineSchema, "ShippingLineDocument")),
    },
    ...commonErrors,
    ...notFoundResponse,
  },
});

/** Routes of `/shipping_lines` (docs/api.md §Reference data endpoints), served from the compiled reference registry. */
export const shippingLineRoutes = new OpenAPIHono<AppEnv>()
  .openapi(listRouteDef, (c) => {
    const params = queryParams(c);
    const page = parsePage(params, SHIPPING_LINES_PAGE_SIZE);
    const search = parseStringFilter(params.get("search"), "search", 100);
    const sourceOf = sourcesFor(c.env).lineSourceKind;
    const matching = searchShippingLines(search);
    const data = matching
      .slice(page.offset, page.offset + page.size)
      .map((l) => serializeShippingLine(l, sourceOf(l.scac)));
    const { links, meta } = listLinksAndMeta(c.req.url, page, data.length, matching.length);
    return sendJsonApi(c, { data, links, meta });
  })
  .openapi(getRouteDef, (c) => {
    const key = c.req.valid("param").scac;
    const line = findShippingLine(key) ?? allShippingLines().find((l) => l.id === key);
    if (!line) throw ApiError.notFound("Couldn't find ShippingLine");
    return sendJsonApi(c, {
      data: serializeShippingLine(line, sourcesFor(c.env).lineSourceKind(line.scac)),
      links: { self: c.req.url },
    });
  });
