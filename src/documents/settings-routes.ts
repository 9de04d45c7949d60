import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../env";
import { ApiError } from "../lib/errors";
import type { ResourceObject } from "../lib/jsonapi/types";
import {
  bodyErrors,
  commonErrors,
  jsonApiContent,
  jsonBodyContent,
  notFoundResponse,
  resourceSchema,
  sendJsonApi,
  singleDocumentSchema,
} from "../lib/openapi";
import {
  type DocumentSettingsView,
  getDocumentSettings,
  MAX_ALLOWED_SENDERS,
  updateDocumentSettings,
} from "./settings";

const tags = ["Documents"];

/**
 * The `document_settings` resource (docs/api.md §Document settings): `id` the account id; `auto_track`,
 * `email_submission_address` (read-only), `allowed_senders`, `updated_at` (null while the defaults apply).
 */
export function serializeDocumentSettings(view: DocumentSettingsView): ResourceObject {
  return {
    id: view.accountId,
    type: "document_settings",
    attributes: {
      auto_track: view.autoTrack,
      email_submission_address: view.emailSubmissionAddress,
      allowed_senders: view.allowedSenders,
      updated_at: view.updatedAt,
    },
    links: { self: "/document_settings" },
  };
}

const SettingsSchema = resourceSchema(
  "document_settings",
  z.object({
    auto_track: z.boolean(),
    email_submission_address: z.string().nullable(),
    allowed_senders: z.array(z.string()),
    updated_at: z.string().nullable(),
  }),
  "DocumentSettings",
);
const SettingsDocument = singleDocumentSchema(SettingsSchema, "DocumentSettingsDocument");

const PatchBody = z
  .strictObject({
    data: z.strictObject({
      type: z.literal("document_settings"),
      id: z.string().max(64).optional(),
      attributes: z.strictObject({
        auto_track: z.boolean().optional(),
        allowed_senders: z
          .array(z.string().max(254))
          .max(MAX_ALLOWED_SENDERS)
          .optional()
          .openapi({ description: "Addresses or `@domain`s allowed to e-mail documents in (replaces the list)." }),
      }),
    }),
  })
  .openapi("UpdateDocumentSettings");

const DESCRIPTION =
  "Our extension (the reference has only a dashboard for these). One per account, `id` the account id. `auto_track` (default false): an extracted document whose BL, booking or container numbers are not tracked yet creates their tracking requests (docs/documents.md §Tracking from documents). `email_submission_address` is read-only (an operator creates it); `allowed_senders` replaces the senders allowed to use it.";

const getDef = createRoute({
  method: "get",
  path: "/document_settings",
  tags,
  summary: "Get the account's document settings",
  description: DESCRIPTION,
  responses: {
    200: { description: "The settings.", content: jsonApiContent(SettingsDocument) },
    ...commonErrors,
  },
});

const patchDef = createRoute({
  method: "patch",
  path: "/document_settings",
  tags,
  summary: "Change the account's document settings",
  description: `${DESCRIPTION} Absent attributes are left as they are. 422 at \`/data/attributes/allowed_senders\` for an entry that is not an address or \`@domain\`, or when the account has no submission address; 404 when \`data.id\` is given and is not the account's id.`,
  request: { body: { content: jsonBodyContent(PatchBody), required: true } },
  responses: {
    200: { description: "The settings.", content: jsonApiContent(SettingsDocument) },
    ...commonErrors,
    ...notFoundResponse,
    ...bodyErrors,
  },
});

/** `GET`/`PATCH /document_settings` (docs/api.md §Document settings). */
export const documentSettingsRoutes = new OpenAPIHono<AppEnv>()
  .openapi(getDef, async (c) => {
    const view = await getDocumentSettings(c.get("db"), c.get("principal").accountId, c.env.EMAIL_SUBMISSION_DOMAIN);
    return sendJsonApi(c, { data: serializeDocumentSettings(view), links: { self: c.req.url } });
  })
  .openapi(patchDef, async (c) => {
    const { data } = c.req.valid("json");
    const { attributes } = data;
    // The singleton's id is the account's own: any other id names nothing this key may see.
    if (data.id !== undefined && data.id !== c.get("principal").accountId) {
      throw ApiError.notFound("Couldn't find DocumentSettings");
    }
    const view = await updateDocumentSettings(
      { db: c.get("db"), clock: c.get("clock"), domain: c.env.EMAIL_SUBMISSION_DOMAIN },
      c.get("principal").accountId,
      { autoTrack: attributes.auto_track, allowedSenders: attributes.allowed_senders },
    );
    return sendJsonApi(c, { data: serializeDocumentSettings(view), links: { self: c.req.url } });
  });
