import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/**
 * Push subscriptions we hold at upstreams (issue 13 §4; src/callbacks/): one per provider and tracked reference, e.g.
 * a DCSA Track & Trace 2.2 `event-subscriptions` subscription of a carrier for one bill of lading. Generic over
 * providers: `provider` is `dcsa:<SCAC>` for a DCSA carrier (`port_of_virginia` and others plug in the same way).
 *
 * - `id` is ours and names the callback URL (`{PUBLIC_BASE_URL}/callbacks/dcsa/{id}`); `upstream_id` is the id the
 *   upstream gave the subscription (DCSA `subscriptionID`, also sent back in the callback's `Subscription-ID`).
 * - `reference_type` / `reference_number`: what the subscription covers, in tracking-request terms
 *   (`bill_of_lading`, `booking_number`, `container`) and the number exactly as the boxes are polled by
 *   (`tracked_equipment.shipment_number`).
 * - `secret_ciphertext`: the shared signing secret, AES-GCM encrypted with the Worker secret
 *   `UPSTREAM_SUBSCRIPTION_KEY` (src/callbacks/secrets.ts). Encrypted, not hashed: verifying an HMAC needs the key.
 * - `status`: `creating` (row written, upstream not yet answered), `active` (the upstream confirmed it: polling
 *   slows down), `failed` (the upstream refused or was unreachable; `last_error` says why, polling stays at its
 *   normal rate), `deleted` (deleted at the upstream or found gone there).
 * Times are UTC ISO seconds.
 */
export const upstreamSubscriptions = sqliteTable(
  "upstream_subscriptions",
  {
    id: text("id").primaryKey(),
    provider: text("provider").notNull(),
    /** The line's SCAC for a carrier subscription; null for a terminal's. */
    scac: text("scac"),
    referenceType: text("reference_type").notNull(),
    referenceNumber: text("reference_number").notNull(),
    upstreamId: text("upstream_id"),
    callbackUrl: text("callback_url").notNull(),
    secretCiphertext: text("secret_ciphertext").notNull(),
    status: text("status").notNull(),
    /** Why the last create or delete at the upstream failed (no secret in it); null after a success. */
    lastError: text("last_error"),
    /** Verified callbacks accepted so far. */
    callbackCount: integer("callback_count").notNull().default(0),
    lastCallbackAt: text("last_callback_at"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
    deletedAt: text("deleted_at"),
  },
  (t) => [
    uniqueIndex("upstream_subscriptions_reference_idx").on(t.provider, t.referenceType, t.referenceNumber),
    index("upstream_subscriptions_status_idx").on(t.status),
  ],
);

/**
 * Callbacks accepted from upstreams, one row per subscription and body digest (SHA-256 hex of the exact bytes
 * received): a body seen before for the same subscription is a replay and is refused. `body` keeps the events as
 * received (raw). Rows older than the replay window are pruned (src/callbacks/lifecycle.ts).
 */
export const upstreamCallbackReceipts = sqliteTable(
  "upstream_callback_receipts",
  {
    subscriptionId: text("subscription_id")
      .notNull()
      .references(() => upstreamSubscriptions.id),
    bodySha256: text("body_sha256").notNull(),
    body: text("body").notNull(),
    eventCount: integer("event_count").notNull(),
    receivedAt: text("received_at").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.subscriptionId, t.bodySha256] }),
    index("upstream_callback_receipts_received_idx").on(t.receivedAt),
  ],
);

export type UpstreamSubscriptionRow = typeof upstreamSubscriptions.$inferSelect;
