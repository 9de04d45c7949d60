import { and, inArray } from "drizzle-orm";
import { webhooks } from "../db/schema";
import { registerResourceType } from "../lib/jsonapi/include-registry";
import type { ResourceObject } from "../lib/jsonapi/types";
import { ownedBy } from "../lib/tenant";
import type { WebhookNotificationLogRow, WebhookNotificationView } from "./rows";
import { loadAttemptLogs, loadReferenceObjects } from "./service";

/**
 * Serialises one delivery attempt as a `webhook_notification_log` (the reference names the relationship but shows
 * no log object, docs/webhooks.md §Notification resource; these attributes are ours): `attempt` (number within its
 * delivery round; a resend starts a new round at 1), `created_at` (when the attempt was recorded, UTC ISO seconds),
 * `status_code` (the receiver's HTTP status, null when it did not answer or nothing was sent), `latency_ms`
 * (milliseconds to the answer or failure, null when nothing was sent) and `error` (why it did not succeed, e.g.
 * `HTTP 500`, `timeout: no answer within 15000 ms`, `not sent: webhook inactive`; null on success).
 */
export function serializeWebhookNotificationLog(row: WebhookNotificationLogRow): ResourceObject {
  return {
    id: row.id,
    type: "webhook_notification_log",
    attributes: {
      attempt: row.attempt,
      created_at: row.createdAt,
      status_code: row.statusCode,
      latency_ms: row.latencyMs,
      error: row.error,
    },
  };
}

/** JSON:API type `webhook_notification_log`: one delivery attempt; nothing to include below it. */
export const webhookNotificationLogResource = registerResourceType<WebhookNotificationLogRow>({
  type: "webhook_notification_log",
  serializerName: "V2::WebhookNotificationLogSerializer",
  serialize: serializeWebhookNotificationLog,
  relationships: {},
});

/**
 * Serialises a notification as the reference service lists it (docs/webhooks.md §Notification resource): attributes
 * `id` (repeated), `event`, `delivery_status`, `created_at`; relationships `reference_object` (typed by event family,
 * null when the row names none), `webhook`, and `webhook_notification_logs`: the linkage of its delivery attempts,
 * oldest first (the newest `MAX_LOGGED_ATTEMPTS` of src/webhooks/delivery.ts; empty before the first attempt, and
 * always empty in the delivered body, which is fixed when the notification is written).
 */
export function serializeWebhookNotification(row: WebhookNotificationView): ResourceObject {
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
      webhook_notification_logs: {
        data: (row.logs ?? []).map((log) => ({ id: log.id, type: "webhook_notification_log" })),
      },
    },
  };
}

/**
 * The target of `include=reference_object`: its rows are already-serialised resources of whatever type the event
 * family uses (`tracking_request`, `transport_event`, `container_updated_event`, `estimated_event`,
 * `container_created_event`, `container_pod_terminal_changed_event`), so serialising is the identity. Nothing
 * below it can be included.
 */
export const referenceObjectResource = registerResourceType<ResourceObject>({
  type: "reference_object",
  serializerName: "V2::ReferenceObjectSerializer",
  serialize: (resource) => resource,
  relationships: {},
});

/**
 * JSON:API type `webhook_notification`; includable: `webhook`, `reference_object` (docs/webhooks.md §Webhook endpoints)
 * and `webhook_notification_logs`. `hydrate` reads the attempt logs of the rows that lack them in one D1 round trip;
 * the list and the single read bring them with their own batch (`listWebhookNotifications`, `getWebhookNotification`),
 * so it reads nothing for them.
 */
export const webhookNotificationResource = registerResourceType<WebhookNotificationView>({
  type: "webhook_notification",
  serializerName: "V2::WebhookNotificationSerializer",
  hydrate: async (ctx, rows) => {
    const missing = rows.filter((r) => r.logs === undefined).map((r) => r.id);
    if (missing.length === 0) return rows;
    const logs = await loadAttemptLogs(ctx, missing);
    return rows.map((r) => (r.logs === undefined ? { ...r, logs: logs.get(r.id) ?? [] } : r));
  },
  serialize: serializeWebhookNotification,
  relationships: {
    webhook_notification_logs: {
      target: "webhook_notification_log",
      load: async (ctx, parents) => {
        const missing = parents.filter((p) => p.logs === undefined).map((p) => p.id);
        const loaded = missing.length > 0 ? await loadAttemptLogs(ctx, missing) : new Map();
        return parents.flatMap((p) => p.logs ?? loaded.get(p.id) ?? []);
      },
    },
    webhook: {
      target: "webhook",
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
      target: "reference_object",
      load: (ctx, parents) => loadReferenceObjects(ctx, parents),
    },
  },
});
