import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { accounts } from "./accounts";

/**
 * The scope of an alert rule (docs/api.md §Alert rules): every list given narrows the boxes the rule watches, an
 * absent or empty list does not. `ports`: UN/LOCODEs of the POD; `scacs`: shipping line SCACs; `customers`: party ids
 * (the shipment's customer); `custom_fields`: custom field key → value the box (or its shipment) must carry.
 */
export interface AlertScope {
  ports?: string[];
  scacs?: string[];
  customers?: string[];
  custom_fields?: Record<string, string>;
}

/**
 * Alert rules (issue 27 §2): a condition, an optional scope and one channel. `channel_type` is `email` (with
 * `channel_address`), `slack`, `teams` or `webhook` (with `channel_url`); a `webhook` channel signs with `secret`
 * (`whsec_…`, the signing of src/webhooks/signature.ts). `delivery` is `immediate` or `digest` (gathered into the
 * account's daily digest, see {@link alertSettings}). The failure bookkeeping (`last_delivery_*`, `last_error`,
 * `failing_since`) is what makes a failing channel visible in the API. Times are UTC ISO seconds.
 */
export const alertRules = sqliteTable(
  "alert_rules",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    name: text("name"),
    condition: text("condition").notNull(),
    thresholdDays: integer("threshold_days"),
    thresholdHours: integer("threshold_hours"),
    scope: text("scope", { mode: "json" }).$type<AlertScope>().notNull().default({}),
    channelType: text("channel_type").notNull(),
    channelAddress: text("channel_address"),
    channelUrl: text("channel_url"),
    secret: text("secret"),
    delivery: text("delivery").notNull().default("immediate"),
    active: integer("active", { mode: "boolean" }).notNull().default(true),
    lastDeliveryStatus: text("last_delivery_status"),
    lastDeliveryAt: text("last_delivery_at"),
    lastError: text("last_error"),
    failingSince: text("failing_since"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [
    index("alert_rules_account_created_idx").on(t.accountId, t.createdAt, t.id),
    // The box pipeline's and the cron's lookup of the active rules of some accounts.
    index("alert_rules_account_active_idx").on(t.accountId, t.active),
    index("alert_rules_condition_active_idx").on(t.condition, t.active),
  ],
);

/**
 * Per-account alert settings (docs/api.md §Alert settings): the IANA `time_zone` the digest hour and quiet hours are
 * read in, `digest_hour` (0–23, local), and quiet hours `[quiet_hours_start, quiet_hours_end)` (local hours; both null
 * for none; start > end wraps midnight). An account without a row has the defaults: UTC, 08:00, no quiet hours.
 */
export const alertSettings = sqliteTable("alert_settings", {
  accountId: text("account_id")
    .primaryKey()
    .references(() => accounts.id),
  timeZone: text("time_zone").notNull(),
  digestHour: integer("digest_hour").notNull(),
  quietHoursStart: integer("quiet_hours_start"),
  quietHoursEnd: integer("quiet_hours_end"),
  /** Local date (YYYY-MM-DD) of the last digest built, so the account gets one a day. */
  lastDigestOn: text("last_digest_on"),
  updatedAt: text("updated_at").notNull(),
});

/**
 * The alert outbox (issue 27 §2): one row per (rule, box, episode) — its id derives from the three, and it is
 * inserted ON CONFLICT DO NOTHING, so an episode alerts once however often it is seen — and one row per digest
 * (`kind` `digest`, no rule or box; the alerts it gathers point at it with `digest_id`). `facts` is the message's
 * content (src/alerts/messages.ts). `status`: `pending` (due at `next_attempt_at`, which quiet hours push to their
 * end), `digest` (waiting for the daily digest), `digested`, `succeeded`, `failed`. Delivery claims and retries like
 * `webhook_notifications` (src/alerts/delivery.ts).
 */
export const alerts = sqliteTable(
  "alerts",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    kind: text("kind").notNull().default("alert"),
    ruleId: text("rule_id"),
    containerId: text("container_id"),
    condition: text("condition"),
    episodeKey: text("episode_key").notNull(),
    facts: text("facts", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    channelType: text("channel_type").notNull(),
    channelTarget: text("channel_target").notNull(),
    status: text("status").notNull(),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: text("next_attempt_at"),
    digestId: text("digest_id"),
    lastError: text("last_error"),
    deliveredAt: text("delivered_at"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [
    index("alerts_status_next_idx").on(t.status, t.nextAttemptAt),
    index("alerts_account_status_idx").on(t.accountId, t.status, t.createdAt),
    index("alerts_rule_container_idx").on(t.ruleId, t.containerId, t.episodeKey),
    index("alerts_account_created_idx").on(t.accountId, t.createdAt, t.id),
  ],
);
