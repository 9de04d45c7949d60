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
  pathId,
  pathIdParam,
  sendJsonApi,
  singleDocumentSchema,
} from "../lib/openapi";
import { checkBodyId } from "../lib/validation";
import { createDefinition, deleteDefinition, getDefinition, listDefinitions, updateDefinition } from "./definitions";
import { createOption, deleteOption, getOption, listOptions, updateOption } from "./options";
import {
  CreateDefinitionBody,
  CreateOptionBody,
  DefinitionSchema,
  EntityTypeInput,
  OptionSchema,
  UpdateDefinitionBody,
  UpdateOptionBody,
} from "./schemas";
import { customFieldDefinitionResource, customFieldOptionResource } from "./serializer";
import { DATA_TYPES } from "./value-types";

const tags = ["Custom Field Definitions"];
const optionTags = ["Custom Field Options"];
const DefinitionDocument = singleDocumentSchema(DefinitionSchema, "CustomFieldDefinitionDocument");
const OptionDocument = singleDocumentSchema(OptionSchema, "CustomFieldOptionDocument");
const optionParams = z.object({
  definition_id: pathId("CustomFieldDefinition", "definition_id"),
  option_id: pathId("CustomFieldOption", "option_id"),
});
const definitionParam = z.object({ definition_id: pathId("CustomFieldDefinition", "definition_id") });
const deleted = { 200: { description: "Deleted (no body)." }, ...commonErrors, ...notFoundResponse };

const listDefinitionsRoute = createRoute({
  method: "get",
  path: "/custom_field_definitions",
  tags,
  summary: "List custom field definitions",
  description: "Oldest first. `filter[display_name]` is a prefix, compared without case.",
  request: {
    query: z.object({
      ...listQuery,
      "filter[entity_type]": EntityTypeInput.optional(),
      "filter[data_type]": z.enum(DATA_TYPES).optional(),
      "filter[display_name]": z.string().max(255).optional(),
    }),
  },
  responses: {
    200: {
      description: "A page of definitions.",
      content: jsonApiContent(listDocumentSchema(DefinitionSchema, "CustomFieldDefinitionList")),
    },
    ...commonErrors,
  },
});

const createDefinitionRoute = createRoute({
  method: "post",
  path: "/custom_field_definitions",
  tags,
  summary: "Create a custom field definition",
  description:
    "`api_slug` is unique in the account and, with `entity_type` and `data_type`, never changes. `reference_type` (`shipment`, `container`, `tracking_request`) is required for `reference` fields only.",
  request: { body: { content: jsonBodyContent(CreateDefinitionBody), required: true } },
  responses: {
    201: { description: "Created.", content: jsonApiContent(DefinitionDocument) },
    ...commonErrors,
    ...bodyErrors,
  },
});

const getDefinitionRoute = createRoute({
  method: "get",
  path: "/custom_field_definitions/{id}",
  tags,
  summary: "Get a custom field definition",
  request: { params: pathIdParam("CustomFieldDefinition") },
  responses: {
    200: { description: "The definition.", content: jsonApiContent(DefinitionDocument) },
    ...commonErrors,
    ...notFoundResponse,
  },
});

const updateDefinitionRoute = createRoute({
  method: "patch",
  path: "/custom_field_definitions/{id}",
  tags,
  summary: "Update a custom field definition",
  description:
    "Only `display_name`, `description`, `validation`, `default_format`, `default_value` change; sending `api_slug`, `entity_type` or `data_type` is a 422. Existing values are kept as they are.",
  request: {
    params: pathIdParam("CustomFieldDefinition"),
    body: { content: jsonBodyContent(UpdateDefinitionBody), required: true },
  },
  responses: {
    200: { description: "The definition.", content: jsonApiContent(DefinitionDocument) },
    ...commonErrors,
    ...notFoundResponse,
    ...bodyErrors,
  },
});

const deleteDefinitionRoute = createRoute({
  method: "delete",
  path: "/custom_field_definitions/{id}",
  tags,
  summary: "Delete a custom field definition, its options and every value of it",
  request: { params: pathIdParam("CustomFieldDefinition") },
  responses: deleted,
});

const listOptionsRoute = createRoute({
  method: "get",
  path: "/custom_field_definitions/{definition_id}/options",
  tags: optionTags,
  summary: "List a definition's options (by position, then creation)",
  request: { params: definitionParam, query: z.object(listQuery) },
  responses: {
    200: {
      description: "The options.",
      content: jsonApiContent(listDocumentSchema(OptionSchema, "CustomFieldOptionList")),
    },
    ...commonErrors,
    ...notFoundResponse,
  },
});

const createOptionRoute = createRoute({
  method: "post",
  path: "/custom_field_definitions/{definition_id}/options",
  tags: optionTags,
  summary: "Add an option to an enum / enum_multi definition",
  request: { params: definitionParam, body: { content: jsonBodyContent(CreateOptionBody), required: true } },
  responses: {
    201: { description: "Created.", content: jsonApiContent(OptionDocument) },
    ...commonErrors,
    ...notFoundResponse,
    ...bodyErrors,
  },
});

const getOptionRoute = createRoute({
  method: "get",
  path: "/custom_field_definitions/{definition_id}/options/{option_id}",
  tags: optionTags,
  summary: "Get an option",
  request: { params: optionParams },
  responses: {
    200: { description: "The option.", content: jsonApiContent(OptionDocument) },
    ...commonErrors,
    ...notFoundResponse,
  },
});

const updateOptionRoute = createRoute({
  method: "patch",
  path: "/custom_field_definitions/{definition_id}/options/{option_id}",
  tags: optionTags,
  summary: "Change an option's label or position",
  request: { params: optionParams, body: { content: jsonBodyContent(UpdateOptionBody), required: true } },
  responses: {
    200: { description: "The option.", content: jsonApiContent(OptionDocument) },
    ...commonErrors,
    ...notFoundResponse,
    ...bodyErrors,
  },
});

const deleteOptionRoute = createRoute({
  method: "delete",
  path: "/custom_field_definitions/{definition_id}/options/{option_id}",
  tags: optionTags,
  summary: "Delete an option (values using it keep their stored value)",
  request: { params: optionParams },
  responses: deleted,
});

/**
 * Routes of `/custom_field_definitions` and their `/options` (docs/api.md §Custom fields): the reference's shapes,
 * with DELETE answering 200 without a body as it does.
 */
export const customFieldDefinitionRoutes = new OpenAPIHono<AppEnv>()
  .openapi(listDefinitionsRoute, async (c) => {
    const ctx = loadContext(c);
    const page = parsePage(queryParams(c), 25);
    const q = c.req.valid("query");
    const { rows, total } = await listDefinitions(
      ctx.db,
      ctx.accountId,
      {
        entityType: q["filter[entity_type]"],
        dataType: q["filter[data_type]"],
        displayName: q["filter[display_name]"],
      },
      page,
    );
    const { links, meta } = listLinksAndMeta(c.req.url, page, rows.length, total);
    return sendJsonApi(c, { data: rows.map(customFieldDefinitionResource.serialize), links, meta });
  })
  .openapi(createDefinitionRoute, async (c) => {
    const { db, accountId } = loadContext(c);
    const a = c.req.valid("json").data.attributes;
    const row = await createDefinition({ db, clock: c.var.clock }, accountId, {
      entityType: a.entity_type,
      apiSlug: a.api_slug,
      displayName: a.display_name,
      dataType: a.data_type,
      description: a.description,
      referenceType: a.reference_type,
      validation: a.validation,
      defaultFormat: a.default_format,
      defaultValue: a.default_value,
    });
    const self = `${new URL(c.req.url).origin}/v2/custom_field_definitions/${row.id}`;
    return sendJsonApi(c, { data: customFieldDefinitionResource.serialize(row), links: { self } }, 201);
  })
  .openapi(getDefinitionRoute, async (c) => {
    const { db, accountId } = loadContext(c);
    const row = await getDefinition(db, accountId, c.req.valid("param").id);
    return sendJsonApi(c, { data: customFieldDefinitionResource.serialize(row), links: { self: c.req.url } });
  })
  .openapi(updateDefinitionRoute, async (c) => {
    const { db, accountId } = loadContext(c);
    const { id } = c.req.valid("param");
    const data = c.req.valid("json").data;
    checkBodyId(data.id, id);
    const a = data.attributes;
    const row = await updateDefinition({ db, clock: c.var.clock }, accountId, id, {
      displayName: a.display_name,
      description: a.description,
      validation: a.validation,
      defaultFormat: a.default_format,
      defaultValue: a.default_value,
    });
    return sendJsonApi(c, { data: customFieldDefinitionResource.serialize(row), links: { self: c.req.url } });
  })
  .openapi(deleteDefinitionRoute, async (c) => {
    const { db, accountId } = loadContext(c);
    await deleteDefinition(db, accountId, c.req.valid("param").id);
    return c.body(null, 200) as never;
  })
  .openapi(listOptionsRoute, async (c) => {
    const { db, accountId } = loadContext(c);
    const page = parsePage(queryParams(c), 25);
    const all = await listOptions(db, accountId, c.req.valid("param").definition_id);
    const rows = all.slice(page.offset, page.offset + page.size);
    const { links, meta } = listLinksAndMeta(c.req.url, page, rows.length, all.length);
    return sendJsonApi(c, { data: rows.map(customFieldOptionResource.serialize), links, meta });
  })
  .openapi(createOptionRoute, async (c) => {
    const { db, accountId } = loadContext(c);
    const { definition_id } = c.req.valid("param");
    const a = c.req.valid("json").data.attributes;
    const row = await createOption({ db, clock: c.var.clock }, accountId, definition_id, a);
    const self = `${new URL(c.req.url).origin}/v2/custom_field_definitions/${definition_id}/options/${row.id}`;
    return sendJsonApi(c, { data: customFieldOptionResource.serialize(row), links: { self } }, 201);
  })
  .openapi(getOptionRoute, async (c) => {
    const { db, accountId } = loadContext(c);
    const p = c.req.valid("param");
    const row = await getOption(db, accountId, p.definition_id, p.option_id);
    return sendJsonApi(c, { data: customFieldOptionResource.serialize(row), links: { self: c.req.url } });
  })
  .openapi(updateOptionRoute, async (c) => {
    const { db, accountId } = loadContext(c);
    const p = c.req.valid("param");
    const data = c.req.valid("json").data;
    checkBodyId(data.id, p.option_id);
    const row = await updateOption(db, accountId, p.definition_id, p.option_id, data.attributes);
    return sendJsonApi(c, { data: customFieldOptionResource.serialize(row), links: { self: c.req.url } });
  })
  .openapi(deleteOptionRoute, async (c) => {
    const { db, accountId } = loadContext(c);
    const p = c.req.valid("param");
    await deleteOption(db, accountId, p.definition_id, p.option_id);
    return c.body(null, 200) as never;
  });
