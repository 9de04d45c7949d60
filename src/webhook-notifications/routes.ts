import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../env";
import { loadContext, queryParams } from "../lib/http";
import { JSON_API_MEDIA_TYPE, listDocument, resourceDocument } from "../lib/jsonapi/document";
import { parseInclude } from "../lib/jsonapi/include";
import { parsePage } from "../lib/jsonapi/pagination";
import {
  archiveUnavailableResponse,
  commonErrors,
  ErrorDocumentSchema,
  includeQuery,
  jsonApiContent,
  listQuery,
  notFoundResponse,
  pathIdParam,
  sendJsonApi,
} from "../lib/openapi";
import {
  NOTIFICATION_INCLUDES,
  notificationFilterParams,
  parseNotificationFilters,
  WebhookNotificationDocument,
  WebhookNotificationExampleDocument,
  WebhookNotificationListDocument,
} from "./schemas";
import { webhookNotificationResource } from "./serializer";
import {
  exampleNotificationDocument,
  getWebhookNotification,
  listWebhookNotifications,
  resendWebhookNotification,
} from "./service";

const tags = ["Webhook notifications"];

const examplesRouteDef = createRoute({
  method: "get",
  path: "/webhook_notifications/examples",
  tags,
  summary: "Get the example payload of an event",
  description:
    "The notification document a webhook subscribed to `event` receives (docs/webhooks.md §Payloads shapes), built from a fixed sample journey; `POST /webhooks/trigger` sends the same document. `event` is required (400 without it or for an event not in the catalog).",
  request: {
    query: z.object({
      event: z.string().optional().openapi({
        description: "A catalog event (`GET /webhooks/events`).",
        example: "container.transport.vessel_arrived",
      }),
    }),
  },
  responses: {
    200: { description: "The example document.", content: jsonApiContent(WebhookNotificationExampleDocument) },
    ...commonErrors,
  },
});

const listRouteDef = createRoute({
  method: "get",
  path: "/webhook_notifications",
  tags,
  summary: "List webhook notifications",
  description:
    "Every notification of the account's webhooks, newest first, with its delivery status: use it to reconcile after downtime. Notifications of a deleted webhook are deleted with it. Notifications archived to R2 (finished more than ARCHIVE_AFTER_DAYS ago) are not listed (nor counted in `meta.total`); `GET /webhook_notifications/{id}` still serves each.",
  request: {
    query: z.object({
      ...listQuery,
      include: includeQuery(NOTIFICATION_INCLUDES),
      ...notificationFilterParams,
    }),
  },
  responses: {
    200: { description: "A page of notifications.", content: jsonApiContent(WebhookNotificationListDocument) },
    ...commonErrors,
  },
});

const getRouteDef = createRoute({
  method: "get",
  path: "/webhook_notifications/{id}",
  tags,
  summary: "Get a webhook notification",
  description:
    "`include=reference_object` adds the resource the notification is about as it was delivered (a tracking_request, transport_event, container_updated_event, estimated_event …); `include=webhook` adds the webhook. A notification that finished more than ARCHIVE_AFTER_DAYS (default 90) ago is served from the R2 archive, byte for byte as before and a few milliseconds slower (docs/SCALING.md §Retention and archive); 503 `archive_unavailable` (Retry-After) if the archive cannot be read.",
  request: {
    params: pathIdParam("WebhookNotification"),
    query: z.object({ include: includeQuery(NOTIFICATION_INCLUDES) }),
  },
  responses: {
    200: { description: "The notification.", content: jsonApiContent(WebhookNotificationDocument) },
    ...commonErrors,
    ...notFoundResponse,
    ...archiveUnavailableResponse,
  },
});

const resendRouteDef = createRoute({
  method: "post",
  path: "/webhook_notifications/{id}/resend",
  tags,
  summary: "Resend a webhook notification",
  description:
    "Puts a `succeeded` or `failed` notification back on the delivery queue and answers 202 with it (`delivery_status: pending`): a new delivery round with the whole retry schedule, the same `data.id` and `webhook-id`, and the same body, signed afresh. Receivers that deduplicate on `data.id` see a duplicate. The earlier attempts stay in `webhook_notification_logs`. 409 with code `already_pending` while it is still being delivered, `webhook_inactive` when its webhook is inactive (re-activate it first), `archived` when it was moved to the archive (older than ARCHIVE_AFTER_DAYS: readable, not resendable). No body.",
  request: { params: pathIdParam("WebhookNotification") },
  responses: {
    202: { description: "Queued for delivery.", content: jsonApiContent(WebhookNotificationDocument) },
    ...commonErrors,
    ...notFoundResponse,
    409: {
      description:
        "Still pending (`already_pending`), its webhook is inactive (`webhook_inactive`), or it is archived (`archived`).",
      content: jsonApiContent(ErrorDocumentSchema),
    },
  },
});

/**
 * Routes of `/webhook_notifications` (docs/webhooks.md §Webhook endpoints) and
 * `POST /webhook_notifications/{id}/resend` (issue 11 §5). `/webhook_notifications/examples` is registered before
 * `/webhook_notifications/{id}` so that it is never read as an id.
 */
export const webhookNotificationRoutes = new OpenAPIHono<AppEnv>()
  .openapi(examplesRouteDef, (c) => sendJsonApi(c, exampleNotificationDocument(queryParams(c).get("event"), c.req.url)))
  .openapi(listRouteDef, async (c) => {
    const params = queryParams(c);
    const page = parsePage(params);
    const include = parseInclude(params.get("include"), webhookNotificationResource);
    const filters = parseNotificationFilters(Object.fromEntries(params));
    const ctx = loadContext(c);
    const { rows, total } = await listWebhookNotifications(ctx.db, ctx.accountId, filters, page);
    return sendJsonApi(c, await listDocument(ctx, webhookNotificationResource, rows, include, c.req.url, page, total));
  })
  .openapi(getRouteDef, async (c) => {
    const params = queryParams(c);
    const include = parseInclude(params.get("include"), webhookNotificationResource);
    const ctx = loadContext(c);
    const row = await getWebhookNotification(ctx.db, ctx.accountId, c.req.valid("param").id, c.env.ARCHIVE_BUCKET);
    return sendJsonApi(c, await resourceDocument(ctx, webhookNotificationResource, row, include, c.req.url));
  })
  .openapi(resendRouteDef, async (c) => {
    const ctx = loadContext(c);
    const row = await resendWebhookNotification(
      { db: ctx.db, clock: c.var.clock, queue: c.env.WEBHOOK_DELIVERIES_QUEUE },
      ctx.accountId,
      c.req.valid("param").id,
    );
    const self = `/v2/webhook_notifications/${row.id}`;
    const doc = await resourceDocument(ctx, webhookNotificationResource, row, new Map(), self);
    return c.body(JSON.stringify(doc), 202, { "Content-Type": JSON_API_MEDIA_TYPE }) as never;
  });
