import { z } from "@hono/zod-openapi";
import { listDocumentSchema, resourceSchema, singleDocumentSchema } from "../lib/openapi";

// Structure and types of webhook bodies are checked here (zod → 422 with pointers); the rules that need more than a
// type (SSRF, the event catalog, header names and values, limits) are checked by the service, so that every failing
// field is reported together with its pointer and code.

/** Upper bounds of the raw input, far above the service's limits: they only stop absurd bodies early. */
const RAW_URL_MAX = 8192;
const RAW_LIST_MAX = 200;
const RAW_STRING_MAX = 8192;

/** A custom header as sent in a body: `{name, value}` (R §1.13). */
const HeaderInput = z.strictObject({
  name: z.string().max(RAW_STRING_MAX).openapi({ example: "x-secret-sauce" }),
  value: z.string().max(RAW_STRING_MAX).openapi({ example: "sriracha" }),
});

const headersInput = z.array(HeaderInput).max(RAW_LIST_MAX).nullable().optional().openapi({
  description:
    "Custom headers sent with every delivery (at most 20). Names are HTTP tokens, stored capitalised (`x-secret-sauce` → `X-Secret-Sauce`); names the service sets itself (Content-Type, User-Agent, Host, `webhook-*`, `X-SVC-*` …) are refused. Values are printable ASCII, at most 1024 characters. `null` or `[]` for none.",
});

const eventsInput = z
  .array(z.string().max(RAW_STRING_MAX))
  .max(RAW_LIST_MAX)
  .openapi({
    description: "At least one event of the catalog (`GET /webhooks/events`); duplicates are ignored.",
    example: ["tracking_request.succeeded", "container.transport.vessel_arrived"],
  });

const urlInput = z.string().max(RAW_URL_MAX).openapi({
  description:
    "HTTPS URL of the receiver: a public DNS name (no IP address, no localhost or .local/.internal names, no user:password), default port or 1024–65535, at most 2048 characters.",
  example: "https://hooks.example.com/container-updates",
});

/** Body of `POST /webhooks` (R §3.14): `url` and `events` required, `active` defaults to true. */
export const CreateWebhookBody = z
  .strictObject({
    data: z.strictObject({
      type: z.literal("webhook"),
      attributes: z.strictObject({
        url: urlInput,
        active: z.boolean().optional().openapi({ description: "Default true." }),
        events: eventsInput,
        headers: headersInput,
      }),
    }),
  })
  .openapi("CreateWebhook");

/** Body of `PATCH /webhooks/{id}` (R §3.14): any of `url`, `events`, `active`, `headers`. */
export const UpdateWebhookBody = z
  .strictObject({
    data: z.strictObject({
      type: z.literal("webhook"),
      id: z.string().max(64).optional(),
      attributes: z.strictObject({
        url: urlInput.optional(),
        active: z
          .boolean()
          .optional()
          .openapi({ description: "`true` re-activates a webhook the service disabled after failures." }),
        events: eventsInput.optional(),
        headers: headersInput,
      }),
    }),
  })
  .openapi("UpdateWebhook");

/** Body of `POST /webhooks/trigger` (R §3.15): a plain object, not a JSON:API document. */
export const TriggerWebhookBody = z
  .strictObject({
    url: z.string().max(RAW_URL_MAX).openapi({ example: "https://hooks.example.com/test" }),
    event: z.string().max(RAW_STRING_MAX).openapi({ example: "tracking_request.succeeded" }),
    secret: z.string().max(RAW_STRING_MAX).nullable().optional().openapi({
      description: "When given, the delivery is signed with it (`X-SVC-Webhook-Signature`, Standard Webhooks).",
      example: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
    }),
  })
  .openapi("TriggerWebhook");

/** Answer of `POST /webhooks/trigger` (R §3.15): the attempt, whatever the receiver answered. */
export const TriggerResultSchema = z
  .object({
    url: z.string(),
    event: z.string(),
    succeeded: z.boolean().openapi({ description: "True iff the receiver answered 200, 201, 202 or 204." }),
    error: z.string().nullable(),
    status_code: z.number().int().nullable().openapi({ description: "Null when no response was received." }),
    latency_ms: z.number().int(),
    request_headers: z.record(z.string(), z.string()).nullable(),
    request_body: z.string(),
    response_headers: z.record(z.string(), z.string()).nullable(),
    response_body: z.string().nullable().openapi({ description: "First 4096 characters of the receiver's answer." }),
  })
  .openapi("WebhookTriggerResult");

export const WebhookHeaderSchema = z.object({ name: z.string(), value: z.string() }).openapi("WebhookHeader");

export const WebhookAttributes = z
  .object({
    url: z.string(),
    active: z.boolean(),
    events: z.array(z.string()),
    secret: z.string().openapi({
      description: "Signing secret: `whsec_` + base64 of 32 random bytes. Store it securely.",
      example: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSwJ5W6n5fRzWc=",
    }),
    headers: z.array(WebhookHeaderSchema).nullable(),
    created_at: z.string(),
  })
  .openapi("WebhookAttributes");

export const WebhookResourceSchema = resourceSchema("webhook", WebhookAttributes, "Webhook");
export const WebhookDocument = singleDocumentSchema(WebhookResourceSchema, "WebhookDocument");
export const WebhookListDocument = listDocumentSchema(WebhookResourceSchema, "WebhookList");

export const WebhookEventCategorySchema = z
  .object({
    id: z.string().openapi({ example: "tracking-request-events" }),
    type: z.literal("webhook_event_category"),
    attributes: z.object({
      name: z.string().openapi({ example: "Tracking Request Events" }),
      events: z.array(z.object({ name: z.string(), description: z.string() })),
    }),
  })
  .openapi("WebhookEventCategory");

export const WebhookEventCatalogDocument = z
  .object({ data: z.array(WebhookEventCategorySchema), links: z.object({ self: z.string() }) })
  .openapi("WebhookEventCatalog");
