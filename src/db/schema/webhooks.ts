import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { accounts } from "./accounts";

/** A custom header sent with every delivery of a webhook. */
export interface WebhookHeader {
  name: string;
  value: string;
}

/**
 * Webhook subscriptions (docs/decisions.md §Webhooks). `secret` is `whsec_` + base64 of 32 random bytes. After
 * `POST /webhooks/{id}/rotate_secret`, `previous_secret` is the secret it replaced: deliveries carry a Standard
 * Webhooks signature of it too until `previous_secret_expires_at` (src/webhooks/delivery.ts), and the cron clears it
 * after that. `headers` keep their names exactly as the client gave them.
 */
export const webhooks = sqliteTable(
  "webhooks",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    url: text("url").notNull(),
    active: integer("active", { mode: "boolean" }).notNull().default(true),
    events: text("events", { mode: "json" }).$type<string[]>().notNull(),
    headers: text("headers", { mode: "json" }).$type<WebhookHeader[]>().notNull().default([]),
    secret: text("secret").notNull(),
    /** The secret the last rotation replaced, still signing deliveries during its grace period; null when none. */
    previousSecret: text("previous_secret"),
    /** End of that grace period (UTC ISO seconds): from then on `previous_secret` signs nothing. */
    previousSecretExpiresAt: text("previous_secret_expires_at"),
    /** Start of the current run of failures, for the "5 failing days disables" rule; null after a success. */
    failingSince: text("failing_since"),
    disabledReason: text("disabled_reason"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [
    index("webhooks_account_created_idx").on(t.accountId, t.createdAt, t.id),
    // The outbox's lookup of an account's active webhooks on every announced change (src/webhooks/outbox.ts).
    index("webhooks_account_active_idx").on(t.accountId, t.active),
    // The cron's clean-up of rotated-away secrets whose grace period ended (dropExpiredWebhookSecrets).
    index("webhooks_previous_secret_expiry_idx").on(t.previousSecretExpiresAt),
  ],
);

/**
 * The outbox: one row per webhook, per reference object, per event (docs/webhooks.md §Notification resource). `payload`
 * is the exact JSON body delivered on every attempt. `attempts` counts attempts made; `next_attempt_at` is when the
 * next may be made (while an attempt runs, the end of its claim's lease; null once `succeeded` or `failed`), see
 * src/webhooks/delivery.ts.
 */
export const webhookNotifications = sqliteTable(
  "webhook_notifications",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    webhookId: text("webhook_id")
      .notNull()
      .references(() => webhooks.id),
    event: text("event").notNull(),
    referenceObjectType: text("reference_object_type"),
    referenceObjectId: text("reference_object_id"),
    payload: text("payload").notNull(),
    deliveryStatus: text("delivery_status").notNull().default("pending"),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: text("next_attempt_at"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [
    index("webhook_notifications_account_created_idx").on(t.accountId, t.createdAt, t.id),
    index("webhook_notifications_status_next_idx").on(t.deliveryStatus, t.nextAttemptAt),
    index("webhook_notifications_webhook_idx").on(t.webhookId, t.createdAt),
    // `GET /webhook_notifications` filtered by event or delivery_status, newest first within the account.
    index("webhook_notifications_account_event_idx").on(t.accountId, t.event, t.createdAt, t.id),
    index("webhook_notifications_account_status_idx").on(t.accountId, t.deliveryStatus, t.createdAt, t.id),
    // The retention job's finished notifications past the cutoff (src/archive/job.ts archiveNotifications).
    index("webhook_notifications_finished_idx").on(t.deliveryStatus, t.updatedAt),
  ],
);

/**
 * One row per delivery attempt: HTTP status (null when no answer), latency in ms, error text; exposed as the
 * notification's `webhook_notification_logs` (docs/webhooks.md §Notification resource). `attempt` is the attempt number
 * within the current delivery round (a resend starts a new round at 1); `seq` numbers a notification's rows in the
 * order they were written (1, 2, …; rows written before it existed have their attempt number) and survives resends, so
 * the log orders and prunes by it: only the newest `MAX_LOGGED_ATTEMPTS` rows of a notification are kept.
 */
export const webhookDeliveries = sqliteTable(
  "webhook_deliveries",
  {
    id: text("id").primaryKey(),
    notificationId: text("notification_id")
      .notNull()
      .references(() => webhookNotifications.id),
    attempt: integer("attempt").notNull(),
    statusCode: integer("status_code"),
    latencyMs: integer("latency_ms"),
    error: text("error"),
    createdAt: text("created_at").notNull(),
    seq: integer("seq").notNull().default(0),
  },
  (t) => [index("webhook_deliveries_notification_seq_idx").on(t.notificationId, t.seq)],
);
