import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../env";
import { queryParams } from "../lib/http";
import { listLinksAndMeta, parsePage } from "../lib/jsonapi/pagination";
import { commonErrors, jsonApiContent, ListLinksSchema, listQuery, resourceSchema, sendJsonApi } from "../lib/openapi";
import { SearchResultAttributes } from "./schemas";
import { serializeSearchResult } from "./serializer";
import { MAX_SEARCH_QUERY_LENGTH, MAX_SEARCH_RESULTS, normalizeSearchQuery, searchAccount } from "./service";

/** Results per page when `page[size]` is not given: the reference's 25 (docs/api.md §Search). */
export const SEARCH_PAGE_SIZE = 25;

const SearchResultSchema = resourceSchema("search_result", SearchResultAttributes, "SearchResult");

const searchRouteDef = createRoute({
  method: "get",
  path: "/search",
  tags: ["Search"],
  summary: "Search shipments, containers and tracking requests",
  description: `Matches container numbers, BL and booking numbers, request numbers, reference numbers, vessel names and POL/POD names and UN/LOCODEs within the account (spaces and dashes ignored, any case). Ranked whole-term matches first, then prefixes, then substrings; within each, shipments, containers, tracking requests, newest first. A tracking request whose number is a shipment's BL/booking number is left out. Pages of ${SEARCH_PAGE_SIZE} by default (the first ${MAX_SEARCH_RESULTS} results are reachable); \`links.next\` when there is more. No \`meta\`.`,
  request: {
    query: z.object({
      query: z
        .string()
        .optional()
        .openapi({
          description: `What to look for (1–${MAX_SEARCH_QUERY_LENGTH} characters).`,
          example: "MSCU1234566",
        }),
      ...listQuery,
    }),
  },
  responses: {
    200: {
      description: "Results in rank order.",
      content: jsonApiContent(
        z.object({ data: z.array(SearchResultSchema), links: ListLinksSchema }).openapi("SearchResultList"),
      ),
    },
    ...commonErrors,
  },
});

/**
 * `GET /v2/search` (docs/api.md §Search): the reference's `search_result` list, paged, with `links` `self`,
 * `current`, and `prev` / `next` when such a page exists; no `meta` (the reference has none, and a total would
 * mean counting every match).
 */
export const searchRoutes = new OpenAPIHono<AppEnv>().openapi(searchRouteDef, async (c) => {
  const params = queryParams(c);
  const query = normalizeSearchQuery(params.get("query"));
  const page = parsePage(params, SEARCH_PAGE_SIZE);
  const { hits, hasMore } = await searchAccount(c.get("db"), c.get("principal").accountId, query, {
    offset: page.offset,
    size: page.size,
  });
  // The list links of every other list, with a total that makes `next` exactly "there is more".
  const { links } = listLinksAndMeta(c.req.url, page, hits.length, page.offset + hits.length + (hasMore ? 1 : 0));
  const { first: _first, last: _last, ...kept } = links;
  return sendJsonApi(c, { data: hits.map(serializeSearchResult), links: kept });
});
