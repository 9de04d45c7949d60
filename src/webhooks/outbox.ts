import { and, eq, inArray } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Database } from "../db/client";
import { insertChunks } from "../db/insert-chunks";
import { webhookNotifications, webhooks } from "../db/schema";
import { deterministicId } from "../lib/ids";
import type { Linkage, ResourceObject } from "../lib/jsonapi/types";
import { notificationDocument } from "./payloads";

/**
 * The webhook outbox (docs/architecture.md §Webhook delivery, docs/decisions.md §Webhooks): notifications are rows of
 * `webhook_notifications` written in the same D1 batch as the change that caused them, one per active webhook
 * subscribed to the event, per container (per shipment for `shipment.estimated.arrival`, per request for
 * `tracking_request.*`), per event, in the account of the change. Only after that batch commits is a message with the
 * notification id put on `webhook-deliveries`; a message lost on the way is re-queued by the cron sweep, so nothing is
 * lost.
 *
 * Notification ids are derived from the webhook and the fact (`dedupKey`), so a replayed change (a retried queue
 * message, a Tracker that restarted between its D1 write and its own bookkeeping) writes each notification once.
 */

/** Message on the `webhook-deliveries` queue (and its dead-letter queue): deliver this notification. */
export interface WebhookDeliveryMessage {
  notificationId: string;
  /**
   * The shard holding the notification (src/db/shards.ts; issue 29 §3). Absent in messages sent before shards, or by
   * a producer that does not know it: the consumer then looks for the id in each shard.
   */
  shard?: number;
}

/** An active webhook as the outbox needs it: where its notifications belong and what it subscribes to. */
export interface WebhookTarget {
  id: string;
  accountId: string;
  events: string[];
}

/** One event about to be announced: everything but the webhook, which the outbox fills in per subscriber. */
export interface NotificationDraft {
  accountId: string;
  /** Catalog event name (docs/webhooks.md §Events). */
  event: string;
  /** The `reference_object` of the notification (docs/webhooks.md §Notification resource). */
  reference: Linkage;
  /**
   * Identity of the fact within its event, e.g. `container.transport.vessel_arrived:<transport event id>`: the same
   * fact written twice gives the same notification id (per webhook), so it is delivered once.
   */
  dedupKey: string;
  /** When the change was recorded (UTC ISO seconds): the notification's `created_at`. */
  createdAt: string;
  /**
   * The `included` resources (docs/webhooks.md §Payloads), built only when some webhook subscribes; the same for every
   * webhook.
   */
  included: () => ResourceObject[];
}

/**
 * The query that reads the active webhooks of some accounts (batchable, so it shares a D1 round trip with the reads
 * of the change itself). Reads through `webhooks_account_active_idx` (account_id) WHERE active.
 */
export function activeWebhooksQuery(db: Database, accountIds: readonly string[]) {
  return db
    .select({ id: webhooks.id, accountId: webhooks.accountId, events: webhooks.events })
    .from(webhooks)
    .where(and(inArray(webhooks.accountId, [...new Set(accountIds)]), eq(webhooks.active, true)));
}

/** The active webhooks of some accounts (one indexed query; none when `accountIds` is empty). */
export async function loadActiveWebhooks(db: Database, accountIds: readonly string[]): Promise<WebhookTarget[]> {
  if (accountIds.length === 0) return [];
  return activeWebhooksQuery(db, accountIds);
}

/** Whether any of `targets` in `accountId` subscribes to one of `events`. */
export function anySubscriber(targets: readonly WebhookTarget[], accountId: string, events: Iterable<string>): boolean {
  const mine = targets.filter((t) => t.accountId === accountId);
  if (mine.length === 0) return false;
  for (const e of events) if (mine.some((t) => t.events.includes(e))) return true;
  return false;
}

/** The id of the notification of `dedupKey` for one webhook (RFC 9562 v5 name-based UUID, see `deterministicId`). */
export function notificationId(webhookId: string, dedupKey: string): Promise<string> {
  return deterministicId(`webhook_notification:${webhookId}:${dedupKey}`);
}

/**
 * The INSERT statements of the notifications `drafts` produce for `targets` (to add to the batch of the change: one
 * multi-row INSERT per chunk of rows under D1's 100 bound parameters, src/db/insert-chunks.ts), and their ids (to
 * enqueue once the batch committed). A draft gets one notification per active webhook of its account that subscribes
 * to its event; none when no webhook does. Inserts are ON CONFLICT DO NOTHING: a
 * notification already written is left as it is (its delivery state included).
 * @param nowIso when the rows are written (UTC ISO seconds): `updated_at`, and `next_attempt_at` (due at once).
 */
export async function notificationInserts(
  db: Database,
  targets: readonly WebhookTarget[],
  drafts: readonly NotificationDraft[],
  nowIso: string,
): Promise<{ statements: BatchItem<"sqlite">[]; ids: string[] }> {
  const rows: (typeof webhookNotifications.$inferInsert)[] = [];
  const ids: string[] = [];
  for (const draft of drafts) {
    const subscribers = targets.filter((t) => t.accountId === draft.accountId && t.events.includes(draft.event));
    if (subscribers.length === 0) continue;
    const included = draft.included();
    for (const webhook of subscribers) {
      const id = await notificationId(webhook.id, draft.dedupKey);
      const payload = JSON.stringify(
        notificationDocument(
          {
            notificationId: id,
            webhookId: webhook.id,
            event: draft.event,
            createdAt: draft.createdAt,
            reference: draft.reference,
          },
          included,
        ),
      );
      rows.push({
        id,
        accountId: draft.accountId,
        webhookId: webhook.id,
        event: draft.event,
        referenceObjectType: draft.reference.type,
        referenceObjectId: draft.reference.id,
        payload,
        deliveryStatus: "pending",
        attempts: 0,
        nextAttemptAt: nowIso,
        createdAt: draft.createdAt,
        updatedAt: nowIso,
      });
      ids.push(id);
    }
  }
  // One multi-row INSERT per chunk (D1's 100 bound parameters) rather than one per notification; the count trigger
  // (migration 0002) still counts exactly the rows inserted.
  const statements: BatchItem<"sqlite">[] = insertChunks(webhookNotifications, rows).map((run) =>
    db.insert(webhookNotifications).values(run.rows).onConflictDoNothing(),
  );
  return { statements, ids };
}

/** Messages per `sendBatch` call (the Queues limit is 100 messages and 256 KB; ours are ~60 bytes each). */
const SEND_BATCH = 100;

/**
 * Puts one `webhook-deliveries` message per notification id on the queue, after the batch that wrote them
 * committed. Never throws: a failed send is logged and left to the cron sweep, which re-queues notifications whose
 * `next_attempt_at` passed (the rows are already durable, so nothing is lost).
 * @param delaySeconds delivery delay of the messages (none by default).
 * @param shard the shard the notifications were written to (src/db/shards.ts), carried in each message so the consumer
 *   reads the right database; omitted, the consumer looks for them in each shard.
 * @returns how many messages were sent.
 */
export async function enqueueNotifications(
  queue: Queue<WebhookDeliveryMessage>,
  ids: readonly string[],
  delaySeconds?: number,
  shard?: number,
): Promise<number> {
  let sent = 0;
  for (let i = 0; i < ids.length; i += SEND_BATCH) {
    const chunk = ids.slice(i, i + SEND_BATCH);
    try {
      await queue.sendBatch(
        chunk.map((notificationId) => ({ body: shard === undefined ? { notificationId } : { notificationId, shard } })),
        delaySeconds ? { delaySeconds } : undefined,
      );
      sent += chunk.length;
    } catch (err) {
      console.error("webhook outbox: enqueue failed; the cron sweep will re-queue", chunk.length, String(err));
    }
  }
  return sent;
}

/**
 * Runs `statements` in one D1 batch together with the notifications they announce, then enqueues those
 * (docs/decisions.md §Webhooks; used for the `tracking_request.*` events). Reads the account's active webhooks first
 * (one query); only when one subscribes to `events` is `build` called (it may read what the bodies include).
 * @param queue the `webhook-deliveries` producer; without one the rows wait for the cron sweep.
 * @param statements the change itself (at least one statement).
 * @param shard the number of the shard `db` is (src/db/shards.ts), carried in the queue messages; omitted, the
 *   consumer looks for the notifications in each shard.
 * @returns the ids of the notifications written.
 */
export async function batchWithNotifications(
  db: Database,
  queue: Queue<WebhookDeliveryMessage> | undefined,
  statements: [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]],
  announce: { accountId: string; events: readonly string[]; nowIso: string },
  build: () => Promise<NotificationDraft[]>,
  shard?: number,
): Promise<string[]> {
  const targets = await loadActiveWebhooks(db, [announce.accountId]);
  if (!anySubscriber(targets, announce.accountId, announce.events)) {
    await db.batch(statements);
    return [];
  }
  const drafts = await build();
  const { statements: inserts, ids } = await notificationInserts(db, targets, drafts, announce.nowIso);
  await db.batch([...statements, ...inserts]);
  if (queue) await enqueueNotifications(queue, ids, undefined, shard);
  return ids;
}
