import { and, asc, eq, inArray, isNotNull, lt, lte } from "drizzle-orm";
import type { Database } from "../db/client";
import { webhookNotifications, webhooks } from "../db/schema";
import { sumOverShards } from "../db/shard-sweeps";
import { toIsoSeconds } from "../lib/clock";
import { filterOnly } from "../lib/tenant";
import { enqueueNotifications } from "./outbox";

// The cron's sweeps of the webhook outbox (src/tracking/maintenance.ts), over every shard holding accounts (issue 29
// §3); delivery itself is src/webhooks/delivery.ts.

/**
 * A pending notification this long past its `next_attempt_at` has lost its message, or the consumer holding its claim
 * died (seconds); the sweep re-queues it. With the lease and the every-minute cron, a delivery a crash interrupted is
 * tried again at most 45 + 60 + 60 s after it was claimed, and one whose message was lost at most 120 s after it was
 * written (issue 23 §3: under three minutes after a restart). A message that was only slow is harmless: the claim
 * lets one consumer send at a time, and the other message waits for the lease to end.
 */
export const SWEEP_GRACE_S = 60;

/** Notifications the sweep re-queues per run (the rest wait for the next minute). */
export const SWEEP_BATCH = 500;

/**
 * The cron's outbox sweep (docs/architecture.md §Overview): re-queues `pending` notifications whose `next_attempt_at`
 * is more than {@link SWEEP_GRACE_S} past (their message was lost: an enqueue that failed after the outbox batch
 * committed, a consumer that died holding a claim), oldest first, at most {@link SWEEP_BATCH} per run, and moves their
 * `next_attempt_at` to now so the next run does not re-queue them again while they wait in the queue. Every shard is
 * swept (issue 29 §3), each bounded by {@link SWEEP_BATCH}; its messages carry the shard.
 * @returns how many notifications were re-queued.
 */
export async function sweepWebhookOutbox(
  env: Pick<Env, "DB" | "WEBHOOK_DELIVERIES_QUEUE">,
  nowMs: number,
): Promise<number> {
  return sumOverShards(env as Env, ({ shard, db }) => sweepShardOutbox(env, db, shard, nowMs));
}

/** {@link sweepWebhookOutbox} on one shard. */
async function sweepShardOutbox(
  env: Pick<Env, "WEBHOOK_DELIVERIES_QUEUE">,
  db: Database,
  shard: number,
  nowMs: number,
): Promise<number> {
  const n = webhookNotifications;
  const cutoff = toIsoSeconds(nowMs - SWEEP_GRACE_S * 1000);
  const stale = await db
    .select({ id: n.id })
    .from(n)
    .where(and(eq(n.deliveryStatus, "pending"), lt(n.nextAttemptAt, cutoff)))
    .orderBy(asc(n.nextAttemptAt))
    .limit(SWEEP_BATCH);
  if (stale.length === 0) return 0;
  const ids = stale.map((r) => r.id);
  const nowIso = toIsoSeconds(nowMs);
  for (let i = 0; i < ids.length; i += 90) {
    await db
      .update(n)
      .set({ nextAttemptAt: nowIso })
      .where(and(inArray(n.id, ids.slice(i, i + 90)), filterOnly(n.deliveryStatus, "pending")));
  }
  return enqueueNotifications(env.WEBHOOK_DELIVERIES_QUEUE, ids, undefined, shard);
}

/**
 * The cron's clean-up of secret rotations (`POST /webhooks/{id}/rotate_secret`): clears `previous_secret` of the
 * webhooks whose grace period ended at or before `nowMs` (deliveries already ignore it then; this removes the secret
 * itself), in every shard. Reads `webhooks_previous_secret_expiry_idx`.
 * @returns how many webhooks lost their previous secret.
 */
export async function dropExpiredWebhookSecrets(env: Pick<Env, "DB">, nowMs: number): Promise<number> {
  const w = webhooks;
  return sumOverShards(env as Env, async ({ db }) => {
    const dropped = await db
      .update(w)
      .set({ previousSecret: null, previousSecretExpiresAt: null })
      .where(and(isNotNull(w.previousSecretExpiresAt), lte(w.previousSecretExpiresAt, toIsoSeconds(nowMs))))
      .returning({ id: w.id });
    return dropped.length;
  });
}
