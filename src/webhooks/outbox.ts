import { and, eq, getTableColumns, inArray, type Placeholder, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import { LRUCache } from "lru-cache";
import type { Database } from "../db/client";
import { insertChunks } from "../db/insert-chunks";
import { idList, MAX_SHAPED_IDS, type ShapedRead, shaped } from "../db/query-shapes";
import { readMany } from "../db/read-batch";
import { archivedRows, webhookNotifications, webhooks } from "../db/schema";
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
 * message, a Tracker that restarted between its D1 write and its own bookkeeping) writes each notification once: while
 * its row is in D1 (ON CONFLICT DO NOTHING), and after the retention job moved it to R2 (the INSERT skips ids the
 * manifest's `archived_rows` holds, `insertUnlessArchived`).
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
export function activeWebhooksQuery(db: Database, accountIds: readonly (string | Placeholder)[]) {
  return db
    .select({ id: webhooks.id, accountId: webhooks.accountId, events: webhooks.events })
    .from(webhooks)
    .where(and(inArray(webhooks.accountId, [...new Set(accountIds)]), eq(webhooks.active, true)));
}

/** The active webhooks of some accounts (one indexed query; none when `accountIds` is empty). */
export async function loadActiveWebhooks(db: Database, accountIds: readonly string[]): Promise<WebhookTarget[]> {
  if (accountIds.length === 0) return [];
  const unique = [...new Set(accountIds)];
  if (unique.length > MAX_SHAPED_IDS) return activeWebhooksQuery(db, unique);
  // A query shape per number of accounts (src/db/query-shapes.ts): every tracking request's lookup asks it.
  const list = idList("account", unique);
  const [rows] = await readMany(db, [
    shaped(db, `webhooks.active:${list.key}`, () => [activeWebhooksQuery(db, list.placeholders)], list.values),
  ]);
  return rows as WebhookTarget[];
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

/** A notification row as the outbox writes it: every column given. */
type NotificationRow = typeof webhookNotifications.$inferSelect;

/** The columns of `webhook_notifications` in table order, the order `INSERT … SELECT` fills them in. */
const NOTIFICATION_COLUMNS = Object.entries(getTableColumns(webhookNotifications)) as [
  keyof NotificationRow,
  SQLiteColumn,
][];

/**
 * One multi-row INSERT of `rows` (bound as many parameters as `.values(rows)` would) that skips, in the same
 * statement, every id the retention manifest records as archived (`archived_rows`, src/archive/job.ts): a finished
 * notification archived to R2 has no D1 row any more, so a replay of the change that made it would otherwise insert it
 * again as `pending` and deliver it a second time. The check costs one probe of `archived_rows`' primary key per row,
 * in the statement of the change's batch (no extra round trip); test/archive/archive.test.ts checks the plan. A row
 * still in D1 is left as it is (ON CONFLICT DO NOTHING), its delivery state included.
 */
function insertUnlessArchived(db: Database, rows: readonly NotificationRow[]) {
  const names = sql.join(
    NOTIFICATION_COLUMNS.map(([, column]) => sql.identifier(column.name)),
    sql`, `,
  );
  const values = sql.join(
    rows.map(
      (row) =>
        sql`(${sql.join(
          NOTIFICATION_COLUMNS.map(([key, column]) => sql.param(row[key], column)),
          sql`, `,
        )})`,
    ),
    sql`, `,
  );
  // `WHERE` also keeps SQLite from reading `ON CONFLICT` as a join constraint of the SELECT.
  return db
    .insert(webhookNotifications)
    .select(
      sql`WITH v (${names}) AS (VALUES ${values})
        SELECT * FROM v WHERE NOT EXISTS (SELECT 1 FROM ${archivedRows} WHERE ${archivedRows.id} = v.id)`,
    )
    .onConflictDoNothing();
}

/**
 * The INSERT statements of the notifications `drafts` produce for `targets` (to add to the batch of the change: one
 * multi-row INSERT per chunk of rows under D1's 100 bound parameters, src/db/insert-chunks.ts), and their ids (to
 * enqueue once the batch committed). A draft gets one notification per active webhook of its account that subscribes
 * to its event; none when no webhook does. A notification already written is left as it is (ON CONFLICT DO NOTHING,
 * its delivery state included), and one already archived is not written again (`insertUnlessArchived`).
 * @param nowIso when the rows are written (UTC ISO seconds): `updated_at`, and `next_attempt_at` (due at once).
 */
export async function notificationInserts(
  db: Database,
  targets: readonly WebhookTarget[],
  drafts: readonly NotificationDraft[],
  nowIso: string,
): Promise<{ statements: BatchItem<"sqlite">[]; ids: string[] }> {
  const rows: NotificationRow[] = [];
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
    insertUnlessArchived(db, run.rows),
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
 * Accounts whose guard tripped lately (a webhook subscribes to what they announce): their next announcements read the
 * webhooks first instead of trying the guarded batch. Only picks the path; either path writes the same rows.
 */
const subscribersSeen = new LRUCache<string, true>({ max: 10_000, ttl: 60_000 });

/** What the guard raises: SQLite has no RAISE outside triggers, but `json()` of text that is not JSON fails. */
const GUARD_TRIPPED = /malformed JSON/i;

/**
 * The guard of {@link batchWithNotificationsOfAccounts}' one-round-trip path: a SELECT that fails (`json()` of a
 * non-JSON text, built from the row so that SQLite cannot evaluate it ahead) as soon as an active webhook of one of
 * `accountIds` subscribes to one of `events`, and otherwise returns no row. In a D1 batch (one transaction) its failure
 * rolls back every statement of the batch. A query shape per number of events and of accounts.
 */
function noSubscriberGuard(db: Database, accountIds: readonly string[], events: readonly string[]): ShapedRead {
  const list = idList("event", events);
  const accounts = idList("account", accountIds);
  return shaped(
    db,
    `webhooks.no_subscriber_guard:${list.key}:${accounts.key}`,
    () => [
      db
        .select({ tripped: sql<string>`json('webhook subscribes: ' || ${webhooks.id})` })
        .from(webhooks)
        .where(
          and(
            accounts.placeholders.length === 1
              ? eq(webhooks.accountId, accounts.placeholders[0] as Placeholder)
              : inArray(webhooks.accountId, accounts.placeholders),
            eq(webhooks.active, true),
            sql`EXISTS (SELECT 1 FROM json_each(${webhooks.events}) WHERE value IN (${sql.join(list.placeholders, sql`, `)}))`,
          ),
        )
        .limit(1),
    ],
    { ...list.values, ...accounts.values },
  );
}

/** Whether a D1 error (or one it wraps as `cause`) is the guard's: a subscriber exists. */
function isGuardTripped(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (GUARD_TRIPPED.test(String((e as { message?: unknown }).message ?? e))) return true;
  }
  return false;
}

/**
 * Runs `statements` in one D1 batch together with the notifications they announce, then enqueues those
 * (docs/decisions.md §Webhooks; used for the `tracking_request.*` events): {@link batchWithNotificationsOfAccounts}
 * for the change of one account. With no subscriber that is one round trip; with one, two (the webhooks, then the
 * change and its notifications); `build` is called only when a webhook of the account subscribes to `events`.
 * @returns the ids of the notifications written.
 */
export async function batchWithNotifications(
  db: Database,
  queue: Queue<WebhookDeliveryMessage> | undefined,
  statements: [BatchItem<"sqlite"> | ShapedRead, ...(BatchItem<"sqlite"> | ShapedRead)[]],
  announce: { accountId: string; events: readonly string[]; nowIso: string },
  build: () => Promise<NotificationDraft[]>,
  shard?: number,
): Promise<string[]> {
  return batchWithNotificationsOfAccounts(
    db,
    queue,
    statements,
    { accountIds: [announce.accountId], events: announce.events, nowIso: announce.nowIso },
    build,
    shard,
  );
}

/**
 * Runs `statements` (the changes of one or more accounts of one shard) in one D1 batch together with the notifications
 * they announce, then enqueues those (docs/decisions.md §Webhooks). Unless one of the accounts was seen with a
 * subscriber lately, the batch first goes with a guard that fails it when an active webhook of any of `accountIds`
 * subscribes to `events`: with none (most accounts) that one round trip is all. Otherwise (or when the guard trips)
 * reads the accounts' active webhooks (one query); only when one subscribes to `events` is `build` called, with the
 * accounts that have such a webhook (it may read what the bodies include). A draft becomes one notification per
 * subscribed webhook of its own account (`notificationInserts`); ids derive from the webhook and the draft's
 * `dedupKey`, so a replay writes nothing twice.
 * @param queue the `webhook-deliveries` producer; without one the rows wait for the cron sweep.
 * @param statements the changes (at least one statement).
 * @param announce the accounts the changes belong to (distinct or not), the events announced, the time written.
 * @param shard the number of the shard `db` is (src/db/shards.ts), carried in the queue messages; omitted, the
 *   consumer looks for the notifications in each shard.
 * @returns the ids of the notifications written.
 * @throws whatever D1 throws for the batch (then nothing of it is written).
 */
export async function batchWithNotificationsOfAccounts(
  db: Database,
  queue: Queue<WebhookDeliveryMessage> | undefined,
  statements: [BatchItem<"sqlite"> | ShapedRead, ...(BatchItem<"sqlite"> | ShapedRead)[]],
  announce: { accountIds: readonly string[]; events: readonly string[]; nowIso: string },
  build: (subscribed: ReadonlySet<string>) => Promise<NotificationDraft[]>,
  shard?: number,
): Promise<string[]> {
  const accountIds = [...new Set(announce.accountIds)];
  // The guard is a query shape per number of accounts: a change of more accounts than shaped reads the webhooks first.
  if (accountIds.length <= MAX_SHAPED_IDS && !accountIds.some((id) => subscribersSeen.get(id))) {
    // Most accounts have no webhook for these events: then the change is the whole batch, and a guard in the same
    // batch (one round trip, atomic) checks that no subscriber exists when it commits. A subscriber trips the guard,
    // which rolls the batch back; the change is then written with its notifications below.
    try {
      await readMany(db, [noSubscriberGuard(db, accountIds, announce.events), ...statements]);
      return [];
    } catch (err) {
      if (!isGuardTripped(err)) throw err;
    }
  }
  const targets = await loadActiveWebhooks(db, accountIds);
  const subscribed = new Set(accountIds.filter((id) => anySubscriber(targets, id, announce.events)));
  for (const id of subscribed) subscribersSeen.set(id, true);
  if (subscribed.size === 0) {
    await readMany(db, statements);
    return [];
  }
  const drafts = await build(subscribed);
  const { statements: inserts, ids } = await notificationInserts(db, targets, drafts, announce.nowIso);
  await readMany(db, [...statements, ...inserts]);
  if (queue) await enqueueNotifications(queue, ids, undefined, shard);
  return ids;
}
