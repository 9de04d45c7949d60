import { and, eq, inArray } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { createDatabase } from "../db/client";
import { alertRules, alertSettings, alerts } from "../db/schema";
import { type Clock, systemClock, toIsoSeconds } from "../lib/clock";
import { deterministicId } from "../lib/ids";
import { alertSettingsQuery, loadBoxes, needsCustomFields, rowsOfCandidates, settingsOf } from "./boxes";
import { evaluateTimeDriven, INTERIM_DETENTION_FREE_DAYS, localDate, TIME_DRIVEN_CONDITIONS } from "./conditions";
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
 * The (rule, box) pairs worth evaluating now for the date-driven conditions, each not yet alerted for its current
 * episode (so a pair leaves the list once alerted). The date windows are a superset of the exact local-date rules of
 * `evaluateTimeDriven` (the LFD's day and today may each differ from their UTC dates by a day), which filters exactly.
 */
async function candidatePairs(d1: D1Database, nowMs: number): Promise<{ ruleId: string; containerId: string }[]> {
  const today = toIsoSeconds(nowMs).slice(0, 10);
  const notOut =
    "c.pod_full_out_at IS NULL AND c.final_destination_full_out_at IS NULL AND c.empty_terminated_at IS NULL";
  const none = (key: string) =>
    `NOT EXISTS (SELECT 1 FROM alerts a WHERE a.rule_id = r.id AND a.container_id = c.id AND a.episode_key = ${key})`;
  const base = "FROM alert_rules r JOIN containers c ON c.account_id = r.account_id";
  const query = `
    SELECT r.id AS rule_id, c.id AS container_id ${base}
      WHERE r.active = 1 AND r.condition = 'free_time_ending' AND c.pickup_lfd IS NOT NULL AND ${notOut}
        AND date(c.pickup_lfd) >= date(?1, '-2 days')
        AND date(c.pickup_lfd) <= date(?1, (COALESCE(r.threshold_days, 0) + 2) || ' days')
        AND ${none("'free_time:' || c.pickup_lfd")}
    UNION ALL
    SELECT r.id, c.id ${base}
      WHERE r.active = 1 AND r.condition = 'charges_accruing' AND c.pickup_lfd IS NOT NULL AND ${notOut}
        AND date(c.pickup_lfd) <= date(?1, '+1 days')
        AND ${none("'charges:' || c.pickup_lfd")}
    UNION ALL
    SELECT r.id, c.id ${base}
      WHERE r.active = 1 AND r.condition = 'empty_return_due' AND c.empty_terminated_at IS NULL
        AND COALESCE(c.final_destination_full_out_at, c.pod_full_out_at) IS NOT NULL
        AND date(COALESCE(c.final_destination_full_out_at, c.pod_full_out_at))
          <= date(?1, (COALESCE(r.threshold_days, 0) - ?2 + 2) || ' days')
        AND NOT EXISTS (SELECT 1 FROM alerts a WHERE a.rule_id = r.id AND a.container_id = c.id AND a.condition = 'empty_return_due')
    UNION ALL
    SELECT r.id, c.id ${base} JOIN shipments s ON s.id = c.shipment_id
      WHERE r.active = 1 AND r.condition = 'tracking_failed' AND c.empty_terminated_at IS NULL
        AND s.line_tracking_stopped_at IS NULL
        AND ((c.terminal_tracking_failed_reason IS NOT NULL
              AND ${none("'tracking_failed:terminal:' || COALESCE(c.pod_last_tracking_request_at, 'never')")})
          OR (s.line_tracking_failed_reason IS NOT NULL
              AND ${none("'tracking_failed:shipping_line:' || COALESCE(s.line_tracking_last_succeeded_at, 'never')")}))
    LIMIT ?3`;
  const { results } = await d1
    .prepare(query)
    .bind(today, INTERIM_DETENTION_FREE_DAYS, CRON_CANDIDATES)
    .all<{ rule_id: string; container_id: string }>();
  return results.map((r) => ({ ruleId: r.rule_id, containerId: r.container_id }));
}

/**
 * The cron's date-driven alerts (free time ending, charges accruing, empty return due, tracking failed): evaluates
 * at most {@link CRON_CANDIDATES} (rule, box) pairs, writes their alerts (ON CONFLICT DO NOTHING: once per episode)
 * in one batch, and enqueues the ones due now.
 * @returns how many alerts were written.
 */
export async function evaluateTimeDrivenAlerts(
  env: Pick<Env, "DB"> & Partial<Pick<Env, "WEBHOOK_DELIVERIES_QUEUE">>,
  nowMs: number,
): Promise<number> {
  const db = createDatabase(env.DB);
  const pairs = await candidatePairs(env.DB, nowMs);
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
  const candidates = pairs.flatMap((p) => {
    const rule = rules.get(p.ruleId);
    const box = boxes.get(p.containerId);
    return rule && box && box.container.accountId === rule.accountId ? evaluateTimeDriven(rule, box, nowMs) : [];
  });
  const rows = await rowsOfCandidates(candidates, rules, boxes, settings, nowMs, toIsoSeconds(nowMs));
  const statements = alertInserts(db, rows);
  if (statements.length === 0) return 0;
  await db.batch(statements as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]]);
  await enqueueAlerts(env.WEBHOOK_DELIVERIES_QUEUE, dueNow(rows, nowMs));
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
 * At most {@link DIGESTS_PER_RUN} accounts a run.
 * @returns how many digests were written.
 */
export async function buildDigests(
  env: Pick<Env, "DB"> & Partial<Pick<Env, "WEBHOOK_DELIVERIES_QUEUE">>,
  nowMs: number,
): Promise<number> {
  const db = createDatabase(env.DB);
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
    await enqueueAlerts(env.WEBHOOK_DELIVERIES_QUEUE, dueNow(digestRows, nowMs));
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
 * others (it is logged and tried again next minute).
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
  return {
    alertsWritten: await step("evaluate", () => evaluateTimeDrivenAlerts(env, nowMs)),
    chargesEventsWritten: await step("charges events", () => chargesWebhookEvents(env, nowMs)),
    digestsWritten: await step("digests", () => buildDigests(env, nowMs)),
    alertsRequeued: await step("sweep", () => sweepAlertOutbox(env, nowMs)),
  };
}
