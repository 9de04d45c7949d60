import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { emailSubmissions } from "../db/schema";
import type { AppEnv } from "../env";
import { includeParam, loadContext, queryParams } from "../lib/http";
import { listDocument, resourceDocument } from "../lib/jsonapi/document";
import { parseInclude } from "../lib/jsonapi/include";
import { parsePage } from "../lib/jsonapi/pagination";
import { listPage } from "../lib/list-query";
import {
  commonErrors,
  includeQuery,
  jsonApiContent,
  listDocumentSchema,
  listQuery,
  notFoundResponse,
  pathId,
  resourceSchema,
  sendJsonApi,
  singleDocumentSchema,
} from "../lib/openapi";
import { emailSubmissionResource } from "./email-submission-serializer";
import { getEmailSubmission } from "./service";

const tags = ["Documents"];
/** Included when the request names no `include`, as the reference does (docs/api.md §E-mail submissions). */
const DEFAULT_INCLUDE = "documents,documents.last_document_representation";
const INCLUDES = ["account", "user", "documents", "documents.last_document_representation"];

/**
 * The include tree of an e-mail submissions request: `documents` (compact documents) and
 * `documents.last_document_representation`; `account` and `user` are the reference's names too and include nothing
 * (no such resources are served, docs/api.md §Documents "Includes"). No `include`: {@link DEFAULT_INCLUDE}.
 * @throws ApiError 400 for another name.
 */
function submissionInclude(params: URLSearchParams) {
  const kept = includeParam(params, DEFAULT_INCLUDE)
    .split(",")
    .map((p) => p.trim())
    .filter((p) => p !== "account" && p !== "user");
  return parseInclude(kept.join(","), emailSubmissionResource);
}

const EmailSubmissionSchema = resourceSchema(
  "email_submission",
  z.object({
    subject: z.string(),
    body: z.string().nullable(),
    from: z.array(z.string()),
    to: z.array(z.string()),
    cc: z.array(z.string()),
    sent_at: z.string().nullable(),
    message_id: z.string().nullable(),
    in_reply_to: z.string().nullable(),
    references: z.array(z.string()),
    content_type: z.string().nullable(),
    documents_count: z.number().int(),
    created_at: z.string(),
    updated_at: z.string(),
  }),
  "EmailSubmission",
);

const listDef = createRoute({
  method: "get",
  path: "/email_submissions",
  tags,
  summary: "List e-mail submissions",
  request: { query: z.object({ ...listQuery, include: includeQuery(INCLUDES) }) },
  responses: {
    200: {
      description: "A page of e-mail submissions, with their documents included by default.",
      content: jsonApiContent(listDocumentSchema(EmailSubmissionSchema, "EmailSubmissionList")),
    },
    ...commonErrors,
  },
});

const getDef = createRoute({
  method: "get",
  path: "/email_submissions/{id}",
  tags,
  summary: "Get an e-mail submission",
  request: {
    params: z.object({ id: pathId("EmailSubmission", "id") }),
    query: z.object({ include: includeQuery(INCLUDES) }),
  },
  responses: {
    200: {
      description: "The e-mail submission.",
      content: jsonApiContent(singleDocumentSchema(EmailSubmissionSchema, "EmailSubmissionDocument")),
    },
    ...commonErrors,
    ...notFoundResponse,
  },
});

/** Routes of `/email_submissions` (docs/api.md §E-mail submissions): list and get. */
export const emailSubmissionRoutes = new OpenAPIHono<AppEnv>()
  .openapi(listDef, async (c) => {
    const params = queryParams(c);
    const include = submissionInclude(params);
    const page = parsePage(params, 25);
    const ctx = loadContext(c);
    const { rows, total } = await listPage(ctx.db, emailSubmissions, "email_submission", ctx.accountId, [], page);
    return sendJsonApi(c, await listDocument(ctx, emailSubmissionResource, rows, include, c.req.url, page, total));
  })
  .openapi(getDef, async (c) => {
    const include = submissionInclude(queryParams(c));
    const ctx = loadContext(c);
    const row = await getEmailSubmission(ctx.db, ctx.accountId, c.req.valid("param").id);
    return sendJsonApi(c, await resourceDocument(ctx, emailSubmissionResource, row, include, c.req.url));
  });
