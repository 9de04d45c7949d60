import { and, inArray } from "drizzle-orm";
import { type webhookNotifications, webhooks } from "../db/schema";
import type { ResourceType } from "../lib/jsonapi/include";
import type { ResourceObject } from "../lib/jsonapi/types";
import { ownedBy } from "../lib/tenant";
import { webhookResource } from "../webhooks/serializer";
import { loadReferenceObjects } from "./service";

/** A `webhook_notifications` row as drizzle returns it. */
export type WebhookNotificationRow = typeof webhookNotifications.$inferSelect;

/**
 * Serialises a notification as the reference service lists it (R §1.14): attributes `id` (repeated), `event`,
 * `delivery_status`, `created_at`; relationships `reference_object` (typed by event family, null when the row names
 * none), `webhook`, and `webhook_notification_logs` (always empty, as in the reference; the attempts are kept in
 * `webhook_deliveries`).
 */
export function serializeWebhookNotification(row: WebhookNotificationRow): ResourceObject {
  return {
    id: row.id,
    type: "webhook_notification",
    attributes: {
      id: row.id,
      event: row.event,
      delivery_status: row.deliveryStatus,
      created_at: row.createdAt,
    },
    relationships: {
      reference_object: {
        data:
          row.referenceObjectType && row.referenceObjectId
            ? { id: row.referenceObjectId, type: row.referenceObjectType }
            : null,
      },
      webhook: { data: { id: row.webhookId, type: "webhook" } },
      webhook_notification_logs: { data: [] },
    },
  };
}

/**
 * The target of `include=reference_object`: its rows are already-serialised resources of whatever type the event
 * family uses (`tracking_request`, `transport_event`, `container_updated_event`, `estimated_event`,
 * `container_created_event`, `container_pod_terminal_changed_event`), so serialising is the identity. Nothing
 * below it can be included.
 */
export const referenceObjectResource: ResourceType<ResourceObject> = {
  type: "reference_object",
  serializerName: "V2::ReferenceObjectSerializer",
  serialize: (resource) => resource,
  relationships: {},
};

/** JSON:API type `webhook_notification`; includable: `webhook`, `reference_object` (R §3.16–3.17). */
export const webhookNotificationResource: ResourceType<WebhookNotificationRow> = {
  type: "webhook_notification",
  serializerName: "V2::WebhookNotificationSerializer",
  serialize: serializeWebhookNotification,
  relationships: {
    webhook: {
      target: () => webhookResource,
      load: async (ctx, parents) => {
        const ids = [...new Set(parents.map((n) => n.webhookId))];
        if (ids.length === 0) return [];
        return ctx.db
          .select()
          .from(webhooks)
          .where(and(ownedBy(webhooks.accountId, ctx.accountId), inArray(webhooks.id, ids)));
      },
    },
    reference_object: {
      target: () => referenceObjectResource,
      load: (ctx, parents) => loadReferenceObjects(ctx, parents),
    },
  },
};
