import { and, eq, inArray, isNotNull, lt, or, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { type AlertDeliveryMessage, consumeAlertMessages } from "../alerts/delivery";
import { createDatabase, type Database } from "../db/client";
import { webhookDeliveries, webhookNotifications, webhooks } from "../db/schema";
import { shardDb } from "../db/shards";
import { type Clock, systemClock, toIsoSeconds } from "../lib/clock";
import { newId } from "../lib/ids";
import { filterOnly } from "../lib/tenant";
import type { WebhookDeliveryMessage } from "./outbox";
import {
  queueDelaySeconds,
  retryDelaySeconds,
  WEBHOOK_DISABLE_AFTER_FAILING_S,
  WEBHOOK_MAX_ATTEMPTS,
  WEBHOOK_TIMEOUT_MS,
} from "./schedule";
import { sendWebhook, type WebhookAttempt } from "./send";
import { idsByShard } from "./shard-messages";
import { parseAllowInsecureHosts } from "./ssrf";

// The cron's sweeps moved to their own file; re-exported for the callers that know them here.
export { dropExpiredWebhookSecrets, SWEEP_BATCH, SWEEP_GRACE_S, sweepWebhookOutbox } from "./outbox-sweep";

/**
 * The `webhook-deliveries` queue consumer, its dead-letter consumer and the outbox sweep
 * (docs/architecture.md §Webhook delivery, docs/decisions.md §Webhooks). A message only names a notification; the row
 * is the truth:
 *
 * 1. **Claim** (one conditional UPDATE for the whole message batch): a `pending` notification whose
 *    `next_attempt_at` has come gets `attempts + 1` and `next_attempt_at` = now + a lease ({@link DELIVERY_LEASE_S}).
 *    Only one consumer can claim it at a time, so duplicate messages (a redelivery, a sweep re-queue) never send it
 *    twice concurrently, and a redelivered message for a notification already `succeeded` is acked without sending.
 * 2. **Send** the stored bodies concurrently (same id, same bytes on every attempt) with `sendWebhook`.
 * 3. **Record** in one D1 batch for the whole message batch: per attempt a `webhook_deliveries` row (attempt,
 *    status code, latency, error) and the notification's new state; per webhook its failure bookkeeping:
 *    - success → `succeeded`, the webhook's `failing_since` cleared;
 *    - failure → `next_attempt_at` on the retry schedule (`retryDelaySeconds`) and the message retried with that
 *      delay (`message.retry`), or `failed` after the 13th attempt; the webhook's `failing_since` set if unset;
 *    - 410 Gone → the notification `failed`, the webhook disabled at once (`active: false`,
 *      `disabled_reason: "receiver_gone"`);
 *    - a failure while the webhook has had no success for 5 days and has `failed` notifications → disabled
 *      (`disabled_reason: "failing_for_5_days"`).
 * A notification of a webhook that was disabled or deleted meanwhile is marked `failed` without sending.
 * Deliveries are signed with the webhook's secret and, until its grace period ends, with the secret a rotation
 * replaced (`previous_secret`, compared with the clock at each attempt); {@link dropExpiredWebhookSecrets} clears it
 * afterwards. A notification's attempt log keeps its newest {@link MAX_LOGGED_ATTEMPTS} rows.
 * A consumer that dies mid-batch leaves its notifications claimed until the lease ends; the messages are redelivered
 * by the queue (or, if lost, re-queued by {@link sweepWebhookOutbox}) and delivered then — at least once: what was
 * sent before the crash but not recorded is sent again, with the same id.
 */

/**
 * Seconds a claimed notification is reserved for the consumer that claimed it: the send timeout (15 s) plus 30 s for
 * recording the batch's outcomes.
 */
export const DELIVERY_LEASE_S = Math.ceil(WEBHOOK_TIMEOUT_MS / 1000) + 30;

/**
 * Attempts kept per notification in `webhook_deliveries` (its `webhook_notification_logs`): a whole round of
 * {@link WEBHOOK_MAX_ATTEMPTS} plus the start of a resend; older rows are deleted as new ones are written.
 */
export const MAX_LOGGED_ATTEMPTS = 20;

/** `webhooks.disabled_reason` values set by delivery. */
export const DISABLED_REASON = {
  gone: "receiver_gone",
  failing: "failing_for_5_days",
} as const;

/** What the consumer needs; tests inject the clock, the network and the jitter. */
export interface DeliveryDeps {
  env: Pick<Env, "DB" | "WEBHOOK_DELIVERIES_QUEUE" | "WEBHOOK_ALLOW_INSECURE_HOSTS">;
  clock?: Clock;
  /** Outbound fetch; defaults to the `setWebhookFetch` seam, else the global fetch (see send.ts). */
  fetch?: typeof fetch;
  /** Jitter source in [0, 1) (default `Math.random`). */
  random?: () => number;
  /** Per-attempt timeout in ms (default 15 000). */
  timeoutMs?: number;
}

/** What handling one message did. */
export type DeliveryOutcome =
  /** The receiver acknowledged attempt `attempt`. */
  | { kind: "succeeded"; attempt: number; attemptResult: WebhookAttempt }
  /** Attempt `attempt` failed; the next is due at `nextAttemptAt`, `delaySeconds` (with jitter) from now. */
  | { kind: "retry"; attempt: number; delaySeconds: number; nextAttemptAt: string; attemptResult: WebhookAttempt }
  /** The notification is now `failed`: retries exhausted, receiver gone, or webhook disabled/deleted. */
  | { kind: "failed"; attempt: number; reason: string; attemptResult: WebhookAttempt | null }
  /** Not due yet (scheduled later, or claimed by another consumer): look again in `delaySeconds`. */
  | { kind: "not_due"; delaySeconds: number }
  /** Nothing to do: the notification is unknown, or already `succeeded`/`failed`. */
  | { kind: "done"; status: string | null };

interface NotificationState {
  id: string;
  status: string;
  nextAttemptAt: string | null;
  attempts: number;
  webhookId: string;
  url: string | null;
  secret: string | null;
  previousSecret: string | null;
  previousSecretExpiresAt: string | null;
  headers: { name: string; value: string }[] | null;
  active: boolean | null;
  disabledReason: string | null;
}

/** Ids per claim/read statement: D1 binds at most 100 parameters per statement. */
const IDS_PER_STATEMENT = 80;

function stateQuery(db: Database, ids: string[]) {
  const n = webhookNotifications;
  return db
    .select({
      id: n.id,
      status: n.deliveryStatus,
      nextAttemptAt: n.nextAttemptAt,
      attempts: n.attempts,
      webhookId: n.webhookId,
      url: webhooks.url,
      secret: webhooks.secret,
      previousSecret: webhooks.previousSecret,
      previousSecretExpiresAt: webhooks.previousSecretExpiresAt,
      headers: webhooks.headers,
      active: webhooks.active,
      disabledReason: webhooks.disabledReason,
    })
    .from(n)
    .leftJoin(webhooks, eq(webhooks.id, n.webhookId))
    .where(inArray(n.id, ids));
}

/** One `webhook_deliveries` row (an attempt) to record. */
interface AttemptRecord {
  notificationId: string;
  attempt: number;
  statusCode: number | null;
  latencyMs: number | null;
  error: string | null;
  createdAt: string;
}

/**
 * The INSERT of an attempt, written only while its notification exists: a webhook deleted while its notification
 * was being sent (DELETE /webhooks/{id} removes its notifications) must not make the whole batch's record fail.
 * Its `seq` is one more than the notification's last (statements of a D1 batch run in order).
 */
function attemptInsert(db: Database, a: AttemptRecord) {
  const n = webhookNotifications;
  return db.insert(webhookDeliveries).select(
    db
      .select({
        id: sql<string>`${newId()}`.as("id"),
        notificationId: n.id,
        attempt: sql<number>`${a.attempt}`.as("attempt"),
        statusCode: sql<number | null>`${a.statusCode}`.as("status_code"),
        latencyMs: sql<number | null>`${a.latencyMs}`.as("latency_ms"),
        error: sql<string | null>`${a.error}`.as("error"),
        createdAt: sql<string>`${a.createdAt}`.as("created_at"),
        // Qualified by hand: drizzle writes a select-list column bare, and a bare "id" would mean d.id in here.
        seq: sql<number>`COALESCE((SELECT MAX(d.seq) FROM webhook_deliveries d WHERE d.notification_id = "webhook_notifications"."id"), 0) + 1`.as(
          "seq",
        ),
      })
      .from(n)
      .where(eq(n.id, a.notificationId)),
  );
}

/**
 * Deletes all but the newest {@link MAX_LOGGED_ATTEMPTS} attempt rows of some notifications (one statement per
 * {@link IDS_PER_STATEMENT} ids, reading `webhook_deliveries_notification_seq_idx`).
 */
function pruneAttemptLogs(db: Database, ids: readonly string[]): BatchItem<"sqlite">[] {
  const d = webhookDeliveries;
  const out: BatchItem<"sqlite">[] = [];
  for (let i = 0; i < ids.length; i += IDS_PER_STATEMENT) {
    out.push(
      db
        .delete(d)
        .where(
          and(
            inArray(d.notificationId, ids.slice(i, i + IDS_PER_STATEMENT)),
            sql`"webhook_deliveries"."seq" <= (SELECT MAX(k.seq) FROM webhook_deliveries k WHERE k.notification_id = "webhook_deliveries"."notification_id") - ${MAX_LOGGED_ATTEMPTS}`,
          ),
        ),
    );
  }
  return out;
}

/**
 * The secrets a delivery at `nowMs` is signed with besides the current one: the rotated-away secret while its grace
 * period lasts (until `previous_secret_expires_at`, exclusive), else none.
 */
export function validPreviousSecrets(
  state: { previousSecret: string | null; previousSecretExpiresAt: string | null },
  nowMs: number,
): string[] {
  if (!state.previousSecret || !state.previousSecretExpiresAt) return [];
  return nowMs < Date.parse(state.previousSecretExpiresAt) ? [state.previousSecret] : [];
}

/** The statements that mark a notification `failed` without an attempt (webhook gone or disabled), saying why. */
function failWithoutSendingStatements(db: Database, id: string, attempts: number, reason: string, nowIso: string) {
  return [
    db
      .update(webhookNotifications)
      .set({ deliveryStatus: "failed", nextAttemptAt: null, attempts, updatedAt: nowIso })
      .where(and(eq(webhookNotifications.id, id), eq(webhookNotifications.deliveryStatus, "pending"))),
    attemptInsert(db, {
      notificationId: id,
      attempt: attempts,
      statusCode: null,
      latencyMs: null,
      error: `not sent: ${reason}`,
      createdAt: nowIso,
    }),
  ] as const;
}

/** One claimed notification, sent: what to record. */
interface Sent {
  id: string;
  attempt: number;
  webhookId: string;
  result: WebhookAttempt;
}

/**
 * Handles the notifications of one batch of `webhook-deliveries` messages: claims them all in one D1 round trip,
 * sends the claimed ones concurrently, and records every attempt and outcome in one D1 batch (see the module
 * comment for the rules). A notification id given twice is handled once (both get the same outcome).
 * Throws only when D1 fails; the caller then retries the messages (the claims' lease keeps a second consumer from
 * sending meanwhile).
 * @param shard the shard holding the notifications (src/db/shards.ts; 0, the primary, by default): a notification
 *   and its webhook are in its account's shard.
 * @returns the outcome of each notification id.
 */
export async function deliverNotifications(
  deps: DeliveryDeps,
  ids: readonly string[],
  shard = 0,
): Promise<Map<string, DeliveryOutcome>> {
  const outcomes = new Map<string, DeliveryOutcome>();
  const unique = [...new Set(ids)];
  if (unique.length === 0) return outcomes;
  const db = shard === 0 ? createDatabase(deps.env.DB) : shardDb(deps.env as Env, shard);
  const clock = deps.clock ?? systemClock;
  const nowMs = clock.now();
  const nowIso = toIsoSeconds(nowMs);
  const n = webhookNotifications;
  const reads: BatchItem<"sqlite">[] = [];
  for (let i = 0; i < unique.length; i += IDS_PER_STATEMENT) {
    const chunk = unique.slice(i, i + IDS_PER_STATEMENT);
    reads.push(
      db
        .update(n)
        .set({
          attempts: sql`${n.attempts} + 1`,
          nextAttemptAt: toIsoSeconds(nowMs + DELIVERY_LEASE_S * 1000),
          updatedAt: nowIso,
        })
        .where(
          and(
            inArray(n.id, chunk),
            // Not an index term: the ids are the search (src/lib/tenant.ts filterOnly).
            filterOnly(n.deliveryStatus, "pending"),
            lt(n.attempts, WEBHOOK_MAX_ATTEMPTS),
            or(sql`${n.nextAttemptAt} IS NULL`, sql`${n.nextAttemptAt} <= ${nowIso}`),
          ),
        )
        .returning({ id: n.id, attempts: n.attempts, payload: n.payload }),
      stateQuery(db, chunk),
    );
  }
  const results = (await db.batch(reads as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]])) as unknown[][];
  const claims = new Map<string, { attempts: number; payload: string }>();
  const states = new Map<string, NotificationState>();
  results.forEach((rows, i) => {
    if (i % 2 === 0) for (const c of rows as { id: string; attempts: number; payload: string }[]) claims.set(c.id, c);
    else for (const r of rows as NotificationState[]) states.set(r.id, r);
  });

  const record: BatchItem<"sqlite">[] = [];
  const jobs: Promise<Sent>[] = [];
  const allowInsecureHosts = parseAllowInsecureHosts(deps.env.WEBHOOK_ALLOW_INSECURE_HOSTS);
  for (const id of unique) {
    const state = states.get(id);
    const claim = claims.get(id);
    if (!state) {
      outcomes.set(id, { kind: "done", status: null });
      continue;
    }
    if (!claim) {
      if (state.status !== "pending") {
        outcomes.set(id, { kind: "done", status: state.status });
        continue;
      }
      const dueMs = state.nextAttemptAt ? Date.parse(state.nextAttemptAt) : nowMs;
      if (state.attempts >= WEBHOOK_MAX_ATTEMPTS && dueMs <= nowMs) {
        // The last attempt was made but its outcome never recorded (a crash): nothing is left to try.
        record.push(...failWithoutSendingStatements(db, id, state.attempts, "retries exhausted", nowIso));
        outcomes.set(id, { kind: "failed", attempt: state.attempts, reason: "retries exhausted", attemptResult: null });
      } else {
        outcomes.set(id, { kind: "not_due", delaySeconds: queueDelaySeconds((dueMs - nowMs) / 1000) });
      }
      continue;
    }
    if (state.url === null || state.secret === null) {
      record.push(...failWithoutSendingStatements(db, id, claim.attempts - 1, "webhook deleted", nowIso));
      outcomes.set(id, { kind: "failed", attempt: claim.attempts - 1, reason: "webhook deleted", attemptResult: null });
      continue;
    }
    if (!state.active) {
      const reason = `webhook inactive${state.disabledReason ? ` (${state.disabledReason})` : ""}`;
      record.push(...failWithoutSendingStatements(db, id, claim.attempts - 1, reason, nowIso));
      outcomes.set(id, { kind: "failed", attempt: claim.attempts - 1, reason, attemptResult: null });
      continue;
    }
    const url = state.url;
    const secret = state.secret;
    jobs.push(
      sendWebhook({
        url,
        secret,
        previousSecrets: validPreviousSecrets(state, nowMs),
        headers: state.headers ?? [],
        notificationId: id,
        body: claim.payload,
        fetch: deps.fetch,
        timeoutMs: deps.timeoutMs,
        nowMs,
        allowInsecureHosts,
      }).then((result) => ({ id, attempt: claim.attempts, webhookId: state.webhookId, result })),
    );
  }

  const sent = await Promise.all(jobs);
  const w = webhooks;
  const succeededWebhooks = new Set<string>();
  const failedWebhooks = new Set<string>();
  const goneWebhooks = new Set<string>();
  for (const { id, attempt, webhookId, result } of sent) {
    record.push(
      attemptInsert(db, {
        notificationId: id,
        attempt,
        statusCode: result.statusCode,
        latencyMs: result.latencyMs,
        error: result.error,
        createdAt: nowIso,
      }),
    );
    if (result.succeeded) {
      record.push(
        db.update(n).set({ deliveryStatus: "succeeded", nextAttemptAt: null, updatedAt: nowIso }).where(eq(n.id, id)),
      );
      succeededWebhooks.add(webhookId);
      outcomes.set(id, { kind: "succeeded", attempt, attemptResult: result });
      continue;
    }
    failedWebhooks.add(webhookId);
    if (result.gone) goneWebhooks.add(webhookId);
    const delay = result.gone ? null : retryDelaySeconds(attempt, deps.random);
    const nextAttemptAt = delay === null ? null : toIsoSeconds(nowMs + delay * 1000);
    record.push(
      db
        .update(n)
        .set(
          delay === null
            ? { deliveryStatus: "failed", nextAttemptAt: null, updatedAt: nowIso }
            : { nextAttemptAt, updatedAt: nowIso },
        )
        .where(and(eq(n.id, id), eq(n.deliveryStatus, "pending"))),
    );
    outcomes.set(
      id,
      delay === null || nextAttemptAt === null
        ? {
            kind: "failed",
            attempt,
            reason: result.gone ? "receiver gone (410)" : "retries exhausted",
            attemptResult: result,
          }
        : { kind: "retry", attempt, delaySeconds: delay, nextAttemptAt, attemptResult: result },
    );
  }
  // Webhook bookkeeping, once per webhook, after the notifications' own updates (so the 5-day rule sees them).
  const failingCutoff = toIsoSeconds(nowMs - WEBHOOK_DISABLE_AFTER_FAILING_S * 1000);
  for (const webhookId of succeededWebhooks) {
    record.push(
      db
        .update(w)
        .set({ failingSince: null })
        .where(and(eq(w.id, webhookId), isNotNull(w.failingSince))),
    );
  }
  for (const webhookId of goneWebhooks) {
    record.push(
      db
        .update(w)
        .set({
          active: false,
          disabledReason: DISABLED_REASON.gone,
          failingSince: sql`COALESCE(${w.failingSince}, ${nowIso})`,
          updatedAt: nowIso,
        })
        .where(eq(w.id, webhookId)),
    );
  }
  for (const webhookId of failedWebhooks) {
    // A webhook that also had a success in this batch is not failing.
    if (succeededWebhooks.has(webhookId) || goneWebhooks.has(webhookId)) continue;
    record.push(
      db
        .update(w)
        .set({ failingSince: sql`COALESCE(${w.failingSince}, ${nowIso})` })
        .where(eq(w.id, webhookId)),
      // "No success for 5 days with failed notifications disables it" (docs/decisions.md §Webhooks).
      db
        .update(w)
        .set({ active: false, disabledReason: DISABLED_REASON.failing, updatedAt: nowIso })
        .where(
          and(
            eq(w.id, webhookId),
            eq(w.active, true),
            isNotNull(w.failingSince),
            sql`${w.failingSince} <= ${failingCutoff}`,
            sql`EXISTS (SELECT 1 FROM webhook_notifications f WHERE f.webhook_id = ${webhookId} AND f.delivery_status = 'failed')`,
          ),
        ),
    );
  }
  if (sent.length > 0) record.push(...pruneAttemptLogs(db, [...new Set(sent.map((s) => s.id))]));
  if (record.length > 0) await db.batch(record as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]]);
  return outcomes;
}

function isAlertMessage(body: unknown): boolean {
  const id = (body as { alertId?: unknown } | null)?.alertId;
  return typeof id === "string" && id !== "";
}

/**
 * Handles one notification: {@link deliverNotifications} for a single id.
 */
export async function deliverNotification(deps: DeliveryDeps, id: string): Promise<DeliveryOutcome> {
  const outcome = (await deliverNotifications(deps, [id])).get(id);
  return outcome ?? { kind: "done", status: null };
}

/**
 * Queue consumer of `webhook-deliveries` (docs/decisions.md §Webhooks): the notifications of a batch are claimed and
 * recorded together (two D1 round trips for the whole batch) and sent concurrently, each to its own receiver. Each
 * message is acked when its notification is done (succeeded, failed, or nothing to do), and retried with
 * `message.retry({ delaySeconds })` when an attempt is due later (the retry schedule, or a claim held elsewhere).
 * When D1 fails, every message of the batch is retried in 30 s (claims already made hold their lease, so nothing
 * is sent twice at once). The notifications are delivered per shard (the message's `shard`, else looked up:
 * src/webhooks/shard-messages.ts), two D1 round trips per shard the batch touches.
 */
export async function consumeWebhookDeliveries(
  batch: MessageBatch<WebhookDeliveryMessage>,
  env: Env,
  deps: Omit<DeliveryDeps, "env"> = {},
): Promise<void> {
  // Alerts share the queue (src/alerts/delivery.ts): their messages carry `alertId` instead of `notificationId`.
  const alertMessages = batch.messages.filter((m) =>
    isAlertMessage(m.body),
  ) as unknown as Message<AlertDeliveryMessage>[];
  const valid = batch.messages.filter(
    (m) => typeof m.body?.notificationId === "string" && m.body.notificationId !== "",
  );
  for (const m of batch.messages) if (!valid.includes(m) && !isAlertMessage(m.body)) m.ack();
  await consumeAlertMessages(alertMessages, env);
  if (valid.length === 0) return;
  const outcomes = new Map<string, DeliveryOutcome>();
  try {
    const byShard = await idsByShard(
      env,
      valid.map((m) => ({ id: m.body.notificationId, shard: m.body.shard })),
      "webhook_notifications",
    );
    for (const [shard, ids] of byShard) {
      for (const [id, outcome] of await deliverNotifications({ ...deps, env }, ids, shard)) outcomes.set(id, outcome);
    }
  } catch (err) {
    console.error("webhook-deliveries: batch failed", valid.length, String(err));
    for (const m of valid) m.retry({ delaySeconds: 30 });
    return;
  }
  for (const message of valid) {
    const outcome = outcomes.get(message.body.notificationId);
    if (outcome?.kind === "retry") message.retry({ delaySeconds: queueDelaySeconds(outcome.delaySeconds) });
    else if (outcome?.kind === "not_due") message.retry({ delaySeconds: outcome.delaySeconds });
    else message.ack();
  }
}

/**
 * Consumer of `webhook-deliveries-dlq`: a message that exhausted the queue's retries (its handling kept throwing,
 * or it was retried more often than `max_retries`) puts its notification back on schedule — a new message on
 * `webhook-deliveries`, delayed until its `next_attempt_at` — or, when its attempts are used up, marks it `failed`.
 * Notifications already `succeeded`/`failed` are left alone.
 */
export async function consumeWebhookDeliveriesDlq(
  batch: MessageBatch<WebhookDeliveryMessage>,
  env: Env,
  deps: { clock?: Clock } = {},
): Promise<void> {
  const nowMs = (deps.clock ?? systemClock).now();
  const nowIso = toIsoSeconds(nowMs);
  for (const message of batch.messages) {
    const id = message.body?.notificationId;
    try {
      // The notification's shard: the message's, else the shard that holds it (src/webhooks/shard-messages.ts).
      const shard =
        typeof id === "string"
          ? ([...(await idsByShard(env, [{ id, shard: message.body.shard }], "webhook_notifications")).keys()][0] ?? 0)
          : 0;
      const db = shardDb(env, shard);
      const [state] = typeof id === "string" ? await stateQuery(db, [id]) : [];
      if (!id || !state || state.status !== "pending") {
        message.ack();
        continue;
      }
      const dueMs = state.nextAttemptAt ? Date.parse(state.nextAttemptAt) : nowMs;
      if (state.attempts >= WEBHOOK_MAX_ATTEMPTS) {
        await db.batch(
          failWithoutSendingStatements(db, id, state.attempts, "retries exhausted (dead-lettered)", nowIso),
        );
      } else {
        const delay = dueMs > nowMs ? queueDelaySeconds((dueMs - nowMs) / 1000) : undefined;
        await env.WEBHOOK_DELIVERIES_QUEUE.send(
          { notificationId: id, shard },
          delay ? { delaySeconds: delay } : undefined,
        );
      }
      message.ack();
    } catch (err) {
      console.error("webhook-deliveries-dlq: message failed", message.id, String(err));
      message.retry({ delaySeconds: 60 });
    }
  }
}
