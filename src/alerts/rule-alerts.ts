import { and, count, desc, eq } from "drizzle-orm";
import type { Database } from "../db/client";
import { alerts } from "../db/schema";
import type { PageRequest } from "../lib/jsonapi/pagination";
import type { ResourceObject } from "../lib/jsonapi/types";
import { ownedBy } from "../lib/tenant";
import { getAlertRule } from "./rule-service";

/** An `alerts` row (one alert of a rule for a box and episode; src/db/schema/alerts.ts). */
export type AlertRow = typeof alerts.$inferSelect;

/**
 * `GET /alert_rules/{id}/alerts` (extension, issue 28 §Settings; docs/api.md §Alert rules): a page of the alerts the
 * rule raised, newest first, with the total, so a rule's recent deliveries and their errors can be read (the rule
 * carries only its channel's latest state). Read in one D1 batch after the rule's ownership check.
 * @throws ApiError 404 when the rule is absent or another account's.
 */
export async function listAlertsOfRule(
  db: Database,
  accountId: string,
  ruleId: string,
  page: PageRequest,
): Promise<{ rows: AlertRow[]; total: number }> {
  await getAlertRule(db, accountId, ruleId);
  const where = and(ownedBy(alerts.accountId, accountId), eq(alerts.ruleId, ruleId));
  const [rows, totals] = await db.batch([
    db
      .select()
      .from(alerts)
      .where(where)
      .orderBy(desc(alerts.createdAt), desc(alerts.id))
      .limit(page.size)
      .offset(page.offset),
    db.select({ n: count() }).from(alerts).where(where),
  ]);
  return { rows, total: totals[0]?.n ?? 0 };
}

/**
 * Serialises one alert as an `alert` resource: `condition`, `episode_key` (what "once" is keyed on, e.g.
 * `free_time:2030-03-05`), `status` (`pending`, `digest` waiting for the daily digest, `digested`, `succeeded`,
 * `failed`), `attempts`, `last_error` (why the latest attempt failed), `delivered_at` and `created_at` (UTC ISO
 * seconds), `channel_type`; relationships `container` (the box) and `alert_rule`. The channel's address or URL and the
 * message's facts are not shown (the rule's channel says where it goes).
 */
export function serializeAlert(row: AlertRow): ResourceObject {
  return {
    id: row.id,
    type: "alert",
    attributes: {
      condition: row.condition,
      episode_key: row.episodeKey,
      status: row.status,
      attempts: row.attempts,
      last_error: row.lastError,
      channel_type: row.channelType,
      delivered_at: row.deliveredAt,
      created_at: row.createdAt,
    },
    relationships: {
      container: { data: row.containerId ? { id: row.containerId, type: "container" } : null },
      alert_rule: { data: row.ruleId ? { id: row.ruleId, type: "alert_rule" } : null },
    },
  };
}
