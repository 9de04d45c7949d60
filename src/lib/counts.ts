import { and, eq, type Placeholder, sql } from "drizzle-orm";
import type { Database } from "../db/client";
import { accountResourceCounts } from "../db/schema";

/** Resources whose per-account row count is kept in `account_resource_counts`. */
export type CountedResource =
  | "container"
  | "shipment"
  | "tracking_request"
  | "webhook"
  | "webhook_notification"
  | "alert_rule"
  | "party"
  | "document"
  | "email_submission";

/**
 * The statement that adds `by` (may be negative) to an account's count of `resource`; put it in the same
 * D1 batch as the insert or delete it accounts for, so the count can never drift from the rows.
 * @param accountId the account's id, or a placeholder for it in a query shape (src/db/query-shapes.ts).
 */
export function bumpCount(db: Database, accountId: string | Placeholder, resource: CountedResource, by: number) {
  return db
    .insert(accountResourceCounts)
    .values({ accountId, resource, count: by })
    .onConflictDoUpdate({
      target: [accountResourceCounts.accountId, accountResourceCounts.resource],
      set: { count: sql`${accountResourceCounts.count} + ${by}` },
    });
}

/**
 * The query that reads an account's count of `resource` (0 when nothing was ever created).
 * @param accountId the account's id, or a placeholder for it in a query shape (src/db/query-shapes.ts).
 */
export function countQuery(db: Database, accountId: string | Placeholder, resource: CountedResource) {
  return db
    .select({ count: accountResourceCounts.count })
    .from(accountResourceCounts)
    .where(and(eq(accountResourceCounts.accountId, accountId), eq(accountResourceCounts.resource, resource)));
}
