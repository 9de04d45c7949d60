import { z } from "@hono/zod-openapi";
import { type FilterValues, parseEnumFilter, parseStringFilter } from "../lib/jsonapi/filters";
import { listDocumentSchema, resourceSchema, singleDocumentSchema } from "../lib/openapi";
import { EXTENSION_WEBHOOK_EVENTS, WEBHOOK_EVENTS } from "../webhooks/catalog";

/**
 * `webhook_notification.delivery_status` values (docs/webhooks.md §Delivery status): `pending` until delivered or given
 * up.
 */
export const DELIVERY_STATUSES = ["pending", "succeeded", "failed"] as const;

/**
 * Relationship names `include` accepts on notifications (docs/webhooks.md §Webhook endpoints;
 * `webhook_notification_logs`, issue 11 §5).
 */
export const NOTIFICATION_INCLUDES = ["webhook", "reference_object", "webhook_notification_logs"];

export const WebhookNotificationAttributes = z
  .object({
    id: z.string().openapi({
      description: "The notification id again (docs/webhooks.md §Notification resource: repeated inside attributes).",
    }),
    event: z.string().openapi({ example: "container.transport.vessel_arrived" }),
    delivery_status: z.enum(DELIVERY_STATUSES),
    created_at: z.string(),
  })
  .openapi("WebhookNotificationAttributes");

export const WebhookNotificationResourceSchema = resourceSchema(
  "webhook_notification",
  WebhookNotificationAttributes,
  "WebhookNotification",
);
export const WebhookNotificationDocument = singleDocumentSchema(
  WebhookNotificationResourceSchema,
  "WebhookNotificationDocument",
);
export const WebhookNotificationListDocument = listDocumentSchema(
  WebhookNotificationResourceSchema,
  "WebhookNotificationList",
);

/** `GET /webhook_notifications/examples`: a delivered body (docs/webhooks.md §Payloads) plus `links.self`. */
export const WebhookNotificationExampleDocument = z
  .object({
    data: WebhookNotificationResourceSchema,
    included: z.array(z.unknown()),
    links: z.object({ self: z.string() }),
  })
  .openapi("WebhookNotificationExample");

/** The filters of `GET /v2/webhook_notifications` (issue 4), as its OpenAPI query declares them. */
export const notificationFilterParams = {
  "filter[event]": z.string().optional().openapi({ description: "A catalog event." }),
  "filter[delivery_status]": z.enum(DELIVERY_STATUSES).optional(),
  "filter[webhook_id]": z.string().optional().openapi({ description: "Only this webhook's notifications." }),
};

/**
 * The filters `listWebhookNotifications` takes, by parameter name: checked and trimmed by
 * {@link parseNotificationFilters}.
 */
export type NotificationFilters = z.infer<z.ZodObject<typeof notificationFilterParams>>;

/**
 * The notification filters of a request's query, checked in this order: `event` a catalog event (extensions
 * included), `delivery_status` one of `DELIVERY_STATUSES`, `webhook_id` trimmed and at most 64 characters. An empty
 * value is no filter.
 * @throws ApiError 400 with `source.parameter` at the first invalid value.
 */
export function parseNotificationFilters(values: FilterValues<keyof NotificationFilters>): NotificationFilters {
  return {
    "filter[event]": parseEnumFilter(values["filter[event]"], "filter[event]", [
      ...WEBHOOK_EVENTS,
      ...EXTENSION_WEBHOOK_EVENTS,
    ]),
    "filter[delivery_status]": parseEnumFilter(
      values["filter[delivery_status]"],
      "filter[delivery_status]",
      DELIVERY_STATUSES,
    ),
    "filter[webhook_id]": parseStringFilter(values["filter[webhook_id]"], "filter[webhook_id]", 64),
  };
}
