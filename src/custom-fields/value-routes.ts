import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
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
  pathId,
  pathIdParam,
  sendJsonApi,
  singleDocumentSchema,
} from "../lib/openapi";
import { checkBodyId } from "../lib/validation";
import { CreateValueBody, CustomFieldSchema, EntityTypeInput, EntityValueBody, UpdateValueBody } from "./schemas";
import { customFieldResource } from "./serializer";
import type { ValueEntityType } from "./value-types";
import {
  type CustomFieldView,
  deleteValue,
  getValue,
  getValueBySlug,
  listValues,
  requireEntity,
  updateValue,
  upsertValue,
} from "./values";

const ValueDocument = singleDocumentSchema(CustomFieldSchema, "CustomFieldDocument");
const ValueList = listDocumentSchema(CustomFieldSchema, "CustomFieldList");
const VALUE_TYPE_OF_ENTITY = {
  Shipment: "shipment",
  Container: "container",
  TrackingRequest: "tracking_request",
} as const;

function selfOf(c: Context<AppEnv>, id: string): string {
  return `${new URL(c.req.url).origin}/v2/custom_fields/${id}`;
}

function one(c: Context<AppEnv>, view: CustomFieldView, status: 200 | 201 = 200, self = c.req.url): never {
  return sendJsonApi(c, { data: customFieldResource.serialize(view), links: { self } }, status);
}

const tags = ["Custom Fields"];

const listRoute = createRoute({
  method: "get",
  path: "/custom_fields",
  tags,
  summary: "List custom field values",
  description: "Oldest first. `filter[entity_type]`: `Shipment`, `Container` (or `Cargo`), `TrackingRequest`.",
  request: {
    query: z.object({
      ...listQuery,
      "filter[entity_type]": EntityTypeInput.optional(),
      "filter[entity_id]": z.string().max(64).optional(),
      "filter[definition_id]": z.string().max(64).optional(),
    }),
  },
  responses: { 200: { description: "A page of values.", content: jsonApiContent(ValueList) }, ...commonErrors },
});

const createRouteDef = createRoute({
  method: "post",
  path: "/custom_fields",
  tags,
  summary: "Set a custom field value on a shipment or container",
  description:
    "The entity is `relationships.entity` (`shipment` or `container`). Like the per-entity POST it creates or replaces the entity's value of that `api_slug` (201 either way).",
  request: { body: { content: jsonBodyContent(CreateValueBody), required: true } },
  responses: {
    201: { description: "Created or replaced.", content: jsonApiContent(ValueDocument) },
    ...commonErrors,
    ...notFoundResponse,
    ...bodyErrors,
  },
});

const getRouteDef = createRoute({
  method: "get",
  path: "/custom_fields/{id}",
  tags,
  summary: "Get a custom field value",
  request: { params: pathIdParam("CustomField") },
  responses: {
    200: { description: "The value.", content: jsonApiContent(ValueDocument) },
    ...commonErrors,
    ...notFoundResponse,
  },
});

const patchRouteDef = createRoute({
  method: "patch",
  path: "/custom_fields/{id}",
  tags,
  summary: "Change a custom field value",
  request: { params: pathIdParam("CustomField"), body: { content: jsonBodyContent(UpdateValueBody), required: true } },
  responses: {
    200: { description: "The value.", content: jsonApiContent(ValueDocument) },
    ...commonErrors,
    ...notFoundResponse,
    ...bodyErrors,
  },
});

const deleteRouteDef = createRoute({
  method: "delete",
  path: "/custom_fields/{id}",
  tags,
  summary: "Delete a custom field value (200, no body)",
  request: { params: pathIdParam("CustomField") },
  responses: { 200: { description: "Deleted." }, ...commonErrors, ...notFoundResponse },
});

/** Routes of `/custom_fields` (docs/api.md §Custom fields). */
export const customFieldRoutes = new OpenAPIHono<AppEnv>()
  .openapi(listRoute, async (c) => {
    const ctx = loadContext(c);
    const page = parsePage(queryParams(c), 25);
    const q = c.req.valid("query");
    const type = q["filter[entity_type]"];
    const { rows, total } = await listValues(
      ctx.db,
      ctx.accountId,
      {
        entityType: type ? VALUE_TYPE_OF_ENTITY[type] : undefined,
        entityId: q["filter[entity_id]"],
        definitionId: q["filter[definition_id]"],
      },
      page,
    );
    const { links, meta } = listLinksAndMeta(c.req.url, page, rows.length, total);
    return sendJsonApi(c, { data: rows.map(customFieldResource.serialize), links, meta });
  })
  .openapi(createRouteDef, async (c) => {
    const { db, accountId } = loadContext(c);
    const data = c.req.valid("json").data;
    const entity = data.relationships.entity.data;
    const { view } = await upsertValue({ db, primary: c.var.primaryDb, clock: c.var.clock }, accountId, {
      entityType: entity.type,
      entityId: entity.id,
      apiSlug: data.attributes.api_slug,
      value: data.attributes.value,
    });
    return one(c, view, 201, selfOf(c, view.id));
  })
  .openapi(getRouteDef, async (c) => {
    const { db, accountId } = loadContext(c);
    return one(c, await getValue(db, accountId, c.req.valid("param").id));
  })
  .openapi(patchRouteDef, async (c) => {
    const { db, accountId } = loadContext(c);
    const { id } = c.req.valid("param");
    const data = c.req.valid("json").data;
    checkBodyId(data.id, id);
    const current = await getValue(db, accountId, id);
    return one(c, await updateValue({ db, clock: c.var.clock }, accountId, current, data.attributes.value));
  })
  .openapi(deleteRouteDef, async (c) => {
    const { db, accountId } = loadContext(c);
    const { id } = c.req.valid("param");
    await getValue(db, accountId, id);
    await deleteValue(db, accountId, id);
    return c.body(null, 200) as never;
  });

/** The per-entity routes of one entity type: `/{plural}/{param}/custom_fields[/{api_slug}]`. */
function entityRoutes(type: ValueEntityType, plural: string, param: string, model: string, tag: string) {
  const base = `/${plural}/{${param}}/custom_fields`;
  const params = z.object({ [param]: pathId(model, param) }) as z.ZodObject<Record<string, z.ZodString>>;
  const slugParams = z.object({
    [param]: pathId(model, param),
    api_slug: pathId("CustomField", "api_slug"),
  }) as z.ZodObject<Record<string, z.ZodString>>;
  const list = createRoute({
    method: "get",
    path: base,
    tags: [tag],
    summary: `List the custom field values of a ${type.replace("_", " ")}`,
    request: { params, query: z.object(listQuery) },
    responses: {
      200: { description: "The values.", content: jsonApiContent(ValueList) },
      ...commonErrors,
      ...notFoundResponse,
    },
  });
  const upsert = createRoute({
    method: "post",
    path: base,
    tags: [tag],
    summary: `Create or replace a custom field value of a ${type.replace("_", " ")} (by api_slug)`,
    request: { params, body: { content: jsonBodyContent(EntityValueBody), required: true } },
    responses: {
      201: { description: "Created or replaced.", content: jsonApiContent(ValueDocument) },
      ...commonErrors,
      ...notFoundResponse,
      ...bodyErrors,
    },
  });
  const get = createRoute({
    method: "get",
    path: `${base}/{api_slug}`,
    tags: [tag],
    summary: `Get a custom field value of a ${type.replace("_", " ")} by api_slug`,
    request: { params: slugParams },
    responses: {
      200: { description: "The value.", content: jsonApiContent(ValueDocument) },
      ...commonErrors,
      ...notFoundResponse,
    },
  });
  const patch = createRoute({
    method: "patch",
    path: `${base}/{api_slug}`,
    tags: [tag],
    summary: `Change a custom field value of a ${type.replace("_", " ")} by api_slug`,
    request: { params: slugParams, body: { content: jsonBodyContent(UpdateValueBody), required: true } },
    responses: {
      200: { description: "The value.", content: jsonApiContent(ValueDocument) },
      ...commonErrors,
      ...notFoundResponse,
      ...bodyErrors,
    },
  });
  const remove = createRoute({
    method: "delete",
    path: `${base}/{api_slug}`,
    tags: [tag],
    summary: `Delete a custom field value of a ${type.replace("_", " ")} by api_slug (204)`,
    request: { params: slugParams },
    responses: { 204: { description: "Deleted." }, ...commonErrors, ...notFoundResponse },
  });
  const deps = (c: Context<AppEnv>) => ({ db: c.get("db"), primary: c.get("primaryDb"), clock: c.var.clock });
  return new OpenAPIHono<AppEnv>()
    .openapi(list, async (c) => {
      const ctx = loadContext(c);
      const entityId = c.req.param(param) as string;
      const page = parsePage(queryParams(c), 25);
      await requireEntity(ctx.db, ctx.accountId, type, entityId);
      const { rows, total } = await listValues(ctx.db, ctx.accountId, { entityType: type, entityId }, page);
      const { links, meta } = listLinksAndMeta(c.req.url, page, rows.length, total);
      return sendJsonApi(c, { data: rows.map(customFieldResource.serialize), links, meta });
    })
    .openapi(upsert, async (c) => {
      const { accountId } = loadContext(c);
      const a = c.req.valid("json").data.attributes;
      const { view } = await upsertValue(deps(c), accountId, {
        entityType: type,
        entityId: c.req.param(param) as string,
        apiSlug: a.api_slug,
        value: a.value,
      });
      return one(c, view, 201, selfOf(c, view.id));
    })
    .openapi(get, async (c) => {
      const { db, accountId } = loadContext(c);
      const p = c.req.valid("param");
      return one(c, await getValueBySlug(db, accountId, type, p[param] as string, p.api_slug as string));
    })
    .openapi(patch, async (c) => {
      const { db, accountId } = loadContext(c);
      const p = c.req.valid("param");
      const current = await getValueBySlug(db, accountId, type, p[param] as string, p.api_slug as string);
      const data = c.req.valid("json").data;
      checkBodyId(data.id, current.id);
      return one(c, await updateValue(deps(c), accountId, current, data.attributes.value));
    })
    .openapi(remove, async (c) => {
      const { db, accountId } = loadContext(c);
      const p = c.req.valid("param");
      const current = await getValueBySlug(db, accountId, type, p[param] as string, p.api_slug as string);
      await deleteValue(db, accountId, current.id);
      return c.body(null, 204) as never;
    });
}

/**
 * The per-entity custom field routes on shipments, containers and tracking requests (docs/api.md §Custom fields):
 * list, upsert by `api_slug` (201), get/PATCH by slug (200), DELETE by slug (204).
 */
export const entityCustomFieldRoutes = new OpenAPIHono<AppEnv>()
  .route("/", entityRoutes("shipment", "shipments", "shipment_id", "Shipment", "Shipments"))
  .route("/", entityRoutes("container", "containers", "container_id", "Container", "Containers"))
  .route(
    "/",
    entityRoutes(
      "tracking_request",
      "tracking_requests",
      "tracking_request_id",
      "TrackingRequest",
      "Tracking Requests",
    ),
  );
