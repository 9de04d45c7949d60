import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { JSON_API_MEDIA_TYPE } from "./jsonapi/document";

/** JSON:API error object and document (docs/api.md §Errors). */
export const ErrorObjectSchema = z
  .object({
    status: z.string().openapi({ example: "422" }),
    title: z.string().openapi({ example: "Unprocessable Entity" }),
    detail: z.string().nullable().optional().openapi({ example: "Scac can't be blank" }),
    source: z
      .object({ pointer: z.string().optional(), parameter: z.string().optional() })
      .nullable()
      .optional()
      .openapi({ example: { pointer: "/data/attributes/scac" } }),
    code: z.string().optional().openapi({ example: "blank" }),
  })
  .openapi("Error");

export const ErrorDocumentSchema = z.object({ errors: z.array(ErrorObjectSchema) }).openapi("ErrorDocument");

const errorContent = { [JSON_API_MEDIA_TYPE]: { schema: ErrorDocumentSchema } };

/** The error responses every authenticated endpoint can give. */
export const commonErrors = {
  400: {
    description:
      "Bad query parameter: one the operation does not declare (code `unknown_parameter`: a filter it lacks, `sort`, `fields[...]`), one given twice (`duplicate_parameter`) or an invalid value; `source.parameter` names it. Or a malformed JSON body.",
    content: errorContent,
  },
  401: {
    description: 'Missing, malformed, unknown or revoked API key. Header `WWW-Authenticate: Token realm="api"`.',
    content: errorContent,
  },
  429: {
    description: "Rate bucket exceeded (rolling 60 s per account). Header `Retry-After` in whole seconds.",
    content: errorContent,
    headers: z.object({ "Retry-After": z.string().openapi({ example: "12" }) }),
  },
} as const;

/** 404 for an unknown id or another account's id. */
export const notFoundResponse = {
  404: { description: "No such resource in this account.", content: errorContent },
} as const;

/** 503 of reads that may serve rows from the retention archive (src/archive/reads.ts) when R2 cannot give them back. */
export const archiveUnavailableResponse = {
  503: {
    description:
      "Archived rows of this resource cannot be read right now (code `archive_unavailable`; docs/SCALING.md §Retention and archive). Header `Retry-After` in seconds.",
    content: errorContent,
    headers: z.object({ "Retry-After": z.string().openapi({ example: "60" }) }),
  },
} as const;

/** Errors of endpoints that take a JSON body. */
export const bodyErrors = {
  413: { description: "Body larger than 1 MiB.", content: errorContent },
  415: { description: "Body is not application/json or application/vnd.api+json.", content: errorContent },
  422: {
    description: "Body validation failed: one error per field, with `source.pointer` and `code`.",
    content: errorContent,
  },
} as const;

/** Media types accepted for request bodies (docs/decisions.md §Wire format). */
export function jsonBodyContent<T extends z.ZodType>(schema: T) {
  return {
    "application/json": { schema },
    [JSON_API_MEDIA_TYPE]: { schema },
  };
}

/** A JSON:API response body with the given schema. */
export function jsonApiContent<T extends z.ZodType>(schema: T) {
  return { [JSON_API_MEDIA_TYPE]: { schema } };
}

/** Longest id a path takes: ids are UUIDs (36 characters), SCACs or UN/LOCODEs; a longer one is no id of ours. */
export const MAX_PATH_ID_LENGTH = 64;

/**
 * A path parameter naming one `model` (`{id}`, or `{scac}` for shipping lines). An id longer than
 * `MAX_PATH_ID_LENGTH` cannot exist, so it answers, without a read, the very 404 an unknown id gets
 * (`Couldn't find <model>`, docs/api.md §Errors): the app's validation hook turns a path parameter's issue into a 404
 * whose detail is the message (src/lib/validation.ts; issue 11 §2).
 * @param model the model name of the service's own 404 (`Container`, `ShippingLine` …).
 * @param name the parameter's name in the path.
 */
export function pathId(model: string, name: string) {
  return z
    .string()
    .max(MAX_PATH_ID_LENGTH, { error: `Couldn't find ${model}` })
    .openapi({ param: { name, in: "path" } });
}

/** The `{id}` path parameters of a `model`'s routes (see `pathId`). */
export function pathIdParam(model: string) {
  return z.object({ id: pathId(model, "id") });
}

/** `page[number]`, `page[size]` and `include` query parameters, as documented for list endpoints. */
export const listQuery = {
  "page[number]": z.string().optional().openapi({ description: "1-based page number (default 1).", example: "1" }),
  "page[size]": z
    .string()
    .optional()
    .openapi({ description: "Items per page (default 30; values over 100 are clamped to 100).", example: "30" }),
};

/** `include` query parameter with its allowed names. */
export function includeQuery(names: string[]) {
  return z
    .string()
    .optional()
    .openapi({ description: `Comma-separated relationships to include: ${names.join(", ")} (dotted paths allowed).` });
}

/** A JSON:API resource object schema: `{id, type, attributes, relationships?, links?}`. */
export function resourceSchema(type: string, attributes: z.ZodType, name: string) {
  return z
    .object({
      id: z.string().openapi({ example: "0190f5c2-7f1e-7c3a-9a8e-3b2d1c4e5f60" }),
      type: z.literal(type),
      attributes,
      relationships: z.record(z.string(), z.object({ data: z.unknown() })).optional(),
      links: z.object({ self: z.string() }).optional(),
    })
    .openapi(name);
}

/** Pagination links and meta of list documents (docs/decisions.md §Wire format). */
export const ListLinksSchema = z
  .object({
    self: z.string(),
    current: z.string().optional(),
    first: z.string().optional(),
    prev: z.string().optional(),
    next: z.string().optional(),
    last: z.string().optional(),
  })
  .openapi("ListLinks");

export const ListMetaSchema = z
  .object({
    size: z.number().int(),
    total: z.number().int(),
    pagination: z.object({
      current: z.number().int(),
      next: z.number().int().optional(),
      last: z.number().int().optional(),
      records: z.number().int(),
    }),
  })
  .openapi("ListMeta");

/** `{data: resource, links, included?}`. */
export function singleDocumentSchema(resource: z.ZodType, name: string) {
  return z
    .object({
      data: resource,
      included: z.array(z.unknown()).optional(),
      links: z.object({ self: z.string() }).optional(),
    })
    .openapi(name);
}

/** `{data: resource[], included?, links, meta}`. */
export function listDocumentSchema(resource: z.ZodType, name: string) {
  return z
    .object({
      data: z.array(resource),
      included: z.array(z.unknown()).optional(),
      links: ListLinksSchema,
      meta: ListMetaSchema,
    })
    .openapi(name);
}

/**
 * Sends a JSON:API document with `application/vnd.api+json`. Typed `never` on purpose: the serializers
 * are the one source of a body's shape, and the route's response schema documents it; the handler's
 * return is not re-typed against that schema.
 */
export function sendJsonApi(c: Context, body: unknown, status: 200 | 201 = 200): never {
  return c.body(JSON.stringify(body), status, { "Content-Type": JSON_API_MEDIA_TYPE }) as never;
}
