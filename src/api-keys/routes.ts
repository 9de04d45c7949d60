import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../env";
import { primaryContext, queryParams } from "../lib/http";
import { listLinksAndMeta, parsePage } from "../lib/jsonapi/pagination";
import {
  bodyErrors,
  commonErrors,
  jsonApiContent,
  jsonBodyContent,
  listQuery,
  notFoundResponse,
  pathIdParam,
  sendJsonApi,
} from "../lib/openapi";
import { ApiKeyDocument, ApiKeyListDocument, CreateApiKeyBody } from "./schemas";
import { apiKeyResource, serializeApiKey } from "./serializer";
import { createApiKey, getApiKey, keyEnvironmentOf, listApiKeys, revokeApiKey } from "./service";

const tags = ["API keys"];
const IdParam = pathIdParam("ApiKey");

const listRoute = createRoute({
  method: "get",
  path: "/api_keys",
  tags,
  summary: "List API keys",
  description:
    "The account's keys, revoked ones included, newest first: name, prefix, dates. Never the key or its hash.",
  request: { query: z.object(listQuery) },
  responses: {
    200: { description: "A page of keys.", content: jsonApiContent(ApiKeyListDocument) },
    ...commonErrors,
  },
});

const createKeyRoute = createRoute({
  method: "post",
  path: "/api_keys",
  tags,
  summary: "Create an API key",
  description:
    "Answers the new key in `attributes.key`, once: only its SHA-256 is stored, so it cannot be shown again. Keys are `svc_live_…`, or `svc_test_…` when the Worker runs locally (reached on localhost or 127.0.0.1), as `npm run keys` makes them. At most 50 active keys per account (422 code `limit`).",
  request: { body: { content: jsonBodyContent(CreateApiKeyBody), required: true } },
  responses: {
    201: { description: "Created, with `key`.", content: jsonApiContent(ApiKeyDocument) },
    ...commonErrors,
    ...bodyErrors,
  },
});

const getRoute_ = createRoute({
  method: "get",
  path: "/api_keys/{id}",
  tags,
  summary: "Get an API key",
  request: { params: IdParam },
  responses: {
    200: { description: "The key (without the key itself).", content: jsonApiContent(ApiKeyDocument) },
    ...commonErrors,
    ...notFoundResponse,
  },
});

const revokeRoute = createRoute({
  method: "delete",
  path: "/api_keys/{id}",
  tags,
  summary: "Revoke an API key",
  description:
    "The key stops authenticating within `AUTH_CACHE_TTL_SECONDS` (default 5 s; at once on the instance that revoked it). The key making the request may revoke itself. Revoking a revoked key changes nothing. Answers 200 with an empty body.",
  request: { params: IdParam },
  responses: { 200: { description: "Revoked (empty body)." }, ...commonErrors, ...notFoundResponse },
});

/** Routes of `/api_keys` (issue 28; docs/api.md §Team and API keys), account-scoped. */
export const apiKeyRoutes = new OpenAPIHono<AppEnv>()
  .openapi(listRoute, async (c) => {
    const { db, accountId } = primaryContext(c);
    const page = parsePage(queryParams(c));
    const { rows, total } = await listApiKeys(db, accountId, page);
    const { links, meta } = listLinksAndMeta(c.req.url, page, rows.length, total);
    return sendJsonApi(c, { data: rows.map(apiKeyResource.serialize), links, meta });
  })
  .openapi(createKeyRoute, async (c) => {
    const { db, accountId } = primaryContext(c);
    const { name } = c.req.valid("json").data.attributes;
    const row = await createApiKey({ db, clock: c.get("clock") }, accountId, name, keyEnvironmentOf(c.req.url));
    const self = `${new URL(c.req.url).origin}/v2/api_keys/${row.id}`;
    return sendJsonApi(c, { data: serializeApiKey(row), links: { self } }, 201);
  })
  .openapi(getRoute_, async (c) => {
    const { db, accountId } = primaryContext(c);
    const row = await getApiKey(db, accountId, c.req.valid("param").id);
    return sendJsonApi(c, { data: apiKeyResource.serialize(row), links: { self: c.req.url } });
  })
  .openapi(revokeRoute, async (c) => {
    const { db, accountId } = primaryContext(c);
    await revokeApiKey({ db, clock: c.get("clock") }, accountId, c.req.valid("param").id);
    return c.body(null, 200) as never;
  });
