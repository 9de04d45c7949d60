import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../env";
import { loadContext, queryParams } from "../lib/http";
import { listLinksAndMeta, parsePage } from "../lib/jsonapi/pagination";
import {
  bodyErrors,
  commonErrors,
  jsonApiContent,
  jsonBodyContent,
  listDocumentSchema,
  listQuery,
  notFoundResponse,
  pathIdParam,
  sendJsonApi,
  singleDocumentSchema,
} from "../lib/openapi";
import { checkBodyId } from "../lib/validation";
import { CreateTariffBody, TariffSchema, UpdateTariffBody } from "./schemas";
import { tariffResource } from "./serializer";
import { createTariff, deleteTariff, getTariff, listTariffs, updateTariff } from "./service";

const tags = ["Tariffs"];
const TariffDocument = singleDocumentSchema(TariffSchema, "TariffDocument");
const IdParam = pathIdParam("Tariff");
const RULES =
  "A tariff prices one kind of charge (`demurrage`, `detention`, `combined`, `terminal_storage`) for a scope: `scac`, `port_code` (UN/LOCODE), `terminal_id`, `equipment_length`, `equipment_type`; a field left null matches every box, and the most specific matching tariff wins (docs/charges.md §Which tariff). `free_days` are counted in `calendar` or `business` days (weekends and the port's public holidays excluded) from the day after `clock_starts_at`; `tiers` price chargeable days (`from_day` 1 is the first day after free time), contiguous from day 1, one ISO 4217 currency, the last may be open-ended (`to_day` null). Each bad field is a 422 pointing at it.";

const listRoute = createRoute({
  method: "get",
  path: "/tariffs",
  tags,
  summary: "List tariffs",
  description: "The account's tariffs, newest first.",
  request: { query: z.object(listQuery) },
  responses: {
    200: { description: "A page of tariffs.", content: jsonApiContent(listDocumentSchema(TariffSchema, "TariffList")) },
    ...commonErrors,
  },
});

const createRoute_ = createRoute({
  method: "post",
  path: "/tariffs",
  tags,
  summary: "Create a tariff",
  description: RULES,
  request: { body: { content: jsonBodyContent(CreateTariffBody), required: true } },
  responses: {
    201: { description: "Created.", content: jsonApiContent(TariffDocument) },
    ...commonErrors,
    ...bodyErrors,
  },
});

const getRoute = createRoute({
  method: "get",
  path: "/tariffs/{id}",
  tags,
  summary: "Get a tariff",
  request: { params: IdParam },
  responses: {
    200: { description: "The tariff.", content: jsonApiContent(TariffDocument) },
    ...commonErrors,
    ...notFoundResponse,
  },
});

const updateRoute = createRoute({
  method: "patch",
  path: "/tariffs/{id}",
  tags,
  summary: "Update a tariff",
  description: `The attributes sent replace the stored ones; the result is checked whole. ${RULES}`,
  request: { params: IdParam, body: { content: jsonBodyContent(UpdateTariffBody), required: true } },
  responses: {
    200: { description: "The tariff.", content: jsonApiContent(TariffDocument) },
    ...commonErrors,
    ...notFoundResponse,
    ...bodyErrors,
  },
});

const deleteRoute = createRoute({
  method: "delete",
  path: "/tariffs/{id}",
  tags,
  summary: "Delete a tariff",
  description: "Answers 200 with an empty body, as the other deletes do. Charges are computed again without it.",
  request: { params: IdParam },
  responses: { 200: { description: "Deleted (empty body)." }, ...commonErrors, ...notFoundResponse },
});

/** Routes of `/tariffs` (issue 27 §1; docs/api.md §Tariffs): account-scoped CRUD. */
export const tariffRoutes = new OpenAPIHono<AppEnv>()
  .openapi(listRoute, async (c) => {
    const { db, accountId } = loadContext(c);
    const page = parsePage(queryParams(c));
    const { rows, total } = await listTariffs(db, accountId, page);
    const { links, meta } = listLinksAndMeta(c.req.url, page, rows.length, total);
    return sendJsonApi(c, { data: rows.map(tariffResource.serialize), links, meta });
  })
  .openapi(createRoute_, async (c) => {
    const { db, accountId } = loadContext(c);
    const row = await createTariff({ db, clock: c.var.clock }, accountId, c.req.valid("json").data.attributes);
    const self = `${new URL(c.req.url).origin}/v2/tariffs/${row.id}`;
    return sendJsonApi(c, { data: tariffResource.serialize(row), links: { self } }, 201);
  })
  .openapi(getRoute, async (c) => {
    const { db, accountId } = loadContext(c);
    const row = await getTariff(db, accountId, c.req.valid("param").id);
    return sendJsonApi(c, { data: tariffResource.serialize(row), links: { self: c.req.url } });
  })
  .openapi(updateRoute, async (c) => {
    const { db, accountId } = loadContext(c);
    const { id } = c.req.valid("param");
    const data = c.req.valid("json").data;
    checkBodyId(data.id, id);
    const row = await updateTariff({ db, clock: c.var.clock }, accountId, id, data.attributes);
    return sendJsonApi(c, { data: tariffResource.serialize(row), links: { self: c.req.url } });
  })
  .openapi(deleteRoute, async (c) => {
    const { db, accountId } = loadContext(c);
    await deleteTariff(db, accountId, c.req.valid("param").id);
    return c.body(null, 200) as never;
  });
