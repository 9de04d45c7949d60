import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/**
 * Customer accounts. Every tenant-owned row elsewhere carries `account_id` (docs/architecture.md §Data model).
 * `entitlements` is a JSON array of paid features (e.g. `"routing"`, `"refresh"`).
 */
export const accounts = sqliteTable(
  "accounts",
  {
    id: text("id").primaryKey(),
    name: text("name").notNull(),
    entitlements: text("entitlements", { mode: "json" }).$type<string[]>().notNull().default([]),
    /** Most custom field values the account may hold at once (docs/api.md §Custom fields); null: no limit. */
    customFieldLimit: integer("custom_field_limit"),
    /**
     * The D1 database holding the account's rows (src/db/shards.ts): 0 is the primary binding `DB`, n the binding `DB_n`.
     * Chosen once when the account is created (`shardForNewAccount`) and never changed (docs/SCALING.md §Shards).
     */
    shard: integer("shard").notNull().default(0),
    createdAt: text("created_at").notNull(),
  },
  // The cron's `sweptShards` (src/db/shard-sweeps.ts): one probe per shard for "does it hold an account".
  (t) => [index("accounts_shard_idx").on(t.shard)],
);

/**
 * API keys (docs/decisions.md §Accounts and keys): only the SHA-256 hex digest of the key is stored, with a short
 * visible prefix so an operator can tell keys apart. A key with `revoked_at` set no longer authenticates.
 */
export const apiKeys = sqliteTable(
  "api_keys",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    name: text("name").notNull(),
    keyHash: text("key_hash").notNull(),
    /** First characters of the key, e.g. `svc_test_AbCd`, safe to display. */
    prefix: text("prefix").notNull(),
    createdAt: text("created_at").notNull(),
    revokedAt: text("revoked_at"),
    lastUsedAt: text("last_used_at"),
  },
  (t) => [uniqueIndex("api_keys_key_hash_idx").on(t.keyHash), index("api_keys_account_idx").on(t.accountId)],
);

/** Customers of an account (`customer` relationship of tracking requests, type `party`). */
export const parties = sqliteTable(
  "parties",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    companyName: text("company_name").notNull(),
    createdAt: text("created_at").notNull(),
  },
  (t) => [index("parties_account_created_idx").on(t.accountId, t.createdAt, t.id)],
);

/**
 * Row counts per account and resource, kept in the same batch as every insert and delete, so that list
 * endpoints answer `meta.total` without counting rows (the cost of a page must not grow with the table).
 * `resource` is the JSON:API type: `container`, `shipment`, `tracking_request`, `webhook`, `webhook_notification`.
 */
export const accountResourceCounts = sqliteTable(
  "account_resource_counts",
  {
    accountId: text("account_id").notNull(),
    resource: text("resource").notNull(),
    count: integer("count").notNull().default(0),
  },
  (t) => [uniqueIndex("account_resource_counts_pk").on(t.accountId, t.resource)],
);
