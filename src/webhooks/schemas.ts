import { z } from "@hono/zod-openapi";
import { listDocumentSchema, resourceSchema, singleDocumentSchema } from "../lib/openapi";
import { DEFAULT_SECRET_GRACE_S, MAX_SECRET_GRACE_S } from "./service";

// Structure and types of webhook bodies are checked here (zod → 422 with pointers); the rules that need more than a
// type (SSRF, the event catalog, header names and values, limits) are checked by the service, so that every failing
// field is reported together with its pointer and code.

/** Upper bounds of the raw input, far above the service's limits: they only stop absurd bodies early. */
const RAW_URL_MAX = 8192;
const RAW_LIST_MAX = 200;
const RAW_STRING_MAX = 8192;

/** A custom header as sent in a body: `{name, value}` (docs/webhooks.md §Webhook resource). */
const HeaderInput = z.strictObject({
  name: z.string().max(RAW_STRING_MAX).openapi({ example: "x-secret-sauce" }),
  value: z.string().max(RAW_STRING_MAX).openapi({ example: "sriracha" }),
});

const headersInput = z.array(HeaderInput).max(RAW_LIST_MAX).nullable().optional().openapi({
  description:
    "Custom headers sent with every delivery (at most 20). Names are HTTP tokens, stored and returned exactly as given (`x-secret-sauce` stays `x-secret-sauce`); names the service sets itself (Content-Type, User-Agent, Host, `webhook-*`, `X-SVC-*` …) and names given twice are refused, comparing without regard to case. Values are printable ASCII, at most 1024 characters. `null` or `[]` for none.",
});

const eventsInput = z
  .array(z.string().max(RAW_STRING_MAX))
  .max(RAW_LIST_MAX)
  .openapi({
    description:
      "At least one event of the catalog (`GET /webhooks/events`); duplicates are ignored. Also accepted, as extensions delivered only to webhooks that list them: `source_outage.started` and `source_outage.resolved` (a shipping line or terminal refused our credentials / accepts them again; once per outage per account, reference object `source_outage`); `container.free_time.ending_soon` and `container.charges.started` (a box's free time ends within 24 hours / has ended while it is still at the terminal; once per box and LFD, reference object `container`); `link.created` (a document was linked to a shipment or container; once per link, reference object the document).",
    example: ["tracking_request.succeeded", "container.transport.vessel_arrived"],
  });

const urlInput = z.string().max(RAW_URL_MAX).openapi({
  description:
    "HTTPS URL of the receiver: a public DNS name (no IP address, no localhost or .local/.internal names, no user:password), default port or 1024–65535, at most 2048 characters.",
  example: "https://hooks.example.com/container-updates",
});

/**
 * Body of `POST /webhooks` (docs/webhooks.md §Webhook endpoints): `url` and `events` required, `active` defaults to
 * true. `data.type` may be omitted (issue 15); when present it must be `webhook`.
 */
export const CreateWebhookBody = z
  .strictObject({
    data: z.strictObject({
      type: z.literal("webhook").optional(),
      attributes: z.strictObject({
        url: urlInput,
        active: z.boolean().optional().openapi({ description: "Default true." }),
        events: eventsInput,
        headers: headersInput,
      }),
    }),
  })
  .openapi("CreateWebhook");

/**
 * Body of `PATCH /webhooks/{id}` (docs/webhooks.md §Webhook endpoints): any of `url`, `events`, `active`, `headers`;
 * `data.type` optional.
 */
export const UpdateWebhookBody = z
  .strictObject({
    data: z.strictObject({
      type: z.literal("webhook").optional(),
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

/** Body of `POST /webhooks/trigger` (docs/webhooks.md §Trigger): a plain object, not a JSON:API document. */
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

/** Answer of `POST /webhooks/trigger` (docs/webhooks.md §Trigger): the attempt, whatever the receiver answered. */
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
    previous_secret_expires_at: z.string().nullable().openapi({
      description:
        "Extension. After `POST /webhooks/{id}/rotate_secret`: until when deliveries also carry a `webhook-signature` of the replaced secret (UTC). Null when no replaced secret is valid.",
      example: "2030-01-02T06:00:00Z",
    }),
  })
  .openapi("WebhookAttributes");

/** Body of `POST /webhooks/{id}/rotate_secret`: optional; a plain object like the trigger's. */
export const RotateSecretBody = z
  .strictObject({
    grace_period_seconds: z
      .number()
      .int()
      .min(0)
      .max(MAX_SECRET_GRACE_S)
      .optional()
      .openapi({
        description: `Seconds the replaced secret keeps signing deliveries (0 to ${MAX_SECRET_GRACE_S}, i.e. 7 days; default ${DEFAULT_SECRET_GRACE_S}, 24 hours). 0 stops it at once.`,
        example: 3600,
      }),
  })
  .openapi("RotateWebhookSecret");

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

/**
 * Body of `GET /webhooks/ips` (docs/webhooks.md §Webhook endpoints, src/webhooks/source-ips.ts): not JSON:API, as the
 * reference serves it.
 */
export const WebhookSourceIpsSchema = z
  .object({
    webhook_notification_ips: z
      .array(z.string())
      .openapi({ description: "IPv4/IPv6 addresses or CIDR ranges deliveries leave from (configured)." }),
    last_updated: z
      .string()
      .nullable()
      .openapi({ format: "date-time", description: "When the list last changed; null when not configured." }),
  })
  .openapi("WebhookSourceIps");
