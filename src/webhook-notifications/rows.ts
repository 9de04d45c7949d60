import type { webhookDeliveries, webhookNotifications } from "../db/schema";

// The row shapes of notifications, apart from serializer.ts: the serializer's relationship loaders come from
// service.ts, and the service reads and returns these rows, so neither has to import the other back.

/** A `webhook_notifications` row as drizzle returns it. */
export type WebhookNotificationRow = typeof webhookNotifications.$inferSelect;

/** A `webhook_deliveries` row (one delivery attempt) as drizzle returns it. */
export type WebhookNotificationLogRow = typeof webhookDeliveries.$inferSelect;

/**
 * A notification with its attempt log, oldest first (`logs`, filled by `hydrate` or by the read that found the
 * notification; absent until then).
 */
export interface WebhookNotificationView extends WebhookNotificationRow {
  logs?: WebhookNotificationLogRow[];
}
