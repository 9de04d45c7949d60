import { z } from "@hono/zod-openapi";
import { listDocumentSchema, resourceSchema, singleDocumentSchema } from "../lib/openapi";
import { freeText } from "../lib/validation";

/** Longest name of an API key, in characters. */
export const MAX_KEY_NAME_LENGTH = 100;

/** A key's name as typed: what it is for (`billing export`, `ops desk sync`); not blank. */
export const KeyName = freeText(MAX_KEY_NAME_LENGTH)
  .refine((s) => s.trim() !== "", { error: "can't be blank", params: { code: "blank" } })
  .openapi({ example: "ops desk sync" });

/** Attributes of a key as served (`key` only in the create response). */
export const ApiKeyAttributes = z.object({
  name: z.string(),
  prefix: z
    .string()
    .openapi({ description: "The key's first 13 characters, to tell keys apart.", example: "svc_live_AbCd" }),
  created_at: z.string(),
  last_used_at: z.string().nullable().openapi({ description: "Last request with the key (to the minute)." }),
  revoked_at: z.string().nullable(),
  key: z.string().optional().openapi({
    description: "The key itself: only in the response that creates it, never again (only its SHA-256 is stored).",
  }),
});
/** JSON:API `api_key` resource. */
export const ApiKeySchema = resourceSchema("api_key", ApiKeyAttributes, "ApiKey");
export const ApiKeyDocument = singleDocumentSchema(ApiKeySchema, "ApiKeyDocument");
export const ApiKeyListDocument = listDocumentSchema(ApiKeySchema, "ApiKeyList");

/** Body of `POST /api_keys`. */
export const CreateApiKeyBody = z
  .strictObject({
    data: z.strictObject({ type: z.literal("api_key"), attributes: z.strictObject({ name: KeyName }) }),
  })
  .openapi("CreateApiKeyBody");
