import { and, eq, inArray } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { createDatabase } from "../db/client";
import { alertRules, alertSettings, alerts } from "../db/schema";
import { sweptShards } from "../db/shard-sweeps";
import { shardD1 } from "../db/shards";
import { type Clock, systemClock, toIsoSeconds } from "../lib/clock";
import { deterministicId } from "../lib/ids";
import { alertSettingsQuery, loadBoxes, needsCustomFields, rowsOfCandidates, settingsOf } from "./boxes";
import { chargesOfBoxes } from "./charges";
import { evaluateTimeDriven, localDate, TIME_DRIVEN_CONDITIONS } from "./conditions";
import { type AlertRow, alertInserts, dueNow, enqueueAlerts, quietUntil, sweepAlertOutbox } from "./delivery";
import type { AlertFacts, DigestFacts } from "./messages";
import { chargesWebhookEvents } from "./webhook-events";

/** (rule, box) pairs the cron evaluates per run: a bound on one invocation's work; the rest wait a minute. */
export const CRON_CANDIDATES = 500;
/** Accounts whose digest is built per run. */
export const DIGESTS_PER_RUN = 20;
/** Alerts one digest gathers (older ones first; the rest go into the next day's). */
export const DIGEST_MAX_ALERTS = 500;

/**
 * The (rule, box) pairs worth evaluating now for the date-driven conditions: a cheap superset of what
 * `evaluateTimeDriven` decides exactly with the calculator's dates (docs/api.md §Alert rules).
 * - A box with a terminal LFD (`pickup_lfd_terminal`): in the date window of its condition (the local today and
 *   the LFD's local date may each differ from their UTC dates by a day).
 * - A box without one, discharged, of an account with a demurrage or combined tariff: its calculated LFD is no earlier
 *   than the discharge date plus the fewest free days of those tariffs (business days and days it could not be picked
 *   up only push it later), so boxes whose free time cannot end within the window are left out.
 * - Either way, a pair alerted for its condition since the box, the rule and the account's tariffs last changed is
 *   left out: its LFD in force is the same, so its episode too (a box's new LFD changes its row).
 * - Empty return: a box out and not back, of an account with a detention or combined tariff, bounded the same way
 *   from its full-out (there is no known due date without such a tariff).
 * Terminal-LFD pairs come first; at most {@link CRON_CANDIDATES} pairs.
 */
async function candidatePairs(d1: D1Database, nowMs: number): Promise<{ ruleId: string; containerId: string }[]> {
  const today = toIsoSeconds(nowMs).slice(0, 10);
  const notOut =
    "c.pod_full_out_at IS NULL AND c.final_destination_full_out_at IS NULL AND c.empty_terminated_at IS NULL";
  const none = (key: string) =>
    `NOT EXISTS (SELECT 1 FROM alerts a WHERE a.rule_id = r.id AND a.container_id = c.id AND a.episode_key = ${key})`;
  const base = "FROM alert_rules r JOIN containers c ON c.account_id = r.account_id";
  const kinds = (k: string) => `t.account_id = c.account_id AND t.kind IN (${k})`;
  const fewestFreeDays = (k: string) => `(SELECT MIN(t.free_days) FROM tariffs t WHERE ${kinds(k)})`;
  /**
   * Not alerted for the condition since the box, the rule or its account's tariffs last changed: the LFD in force,
   * and so the episode, is then the same (the terminal's LFD is a datetime, its episode its local date: not SQL's).
   * Strictly after: an alert written in the same second as a change is evaluated again (its id makes that harmless).
   */
  const unchangedSinceAlert = (k: string) => `NOT EXISTS (SELECT 1 FROM alerts a WHERE a.rule_id = r.id
          AND a.container_id = c.id AND a.condition = r.condition AND a.created_at > c.updated_at
          AND a.created_at > r.updated_at
          AND a.created_at > COALESCE((SELECT MAX(t.updated_at) FROM tariffs t WHERE ${kinds(k)}), ''))`;
  const pickupKinds = "'demurrage', 'combined'";
  const returnKinds = "'detention', 'combined'";
  const query = `
    SELECT r.id AS rule_id, c.id AS container_id ${base}
      WHERE r.active = 1 AND r.condition = 'free_time_ending' AND c.pickup_lfd_terminal IS NOT NULL AND ${notOut}
        AND date(c.pickup_lfd_terminal) >= date(?1, '-2 days')
        AND date(c.pickup_lfd_terminal) <= date(?1, (COALESCE(r.threshold_days, 0) + 2) || ' days')
        AND ${unchangedSinceAlert(pickupKinds)}
    UNION ALL
    SELECT r.id, c.id ${base}
      WHERE r.active = 1 AND r.condition = 'charges_accruing' AND c.pickup_lfd_terminal IS NOT NULL AND ${notOut}
        AND date(c.pickup_lfd_terminal) <= date(?1, '+1 days')
        AND ${unchangedSinceAlert(pickupKinds)}
    UNION ALL
    SELECT r.id, c.id ${base} JOIN shipments s ON s.id = c.shipment_id
      WHERE r.active = 1 AND r.condition = 'tracking_failed' AND c.empty_terminated_at IS NULL
        AND s.line_tracking_stopped_at IS NULL
        AND ((c.terminal_tracking_failed_reason IS NOT NULL
              AND ${none("'tracking_failed:terminal:' || COALESCE(c.pod_last_tracking_request_at, 'never')")})
          OR (s.line_tracking_failed_reason IS NOT NULL
              AND ${none("'tracking_failed:shipping_line:' || COALESCE(s.line_tracking_last_succeeded_at, 'never')")}))
    UNION ALL
    SELECT r.id, c.id ${base}
      WHERE r.active = 1 AND r.condition IN ('free_time_ending', 'charges_accruing')
        AND c.pickup_lfd_terminal IS NULL AND c.pod_discharged_at IS NOT NULL AND ${notOut}
        AND date(c.pod_discharged_at, '+' || ${fewestFreeDays(pickupKinds)} || ' days')
          <= date(?1, (CASE r.condition WHEN 'free_time_ending' THEN COALESCE(r.threshold_days, 0) + 2 ELSE 1 END) || ' days')
        AND ${unchangedSinceAlert(pickupKinds)}
    UNION ALL
    SELECT r.id, c.id ${base}
      WHERE r.active = 1 AND r.condition = 'empty_return_due' AND c.empty_terminated_at IS NULL
        AND c.pod_full_out_at IS NOT NULL
        AND date(c.pod_full_out_at, '+' || ${fewestFreeDays(returnKinds)} || ' days')
          <= date(?1, (COALESCE(r.threshold_days, 0) + 2) || ' days')
        AND ${unchangedSinceAlert(returnKinds)}
    LIMIT ?2`;
  const { results } = await d1
    .prepare(query)
    .bind(today, CRON_CANDIDATES)
    .all<{ rule_id: string; container_id: string }>();
  return results.map((r) => ({ ruleId: r.rule_id, containerId: r.container_id }));
}

/**
 * The cron's date-driven alerts (free time ending, charges accruing, empty return due, tracking failed): evaluates
 * at most {@link CRON_CANDIDATES} (rule, box) pairs, writes their alerts (ON CONFLICT DO NOTHING: once per episode)
 * in one batch, and enqueues the ones due now. One shard a call (`shard`, the primary by default: src/db/shards.ts).
 * @returns how many alerts were written.
 */
export async function evaluateTimeDrivenAlerts(
  env: Pick<Env, "DB"> & Partial<Pick<Env, "WEBHOOK_DELIVERIES_QUEUE">>,
  nowMs: number,
  shard = 0,
): Promise<number> {
  const d1 = shardD1(env as Env, shard);
  const db = createDatabase(d1);
  const pairs = await candidatePairs(d1, nowMs);
  if (pairs.length === 0) return 0;
  const ruleIds = [...new Set(pairs.map((p) => p.ruleId))];
  const ruleRows = [];
  for (let i = 0; i < ruleIds.length; i += 80) {
    ruleRows.push(
      ...(await db
        .select()
        .from(alertRules)
        .where(inArray(alertRules.id, ruleIds.slice(i, i + 80)))),
    );
  }
  const rules = new Map(
    ruleRows.filter((r) => TIME_DRIVEN_CONDITIONS.includes(r.condition as never)).map((r) => [r.id, r]),
  );
  const boxes = await loadBoxes(
    db,
    pairs.map((p) => p.containerId),
    needsCustomFields([...rules.values()]),
  );
  const settings = await alertSettingsQuery(
    db,
    [...rules.values()].map((r) => r.accountId),
  );
  // The calculator's dates and amounts of every box, its inputs read in one round trip for the batch.
  const charges = await chargesOfBoxes(
    db,
    [...boxes.values()].map((b) => b.container),
    nowMs,
  );
  for (const [id, box] of boxes) box.charges = charges.get(id);
  const candidates = pairs.flatMap((p) => {
    const rule = rules.get(p.ruleId);
    const box = boxes.get(p.containerId);
    return rule && box && box.container.accountId === rule.accountId ? evaluateTimeDriven(rule, box) : [];
  });
  const all = await rowsOfCandidates(candidates, rules, boxes, settings, nowMs, toIsoSeconds(nowMs));
  // A pair may be evaluated again after its alert (see `candidatePairs`): only alerts not written yet are news.
  const existing = new Set<string>();
  for (let i = 0; i < all.length; i += 80) {
    const chunk = all.slice(i, i + 80).map((r) => r.id);
    for (const r of await db.select({ id: alerts.id }).from(alerts).where(inArray(alerts.id, chunk)))
      existing.add(r.id);
  }
  const rows = all.filter((r) => !existing.has(r.id));
  const statements = alertInserts(db, rows);
  if (statements.length === 0) return 0;
  await db.batch(statements as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]]);
  await enqueueAlerts(env.WEBHOOK_DELIVERIES_QUEUE, dueNow(rows, nowMs), shard);
  return rows.length;
}

/** The local hour (0–23) of `nowMs` in `timeZone`. */
function localHour(nowMs: number, timeZone: string): number {
  return Number(new Intl.DateTimeFormat("en-US", { timeZone, hourCycle: "h23", hour: "2-digit" }).format(nowMs));
}

/**
 * The daily digests (issue 27 §2): for each account with alerts waiting for its digest whose local hour (in its
 * `alert_settings.time_zone`) has reached `digest_hour` and that had no digest yet on this local date, one digest per
 * channel gathering what waits (at most {@link DIGEST_MAX_ALERTS}), written with the alerts it gathers marked
 * `digested` and the account's `last_digest_on`, in one batch per account; due at once, or when quiet hours end.
 * At most {@link DIGESTS_PER_RUN} accounts a run, per shard (`shard`, the primary by default).
 * @returns how many digests were written.
 */
export async function buildDigests(
  env: Pick<Env, "DB"> & Partial<Pick<Env, "WEBHOOK_DELIVERIES_QUEUE">>,
  nowMs: number,
  shard = 0,
): Promise<number> {
  const db = createDatabase(shardD1(env as Env, shard));
  const waiting = await db
    .selectDistinct({ accountId: alerts.accountId })
    .from(alerts)
    .where(eq(alerts.status, "digest"))
    .limit(200);
  if (waiting.length === 0) return 0;
  const settings = await alertSettingsQuery(
    db,
    waiting.map((w) => w.accountId),
  );
  let written = 0;
  let accounts = 0;
  for (const { accountId } of waiting) {
    if (accounts >= DIGESTS_PER_RUN) break;
    const s = settingsOf(settings, accountId);
    const today = localDate(nowMs, s.timeZone);
    if (localHour(nowMs, s.timeZone) < s.digestHour || s.lastDigestOn === today) continue;
    accounts++;
    const due = await db
      .select()
      .from(alerts)
      .where(and(eq(alerts.accountId, accountId), eq(alerts.status, "digest")))
      .orderBy(alerts.createdAt)
      .limit(DIGEST_MAX_ALERTS);
    const byChannel = new Map<string, (typeof due)[number][]>();
    for (const a of due) {
      const key = `${a.channelType}\n${a.channelTarget}`;
      byChannel.set(key, [...(byChannel.get(key) ?? []), a]);
    }
    const nowIso = toIsoSeconds(nowMs);
    const held = quietUntil(nowMs, s);
    const statements: BatchItem<"sqlite">[] = [];
    const digestRows: AlertRow[] = [];
    for (const group of byChannel.values()) {
      const first = group[0];
      if (!first) continue;
      const id = await deterministicId(
        `alert_digest:${accountId}:${today}:${first.channelType}:${first.channelTarget}`,
      );
      const facts: DigestFacts = {
        digest_id: id,
        local_date: today,
        time_zone: s.timeZone,
        alerts: group.map((a) => a.facts as unknown as AlertFacts),
      };
      const row: AlertRow = {
        id,
        accountId,
        kind: "digest",
        // The digest is signed with, and reports its failures on, the first rule of its channel.
        ruleId: first.ruleId,
        containerId: null,
        condition: null,
        episodeKey: `digest:${today}`,
        facts: facts as unknown as Record<string, unknown>,
        channelType: first.channelType,
        channelTarget: first.channelTarget,
        status: "pending",
        attempts: 0,
        nextAttemptAt: toIsoSeconds(held ?? nowMs),
        createdAt: nowIso,
        updatedAt: nowIso,
      };
      digestRows.push(row);
      statements.push(
        db.insert(alerts).values(row).onConflictDoNothing(),
        db
          .update(alerts)
          .set({ status: "digested", digestId: id, updatedAt: nowIso })
          .where(
            and(
              inArray(
                alerts.id,
                group.map((a) => a.id),
              ),
              eq(alerts.status, "digest"),
            ),
          ),
      );
    }
    const { accountId: _a, ...rest } = s;
    statements.push(
      db
        .insert(alertSettings)
        .values({ ...s, lastDigestOn: today, updatedAt: nowIso })
        .onConflictDoUpdate({ target: alertSettings.accountId, set: { ...rest, lastDigestOn: today } }),
    );
    await db.batch(statements as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]]);
    await enqueueAlerts(env.WEBHOOK_DELIVERIES_QUEUE, dueNow(digestRows, nowMs), shard);
    written += digestRows.length;
  }
  return written;
}

/** What one alerts cron run did. */
export interface AlertsCronReport {
  alertsWritten: number;
  digestsWritten: number;
  alertsRequeued: number;
  chargesEventsWritten: number;
}

/**
 * The alerts' part of the every-minute cron (src/tracking/maintenance.ts): date-driven alerts, digests, the charges
 * extension webhook events, and the alert outbox sweep. Each step is bounded; one failing step does not stop the
 * others (it is logged and tried again next minute). Every shard is walked (issue 29 §3), each step bounded per shard.
 */
export async function runAlertsCron(env: Env, clock: Clock = systemClock): Promise<AlertsCronReport> {
  const nowMs = clock.now();
  const step = async (name: string, f: () => Promise<number>) => {
    try {
      return await f();
    } catch (err) {
      console.error(`alerts cron: ${name} failed`, String(err));
      return 0;
    }
  };
  const report: AlertsCronReport = { alertsWritten: 0, digestsWritten: 0, alertsRequeued: 0, chargesEventsWritten: 0 };
  for (const { shard } of await sweptShards(env)) {
    report.alertsWritten += await step("evaluate", () => evaluateTimeDrivenAlerts(env, nowMs, shard));
    report.chargesEventsWritten += await step("charges events", () => chargesWebhookEvents(env, nowMs, shard));
    report.digestsWritten += await step("digests", () => buildDigests(env, nowMs, shard));
  }
  // The sweep walks every shard itself.
  report.alertsRequeued = await step("sweep", () => sweepAlertOutbox(env, nowMs));
  return report;
}
