import { z } from "@hono/zod-openapi";
import { listDocumentSchema, resourceSchema, singleDocumentSchema } from "../lib/openapi";

/** `webhook_notification.delivery_status` values (R §2.3): `pending` until delivered or given up. */
export const DELIVERY_STATUSES = ["pending", "succeeded", "failed"] as const;

/** Relationship names `include` accepts on notifications (R §3.16–3.17; `webhook_notification_logs`, issue 11 §5). */
export const NOTIFICATION_INCLUDES = ["webhook", "reference_object", "webhook_notification_logs"];

export const WebhookNotificationAttributes = z
  .object({
    id: z.string().openapi({ description: "The notification id again (R §1.14: repeated inside attributes)." }),
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

/** `GET /webhook_notifications/examples`: a delivered body (R §5.5) plus `links.self`. */
export const WebhookNotificationExampleDocument = z
  .object({
    data: WebhookNotificationResourceSchema,
    included: z.array(z.unknown()),
    links: z.object({ self: z.string() }),
  })
  .openapi("WebhookNotificationExample");
