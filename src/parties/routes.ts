import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { and, eq, sql } from "drizzle-orm";
import { parties } from "../db/schema";
import type { AppEnv } from "../env";
import { toIsoSeconds } from "../lib/clock";
import { bumpCount } from "../lib/counts";
import { ApiError } from "../lib/errors";
import { loadContext, queryParams } from "../lib/http";
import { newId } from "../lib/ids";
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
import { ownedBy } from "../lib/tenant";
import { freeText } from "../lib/validation";
import { partyResource } from "./serializer";

const tags = ["Parties"];
const PartySchema = resourceSchema("party", z.object({ company_name: z.string(), created_at: z.string() }), "Party");
/**
 * Body of `POST /parties` (docs/api.md §Party resource): `data.type` may be omitted, as in the reference's schema and
 * examples.
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

/** Routes of `/parties` (docs/api.md §Party resource): create, list, get. Company names are unique per account. */
export const partyRoutes = new OpenAPIHono<AppEnv>()
  .openapi(createRouteDef, async (c) => {
    const name = c.req.valid("json").data.attributes.company_name.trim();
    if (name === "")
      throw ApiError.invalidField("/data/attributes/company_name", "Company name can't be blank", "blank");
    const { db, accountId } = loadContext(c);
    const [existing] = await db
      .select({ id: parties.id })
      .from(parties)
      .where(and(eq(parties.accountId, accountId), sql`lower(${parties.companyName}) = lower(${name})`))
      .limit(1);
    if (existing)
      throw ApiError.invalidField("/data/attributes/company_name", `'${name}' already exists in Account`, "duplicate");
    const row = { id: newId(), accountId, companyName: name, createdAt: toIsoSeconds(c.var.clock.now()) };
    await db.batch([db.insert(parties).values(row), bumpCount(db, accountId, "party", 1)]);
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
    const [row] = await db
      .select()
      .from(parties)
      .where(and(ownedBy(parties.accountId, accountId), eq(parties.id, c.req.valid("param").id)))
      .limit(1);
    if (!row) throw ApiError.notFound("Couldn't find Party");
    return sendJsonApi(c, { data: partyResource.serialize(row), links: { self: c.req.url } });
  });
