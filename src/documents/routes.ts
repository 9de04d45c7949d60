import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../env";
import { ApiError } from "../lib/errors";
import { includeParam, loadContext, queryParams } from "../lib/http";
import { listDocument, resourceDocument } from "../lib/jsonapi/document";
import { type IncludeTree, parseInclude } from "../lib/jsonapi/include";
import { parsePage } from "../lib/jsonapi/pagination";
import {
  bodyErrors,
  commonErrors,
  includeQuery,
  jsonApiContent,
  jsonBodyContent,
  listDocumentSchema,
  listQuery,
  notFoundResponse,
  pathId,
  resourceSchema,
  sendJsonApi,
  singleDocumentSchema,
} from "../lib/openapi";
import { DOCUMENT_TYPES } from "./extraction";
import { DOWNLOAD_URL_TTL_SECONDS } from "./limits";
import { listDocuments, parseDocumentFilters, parseDocumentSort } from "./list";
import { documentListQuery } from "./list-schemas";
import { requestRotation } from "./rotation-job";
import { documentSchemaResource } from "./schemas";
import { documentLinkageQuery, documentResource, withDocumentLinkage } from "./serializer";
import {
  createDocument,
  type DocumentDeps,
  deleteDocument,
  documentDownloadUrl,
  getDocument,
  getDocumentView,
  requestExtraction,
  updateDocument,
} from "./service";

const tags = ["Documents"];

/**
 * `include` names the reference allows on documents (docs/api.md §Documents). `last_document_representation` and its
 * alias `current_extraction` include the extraction result, `shipments` and `cargos` the linked shipments and
 * containers (docs/documents.md §Links), `email_submission` the submission in its compact form; `account` and `user`
 * are accepted and include nothing (no account or user resource is served: docs/api.md §Documents "Includes");
 * anything else is the reference's 400.
 */
const INCLUDES = [
  "shipments",
  "cargos",
  "account",
  "user",
  "last_document_representation",
  "email_submission",
  "current_extraction",
];

/** The include tree of a documents request (see {@link INCLUDES}). @throws ApiError 400 for another name. */
function documentInclude(params: URLSearchParams): IncludeTree {
  const kept: string[] = [];
  for (const path of includeParam(params).split(",")) {
    const name = path.trim().split(".")[0] ?? "";
    if (name === "") continue;
    if (!INCLUDES.includes(name)) {
      throw ApiError.badParameter("include", `${name} is not specified as a relationship on V2::DocumentSerializer`);
    }
    if (Object.hasOwn(documentResource.relationships, name)) kept.push(path.trim());
  }
  return parseInclude(kept.join(","), documentResource);
}

const DocumentSchema = resourceSchema(
  "document",
  z.object({
    name: z.string(),
    document_type: z.string().nullable(),
    document_type_manual: z.string().nullable(),
    classification_notes: z.string().nullable(),
    source: z.enum(["upload", "api", "email", "split_document"]),
    file_name: z.string(),
    file_content_type: z.string().nullable(),
    file_size_bytes: z.number().int().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  }),
  "Document",
);
const DocumentDocument = singleDocumentSchema(DocumentSchema, "DocumentDocument");
const idParam = z.object({ id: pathId("Document", "id") });

const CreateBody = z
  .strictObject({
    data: z.strictObject({
      type: z.literal("document"),
      attributes: z.strictObject({ name: z.string().max(255), attached_document: z.string().max(512) }),
    }),
  })
  .openapi("CreateDocument");

const UpdateBody = z
  .strictObject({
    data: z.strictObject({
      type: z.literal("document"),
      attributes: z.strictObject({
        document_type_manual: z.string().max(100).nullable().optional(),
        extracted_data_manual: z.record(z.string(), z.unknown()).nullable().optional(),
      }),
    }),
  })
  .openapi("UpdateDocument");

function deps(c: Context<AppEnv>): DocumentDeps {
  return {
    db: c.get("db"),
    clock: c.get("clock"),
    bucket: c.env.DOCUMENTS_BUCKET,
    signingKey: c.env.DOCUMENT_SIGNING_KEY,
  };
}

/**
 * Queues a new extraction of the account's document (reextract, reclassify), or a new linking run (relink): 202
 * `{"status":"accepted"}`.
 * @throws ApiError 404 unknown or another account's; 503 when the queue refuses the message.
 */
async function rerun(c: Context<AppEnv>, id: string, kind: "extract" | "relink" = "extract") {
  const { db, accountId } = loadContext(c);
  const row = await getDocument(db, accountId, id);
  if (!(await requestExtraction(c.env.DOCUMENT_EXTRACTIONS_QUEUE, row, kind))) {
    throw new ApiError(503, `The ${kind === "relink" ? "relink" : "extraction"} could not be queued; try again.`);
  }
  return c.json({ status: "accepted" as const }, 202);
}

const createDef = createRoute({
  method: "post",
  path: "/documents",
  tags,
  summary: "Create a document from an uploaded blob",
  description:
    "`attached_document` is the `signed_id` of `POST /rails/active_storage/direct_uploads` whose bytes were PUT to its `direct_upload.url`. The same bytes twice in one account: 409 `duplicate_document`.",
  request: { body: { content: jsonBodyContent(CreateBody), required: true } },
  responses: {
    201: { description: "Created.", content: jsonApiContent(DocumentDocument) },
    409: { description: "The account already has a document with these bytes (`duplicate_document`)." },
    ...commonErrors,
    ...bodyErrors,
  },
});

const listDef = createRoute({
  method: "get",
  path: "/documents",
  tags,
  summary: "List documents",
  description:
    "Newest first unless `sort` says otherwise. Filters combine with AND; `meta.total` counts the documents that match.",
  request: { query: z.object({ ...listQuery, include: includeQuery(INCLUDES), ...documentListQuery }) },
  responses: {
    200: {
      description: "A page of documents.",
      content: jsonApiContent(listDocumentSchema(DocumentSchema, "DocumentList")),
    },
    ...commonErrors,
  },
});

const typesDef = createRoute({
  method: "get",
  path: "/documents/types",
  tags,
  summary: "Document types",
  responses: {
    200: {
      description: "The document types (`code`, `label`).",
      content: {
        "application/json": {
          schema: z.object({ document_types: z.array(z.object({ code: z.string(), label: z.string() })) }),
        },
      },
    },
    ...commonErrors,
  },
});

const getDef = createRoute({
  method: "get",
  path: "/documents/{id}",
  tags,
  summary: "Get a document",
  request: { params: idParam, query: z.object({ include: includeQuery(INCLUDES) }) },
  responses: {
    200: { description: "The document.", content: jsonApiContent(DocumentDocument) },
    ...commonErrors,
    ...notFoundResponse,
  },
});

const patchDef = createRoute({
  method: "patch",
  path: "/documents/{id}",
  tags,
  summary: "Set a document's manual classification and extracted data",
  request: { params: idParam, body: { content: jsonBodyContent(UpdateBody), required: true } },
  responses: {
    200: { description: "The document.", content: jsonApiContent(DocumentDocument) },
    ...commonErrors,
    ...notFoundResponse,
    ...bodyErrors,
  },
});

const deleteDef = createRoute({
  method: "delete",
  path: "/documents/{id}",
  tags,
  summary: "Delete a document and its file",
  request: { params: idParam },
  responses: { 204: { description: "Deleted." }, ...commonErrors, ...notFoundResponse },
});

const downloadDef = createRoute({
  method: "get",
  path: "/documents/{id}/download_url",
  tags,
  summary: "A short-lived download URL of the document's file",
  description: `The URL is signed for this document and account and works for ${DOWNLOAD_URL_TTL_SECONDS} seconds.`,
  request: { params: idParam },
  responses: {
    200: {
      description: "The URL.",
      content: { "application/json": { schema: z.object({ download_url: z.string() }) } },
    },
    ...commonErrors,
    ...notFoundResponse,
  },
});

/** `POST /documents/{id}/reextract` or `/reclassify`: both re-run the extractor, which also classifies. */
function rerunDef(action: "reextract" | "reclassify", summary: string) {
  return createRoute({
    method: "post",
    path: `/documents/{id}/${action}`,
    tags,
    summary,
    description:
      "Queues a new extraction (the extractor also classifies: `document_type` is its guess); its result becomes `last_document_representation` and sends `document.extracted` or `document.extraction_failed`.",
    request: { params: idParam },
    responses: {
      202: {
        description: "Accepted.",
        content: { "application/json": { schema: z.object({ status: z.literal("accepted") }) } },
      },
      ...commonErrors,
      ...notFoundResponse,
    },
  });
}

const reextractDef = rerunDef("reextract", "Extract the document again");

const relinkDef = createRoute({
  method: "post",
  path: "/documents/{id}/relink",
  tags,
  summary: "Link the document to shipments and containers again",
  description:
    "Queues a new linking run: the reference tokens are read again from the newest extraction and `extracted_data_manual` (`reference_numbers`, `po_numbers` … for PO numbers), matched against the account's shipments and containers; each new link sends `link.created`, links no token supports any more are removed. 503 when the run cannot be queued.",
  request: { params: idParam },
  responses: {
    202: {
      description: "Accepted.",
      content: { "application/json": { schema: z.object({ status: z.literal("accepted") }) } },
    },
    ...commonErrors,
    ...notFoundResponse,
  },
});
const reclassifyDef = rerunDef("reclassify", "Classify the document again");

/**
 * `POST /documents/{id}/rotate`'s body, plain JSON `{"degrees": 90 | 180 | 270}`. Declared loosely (any JSON) so that
 * a missing or wrong angle gets the reference's own 422 `Invalid rotation` from the handler rather than the generic
 * validation error; the OpenAPI schema shows the real shape.
 */
const RotateBody = z.any().openapi("RotateDocument", {
  type: "object",
  required: ["degrees"],
  properties: { degrees: { type: "integer", enum: [90, 180, 270], description: "Clockwise turn, degrees." } },
});

const rotateDef = createRoute({
  method: "post",
  path: "/documents/{id}/rotate",
  tags,
  summary: "Rotate an image document",
  description:
    "Turns the stored PNG or JPEG clockwise by `degrees`, in the background: the file in R2 is replaced by the rotated image (new `file_size_bytes`; fetch `download_url` again). PDFs, spreadsheets and TIFF images are not rotated (422).",
  request: { params: idParam, body: { content: { "application/json": { schema: RotateBody } }, required: false } },
  responses: {
    202: {
      description: "Accepted.",
      content: { "application/json": { schema: z.object({ status: z.literal("accepted") }) } },
    },
    422: {
      description:
        "`Invalid rotation` (degrees must be one of: 90, 180, 270), `Not an image`, `Not rotatable` (TIFF), `Image too large` or `No document attached`.",
    },
    ...commonErrors,
    ...notFoundResponse,
  },
});

const schemaDef = createRoute({
  method: "get",
  path: "/document_schemas/{id}",
  tags,
  summary: "Get a document schema",
  description:
    "`id` is `<document_type>@<schema_version>`; `schema_payload` is the JSON Schema of the extraction payload.",
  request: {
    params: z.object({ id: pathId("DocumentSchema", "id") }),
  },
  responses: {
    200: { description: "The schema." },
    ...commonErrors,
    ...notFoundResponse,
  },
});

/**
 * Routes of `/documents` (docs/api.md §Documents): create, list, types, get, update, delete, download_url, reextract,
 * reclassify, relink, rotate, and `/document_schemas/{id}`.
 */
export const documentRoutes = new OpenAPIHono<AppEnv>()
  .openapi(createDef, async (c) => {
    const { accountId } = c.get("principal");
    const attributes = c.req.valid("json").data.attributes;
    const row = await createDocument(deps(c), accountId, {
      name: attributes.name,
      signedId: attributes.attached_document,
    });
    await requestExtraction(c.env.DOCUMENT_EXTRACTIONS_QUEUE, row);
    const self = `${new URL(c.req.url).origin}/v2/documents/${row.id}`;
    return sendJsonApi(c, { data: documentResource.serialize(row), links: { self } }, 201);
  })
  .openapi(listDef, async (c) => {
    const params = queryParams(c);
    const include = documentInclude(params);
    const page = parsePage(params, 25);
    const filters = parseDocumentFilters(Object.fromEntries(params));
    const order = parseDocumentSort(params.get("sort"));
    const ctx = loadContext(c);
    const { rows, total } = await listDocuments(ctx.db, ctx.accountId, filters, page, order);
    return sendJsonApi(c, await listDocument(ctx, documentResource, rows, include, c.req.url, page, total));
  })
  .openapi(typesDef, (c) => c.json({ document_types: DOCUMENT_TYPES.map((t) => ({ ...t })) }, 200))
  .openapi(getDef, async (c) => {
    const include = documentInclude(queryParams(c));
    const ctx = loadContext(c);
    const row = await getDocumentView(ctx.db, ctx.accountId, c.req.valid("param").id);
    return sendJsonApi(c, await resourceDocument(ctx, documentResource, row, include, c.req.url));
  })
  .openapi(patchDef, async (c) => {
    const { accountId } = c.get("principal");
    const attributes = c.req.valid("json").data.attributes;
    const row = await updateDocument({ db: c.get("db"), clock: c.get("clock") }, accountId, c.req.valid("param").id, {
      documentTypeManual: attributes.document_type_manual,
      extractedDataManual: attributes.extracted_data_manual,
    });
    const [view] = withDocumentLinkage([row], await documentLinkageQuery(c.get("db"), accountId, [row.id]));
    return sendJsonApi(c, { data: documentResource.serialize(view ?? row), links: { self: c.req.url } });
  })
  .openapi(deleteDef, async (c) => {
    await deleteDocument(deps(c), c.get("principal").accountId, c.req.valid("param").id);
    return c.body(null, 204);
  })
  .openapi(downloadDef, async (c) => {
    const url = await documentDownloadUrl(
      deps(c),
      c.get("principal").accountId,
      c.req.valid("param").id,
      new URL(c.req.url).origin,
      DOWNLOAD_URL_TTL_SECONDS,
    );
    return c.json({ download_url: url }, 200);
  })
  .openapi(reextractDef, (c) => rerun(c, c.req.valid("param").id))
  .openapi(reclassifyDef, (c) => rerun(c, c.req.valid("param").id))
  .openapi(relinkDef, (c) => rerun(c, c.req.valid("param").id, "relink"))
  .openapi(rotateDef, async (c) => {
    const { db, accountId } = loadContext(c);
    const row = await getDocument(db, accountId, c.req.valid("param").id);
    const body: unknown = c.req.header("content-type") ? await c.req.json().catch(() => undefined) : undefined;
    const degrees = typeof body === "object" && body !== null ? (body as { degrees?: unknown }).degrees : undefined;
    await requestRotation({ bucket: c.env.DOCUMENTS_BUCKET, queue: c.env.DOCUMENT_EXTRACTIONS_QUEUE }, row, degrees);
    return c.json({ status: "accepted" as const }, 202);
  })
  .openapi(schemaDef, (c) => {
    const id = c.req.valid("param").id;
    const schema = documentSchemaResource(id);
    // The reference echoes the id (`… with 'id'=<id>`); ours does not, so an unknown id and an over-long one (which
    // never reaches here, src/lib/openapi.ts pathId) get the same answer, as on every other route.
    if (!schema) throw ApiError.notFound("Couldn't find DocumentSchema");
    return sendJsonApi(c, { data: schema, links: { self: c.req.url } });
  });
