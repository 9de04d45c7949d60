import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { parties } from "../db/schema";
import type { AppEnv } from "../env";
import { loadContext, queryParams } from "../lib/http";
import { listDocument } from "../lib/jsonapi/document";
import { parsePage } from "../lib/jsonapi/pagination";
import { listPage } from "../lib/list-query";
import {
  bodyErrors,
  commonErrors,
  jsonApiContent,
  jsonBodyContent,
  listDocumentSchema,
  listQuery,
  notFoundResponse,
  pathIdParam,
  resourceSchema,
  sendJsonApi,
  singleDocumentSchema,
} from "../lib/openapi";
import { freeText } from "../lib/validation";
import { partyResource } from "./serializer";
import { createParty, getParty, renameParty } from "./service";

const tags = ["Parties"];
const PartySchema = resourceSchema("party", z.object({ company_name: z.string(), created_at: z.string() }), "Party");
/**
 * Body of `POST /parties` and `PATCH /parties/{id}` (docs/api.md §Party resource): `company_name` only; `data.type` may
 * be omitted, as in the reference's schema and examples, and must be `party` when sent.
 */
const CreatePartyBody = z
  .strictObject({
    data: z.strictObject({
      type: z.literal("party").optional(),
      attributes: z.strictObject({ company_name: freeText(255) }),
    }),
  })
  .openapi("CreateParty");

const createRouteDef = createRoute({
  method: "post",
  path: "/parties",
  tags,
  summary: "Create a party (a customer of the account)",
  description: "Parties are the `customer` of tracking requests and shipments.",
  request: { body: { content: jsonBodyContent(CreatePartyBody), required: true } },
  responses: {
    201: { description: "Created.", content: jsonApiContent(singleDocumentSchema(PartySchema, "PartyDocument")) },
    ...commonErrors,
    ...bodyErrors,
  },
});

const listRouteDef = createRoute({
  method: "get",
  path: "/parties",
  tags,
  summary: "List parties",
  request: { query: z.object(listQuery) },
  responses: {
    200: { description: "A page of parties.", content: jsonApiContent(listDocumentSchema(PartySchema, "PartyList")) },
    ...commonErrors,
  },
});

const getRouteDef = createRoute({
  method: "get",
  path: "/parties/{id}",
  tags,
  summary: "Get a party",
  request: {
    params: pathIdParam("Party"),
  },
  responses: {
    200: { description: "The party.", content: jsonApiContent(singleDocumentSchema(PartySchema, "PartyDocument")) },
    ...commonErrors,
    ...notFoundResponse,
  },
});

const patchRouteDef = createRoute({
  method: "patch",
  path: "/parties/{id}",
  tags,
  summary: "Rename a party",
  description:
    "`company_name` is the only attribute. Blank: 422 at `/data/attributes/company_name`; a name another party of the account has (any case): 422 at `/data/attributes/customer`, as the reference words it.",
  request: {
    params: pathIdParam("Party"),
    body: { content: jsonBodyContent(CreatePartyBody), required: true },
  },
  responses: {
    200: {
      description: "The renamed party.",
      content: jsonApiContent(singleDocumentSchema(PartySchema, "PartyDocument")),
    },
    ...commonErrors,
    ...notFoundResponse,
    ...bodyErrors,
  },
});

/** Routes of `/parties` (docs/api.md §Party endpoints): create, list, get, rename. Company names are unique per account. */
export const partyRoutes = new OpenAPIHono<AppEnv>()
  .openapi(createRouteDef, async (c) => {
    const { db, accountId } = loadContext(c);
    const row = await createParty({ db, clock: c.var.clock }, accountId, {
      companyName: c.req.valid("json").data.attributes.company_name,
    });
    return sendJsonApi(c, { data: partyResource.serialize(row) }, 201);
  })
  .openapi(listRouteDef, async (c) => {
    const params = queryParams(c);
    const page = parsePage(params, 25);
    const ctx = loadContext(c);
    const { rows, total } = await listPage(ctx.db, parties, "party", ctx.accountId, [], page);
    return sendJsonApi(c, await listDocument(ctx, partyResource, rows, new Map(), c.req.url, page, total));
  })
  .openapi(getRouteDef, async (c) => {
    const { db, accountId } = loadContext(c);
    const row = await getParty(db, accountId, c.req.valid("param").id);
    return sendJsonApi(c, { data: partyResource.serialize(row), links: { self: c.req.url } });
  })
  .openapi(patchRouteDef, async (c) => {
    const { db, accountId } = loadContext(c);
    const row = await renameParty(db, accountId, c.req.valid("param").id, {
      companyName: c.req.valid("json").data.attributes.company_name,
    });
    return sendJsonApi(c, { data: partyResource.serialize(row), links: { self: c.req.url } });
  });
