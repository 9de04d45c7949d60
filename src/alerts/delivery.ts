import { and, asc, eq, inArray, lt, or, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { createDatabase, type Database } from "../db/client";
import { insertChunks } from "../db/insert-chunks";
import { alertRules, alerts } from "../db/schema";
import { sumOverShards } from "../db/shard-sweeps";
import { shardDb } from "../db/shards";
import { type Clock, systemClock, toIsoSeconds } from "../lib/clock";
import { deterministicId } from "../lib/ids";
import { filterOnly } from "../lib/tenant";
import { wallClockToUtcMs } from "../lib/time-zones";
import type { WebhookDeliveryMessage } from "../webhooks/outbox";
import { queueDelaySeconds, retryDelaySeconds, WEBHOOK_MAX_ATTEMPTS, WEBHOOK_TIMEOUT_MS } from "../webhooks/schedule";
import { idsByShard } from "../webhooks/shard-messages";
import { type AlertTransportEnv, sendOnChannel, type TransportSettings, transportSettings } from "./channels";
import type { AlertCandidate } from "./conditions";
import type { AlertFacts, DigestFacts } from "./messages";
import type { AlertRuleRow, AlertSettingsRow } from "./rule-service";

/**
 * Alert delivery (issue 27 §2): the `alerts` table is an outbox like `webhook_notifications`, delivered through the
 * same `webhook-deliveries` queue (a message `{alertId}` beside the webhooks' `{notificationId}`), with the same claim
 * (attempts + 1 and a lease, in one conditional UPDATE), the same retry schedule (`retryDelaySeconds`: 13 attempts
 * over about 2.6 days, ±20 % jitter) and the same cron sweep for lost messages. Each attempt's outcome is written to
 * the alert and to its rule (`last_delivery_status`, `last_delivery_at`, `last_error`, `failing_since`), which is how
 * a failing channel shows in the API. An alert whose rule was deleted or deactivated is failed without sending.
 */

/** Message on `webhook-deliveries` for an alert (or digest) to deliver. */
export interface AlertDeliveryMessage {
  alertId: string;
  /** The shard holding the alert (src/db/shards.ts); absent, the consumer looks for it in each shard. */
  shard?: number;
}

/** Seconds a claimed alert is reserved for the consumer that claimed it (as webhook notifications). */
const LEASE_S = Math.ceil(WEBHOOK_TIMEOUT_MS / 1000) + 30;
const IDS_PER_STATEMENT = 80;
/** As the webhook outbox sweep (src/webhooks/delivery.ts `SWEEP_GRACE_S`, `SWEEP_BATCH`): 60 s late, 500 a run. */
const SWEEP_GRACE_S = 60;
const SWEEP_BATCH = 500;

/**
 * When quiet hours hold a delivery due at `nowMs`: the instant they end (ms), or null when `nowMs` is outside them
 * (or the account has none). Quiet hours are `[start, end)` local hours in the settings' time zone; start > end wraps
 * midnight (20 → 6 is 20:00–06:00).
 */
export function quietUntil(
  nowMs: number,
  settings: Pick<AlertSettingsRow, "timeZone" | "quietHoursStart" | "quietHoursEnd">,
): number | null {
  const { quietHoursStart: start, quietHoursEnd: end, timeZone } = settings;
  if (start === null || end === null || start === end) return null;
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
    })
      .formatToParts(nowMs)
      .map((p) => [p.type, p.value]),
  );
  const hour = Number(parts.hour);
  const quiet = start < end ? hour >= start && hour < end : hour >= start || hour < end;
  if (!quiet) return null;
  const day = Date.UTC(Number(parts.year), Number(parts.month) - 1, Number(parts.day));
  // The end is today's local `end:00`, or tomorrow's when quiet hours wrapped past midnight and it is still evening.
  const endDay = start > end && hour >= start ? day + 86_400_000 : day;
  return wallClockToUtcMs(endDay + end * 3_600_000, timeZone);
}

/** The `alerts` row of one candidate, or of a digest. */
export type AlertRow = typeof alerts.$inferInsert;

/** The id of the alert of (rule, box, episode): the same fact seen twice gives the same row. */
export function alertId(ruleId: string, containerId: string, episodeKey: string): Promise<string> {
  return deterministicId(`alert:${ruleId}:${containerId}:${episodeKey}`);
}

/**
 * The row of an alert a rule raised: `pending` (due now, or when quiet hours end) for an `immediate` rule, `digest`
 * for a `digest` rule.
 */
export function alertRow(
  rule: Pick<AlertRuleRow, "id" | "accountId" | "channelType" | "channelAddress" | "channelUrl" | "delivery">,
  candidate: AlertCandidate,
  id: string,
  facts: AlertFacts,
  settings: AlertSettingsRow,
  nowMs: number,
): AlertRow {
  const nowIso = toIsoSeconds(nowMs);
  const digest = rule.delivery === "digest";
  const held = digest ? null : quietUntil(nowMs, settings);
  return {
    id,
    accountId: rule.accountId,
    kind: "alert",
    ruleId: rule.id,
    containerId: candidate.containerId,
    condition: candidate.condition,
    episodeKey: candidate.episodeKey,
    facts: facts as unknown as Record<string, unknown>,
    channelType: rule.channelType,
    channelTarget: rule.channelAddress ?? rule.channelUrl ?? "",
    status: digest ? "digest" : "pending",
    attempts: 0,
    nextAttemptAt: digest ? null : toIsoSeconds(held ?? nowMs),
    createdAt: nowIso,
    updatedAt: nowIso,
  };
}

/**
 * INSERT … ON CONFLICT DO NOTHING of alert rows (an episode already alerted is left as it is): one multi-row INSERT
 * per chunk under D1's 100 bound parameters (src/db/insert-chunks.ts); none for no rows.
 */
export function alertInserts(db: Database, rows: readonly AlertRow[]): BatchItem<"sqlite">[] {
  return insertChunks(alerts, rows).map((run) => db.insert(alerts).values(run.rows).onConflictDoNothing());
}

/** The ids among `rows` to put on the queue now: pending and due (not held by quiet hours, not for the digest). */
export function dueNow(rows: readonly AlertRow[], nowMs: number): string[] {
  const now = toIsoSeconds(nowMs);
  return rows.filter((r) => r.status === "pending" && (r.nextAttemptAt ?? now) <= now).map((r) => r.id);
}

/**
 * Puts `{alertId}` messages on `webhook-deliveries` after the batch that wrote the alerts committed. Never throws:
 * a failed send is left to {@link sweepAlertOutbox}.
 * @param shard the shard the alerts were written to, carried in each message (omitted: looked up by the consumer).
 */
export async function enqueueAlerts(
  queue: Queue<WebhookDeliveryMessage> | undefined,
  ids: readonly string[],
  shard?: number,
): Promise<void> {
  if (!queue || ids.length === 0) return;
  // The queue carries both kinds of message; the consumer tells them apart by their field.
  const q = queue as unknown as Queue<AlertDeliveryMessage>;
  for (let i = 0; i < ids.length; i += 100) {
    try {
      await q.sendBatch(
        ids.slice(i, i + 100).map((alertId) => ({ body: shard === undefined ? { alertId } : { alertId, shard } })),
      );
    } catch (err) {
      console.error("alerts: enqueue failed; the cron sweep will re-queue", String(err));
    }
  }
}

/** What handling one alert did. */
export type AlertOutcome =
  | { kind: "succeeded" }
  | { kind: "retry"; delaySeconds: number; error: string | null }
  | { kind: "failed"; reason: string }
  | { kind: "not_due"; delaySeconds: number }
  | { kind: "done" };

/** What delivery needs; tests inject the clock, the jitter and the transport. */
export interface AlertDeliveryDeps {
  env: Pick<Env, "DB"> & AlertTransportEnv;
  clock?: Clock;
  random?: () => number;
  transport?: TransportSettings;
}

/**
 * Delivers alerts (and digests) by id: claims the due ones in one round trip, sends them concurrently on their
 * channels, records every outcome (alert and rule) in one D1 batch. Throws only when D1 fails.
 * @param shard the shard holding the alerts and their rules (src/db/shards.ts; 0, the primary, by default).
 */
export async function deliverAlerts(
  deps: AlertDeliveryDeps,
  ids: readonly string[],
  shard = 0,
): Promise<Map<string, AlertOutcome>> {
  const outcomes = new Map<string, AlertOutcome>();
  const unique = [...new Set(ids)];
  if (unique.length === 0) return outcomes;
  const db = shard === 0 ? createDatabase(deps.env.DB) : shardDb(deps.env as unknown as Env, shard);
  const nowMs = (deps.clock ?? systemClock).now();
  const nowIso = toIsoSeconds(nowMs);
  const transport = deps.transport ?? transportSettings(deps.env);
  const a = alerts;
  const claimed: {
    id: string;
    attempts: number;
    facts: Record<string, unknown>;
    channelType: string;
    channelTarget: string;
    ruleId: string | null;
  }[] = [];
  const states = new Map<string, { status: string; nextAttemptAt: string | null; attempts: number }>();
  for (let i = 0; i < unique.length; i += IDS_PER_STATEMENT) {
    const chunk = unique.slice(i, i + IDS_PER_STATEMENT);
    const [rows, current] = await db.batch([
      db
        .update(a)
        .set({
          attempts: sql`${a.attempts} + 1`,
          nextAttemptAt: toIsoSeconds(nowMs + LEASE_S * 1000),
          updatedAt: nowIso,
        })
        .where(
          and(
            inArray(a.id, chunk),
            // Not an index term: the ids are the search, not alerts_status_next_idx (src/lib/tenant.ts filterOnly).
            filterOnly(a.status, "pending"),
            lt(a.attempts, WEBHOOK_MAX_ATTEMPTS),
            or(sql`${a.nextAttemptAt} IS NULL`, sql`${a.nextAttemptAt} <= ${nowIso}`),
          ),
        )
        .returning({
          id: a.id,
          attempts: a.attempts,
          facts: a.facts,
          channelType: a.channelType,
          channelTarget: a.channelTarget,
          ruleId: a.ruleId,
        }),
      db
        .select({ id: a.id, status: a.status, nextAttemptAt: a.nextAttemptAt, attempts: a.attempts })
        .from(a)
        .where(inArray(a.id, chunk)),
    ]);
    claimed.push(...rows);
    for (const s of current) states.set(s.id, s);
  }
  const exhausted: BatchItem<"sqlite">[] = [];
  for (const id of unique) {
    if (claimed.some((c) => c.id === id)) continue;
    const s = states.get(id);
    if (s?.status === "pending" && s.attempts >= WEBHOOK_MAX_ATTEMPTS && (s.nextAttemptAt ?? nowIso) <= nowIso) {
      // The last attempt was claimed but its outcome never recorded (a crash): nothing is left to try.
      exhausted.push(
        db
          .update(a)
          .set({ status: "failed", nextAttemptAt: null, lastError: "not sent: retries exhausted", updatedAt: nowIso })
          .where(and(eq(a.id, id), eq(a.status, "pending"))),
      );
      outcomes.set(id, { kind: "failed", reason: "retries exhausted" });
      continue;
    }
    if (s?.status === "pending" && s.nextAttemptAt) {
      outcomes.set(id, {
        kind: "not_due",
        delaySeconds: queueDelaySeconds((Date.parse(s.nextAttemptAt) - nowMs) / 1000),
      });
    } else outcomes.set(id, { kind: "done" });
  }
  if (exhausted.length > 0) await db.batch(exhausted as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]]);
  if (claimed.length === 0) return outcomes;
  const ruleIds = [...new Set(claimed.flatMap((c) => (c.ruleId ? [c.ruleId] : [])))];
  const rules = new Map(
    (ruleIds.length > 0 ? await db.select().from(alertRules).where(inArray(alertRules.id, ruleIds)) : []).map((r) => [
      r.id,
      r,
    ]),
  );
  const record: BatchItem<"sqlite">[] = [];
  await Promise.all(
    claimed.map(async (c) => {
      const rule = c.ruleId ? rules.get(c.ruleId) : undefined;
      if (!rule?.active) {
        const reason = rule ? "rule inactive" : "rule deleted";
        record.push(
          db
            .update(a)
            .set({ status: "failed", nextAttemptAt: null, lastError: `not sent: ${reason}`, updatedAt: nowIso })
            .where(eq(a.id, c.id)),
        );
        outcomes.set(c.id, { kind: "failed", reason });
        return;
      }
      const content = c.facts as unknown as AlertFacts | DigestFacts;
      const attempt = await sendOnChannel(
        transport,
        { type: c.channelType, target: c.channelTarget, secret: rule.secret },
        content,
        c.id,
      );
      const r = alertRules;
      if (attempt.succeeded) {
        record.push(
          db
            .update(a)
            .set({ status: "succeeded", nextAttemptAt: null, lastError: null, deliveredAt: nowIso, updatedAt: nowIso })
            .where(eq(a.id, c.id)),
          db
            .update(r)
            .set({ lastDeliveryStatus: "succeeded", lastDeliveryAt: nowIso, lastError: null, failingSince: null })
            .where(eq(r.id, rule.id)),
        );
        outcomes.set(c.id, { kind: "succeeded" });
        return;
      }
      const delay = attempt.gone ? null : retryDelaySeconds(c.attempts, deps.random);
      record.push(
        delay === null
          ? db
              .update(a)
              .set({ status: "failed", nextAttemptAt: null, lastError: attempt.error, updatedAt: nowIso })
              .where(eq(a.id, c.id))
          : db
              .update(a)
              .set({ nextAttemptAt: toIsoSeconds(nowMs + delay * 1000), lastError: attempt.error, updatedAt: nowIso })
              .where(eq(a.id, c.id)),
        db
          .update(r)
          .set({
            lastDeliveryStatus: "failed",
            lastDeliveryAt: nowIso,
            lastError: attempt.error,
            failingSince: sql`COALESCE(${r.failingSince}, ${nowIso})`,
          })
          .where(eq(r.id, rule.id)),
      );
      outcomes.set(
        c.id,
        delay === null
          ? { kind: "failed", reason: attempt.error ?? "failed" }
          : { kind: "retry", delaySeconds: delay, error: attempt.error },
      );
    }),
  );
  if (record.length > 0) await db.batch(record as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]]);
  return outcomes;
}

/**
 * Consumes the `{alertId}` messages of a `webhook-deliveries` batch (the `{notificationId}` ones are the webhooks'):
 * acks what is done, retries with the schedule's delay what failed, retries everything in 30 s when D1 fails.
 */
export async function consumeAlertMessages(
  messages: readonly Message<AlertDeliveryMessage>[],
  env: Env,
  deps: Omit<AlertDeliveryDeps, "env"> = {},
): Promise<void> {
  if (messages.length === 0) return;
  const outcomes = new Map<string, AlertOutcome>();
  try {
    // Per shard: the message's, else the shard holding the alert (src/webhooks/shard-messages.ts).
    const byShard = await idsByShard(
      env,
      messages.map((m) => ({ id: m.body.alertId, shard: m.body.shard })),
      "alerts",
    );
    for (const [shard, ids] of byShard) {
      const done = await deliverAlerts({ ...deps, env: env as unknown as AlertDeliveryDeps["env"] }, ids, shard);
      for (const [id, outcome] of done) outcomes.set(id, outcome);
    }
  } catch (err) {
    console.error("alerts: delivery batch failed", messages.length, String(err));
    for (const m of messages) m.retry({ delaySeconds: 30 });
    return;
  }
  for (const m of messages) {
    const o = outcomes.get(m.body.alertId);
    if (o?.kind === "retry") m.retry({ delaySeconds: queueDelaySeconds(o.delaySeconds) });
    else if (o?.kind === "not_due") m.retry({ delaySeconds: o.delaySeconds });
    else m.ack();
  }
}

/**
 * The cron's alert outbox sweep: re-queues `pending` alerts more than 60 s past their `next_attempt_at`
 * (a lost message, a dead consumer, or quiet hours that ended), at most 500 a run, and moves their
 * `next_attempt_at` to now so the next run does not re-queue them again. Every shard is swept, each bounded alike;
 * the messages carry the shard.
 * @returns how many were re-queued.
 */
export async function sweepAlertOutbox(
  env: Pick<Env, "DB" | "WEBHOOK_DELIVERIES_QUEUE">,
  nowMs: number,
): Promise<number> {
  return sumOverShards(env as Env, ({ shard, db }) => sweepShardAlerts(env, db, shard, nowMs));
}

/** {@link sweepAlertOutbox} on one shard. */
async function sweepShardAlerts(
  env: Pick<Env, "WEBHOOK_DELIVERIES_QUEUE">,
  db: Database,
  shard: number,
  nowMs: number,
): Promise<number> {
  const cutoff = toIsoSeconds(nowMs - SWEEP_GRACE_S * 1000);
  const stale = await db
    .select({ id: alerts.id })
    .from(alerts)
    .where(and(eq(alerts.status, "pending"), lt(alerts.nextAttemptAt, cutoff)))
    .orderBy(asc(alerts.nextAttemptAt))
    .limit(SWEEP_BATCH);
  if (stale.length === 0) return 0;
  const ids = stale.map((s) => s.id);
  for (let i = 0; i < ids.length; i += IDS_PER_STATEMENT) {
    await db
      .update(alerts)
      .set({ nextAttemptAt: toIsoSeconds(nowMs) })
      .where(and(inArray(alerts.id, ids.slice(i, i + IDS_PER_STATEMENT)), filterOnly(alerts.status, "pending")));
  }
  await enqueueAlerts(env.WEBHOOK_DELIVERIES_QUEUE, ids, shard);
  return ids.length;
}
