import { and, asc, eq, getTableColumns, inArray, ne, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { archivedNotificationQuery, readArchivedNotification } from "../archive/reads";
import type { Database } from "../db/client";
import {
  containerUpdatedEvents,
  estimatedEvents,
  trackingRequests,
  transportEvents,
  webhookDeliveries,
  webhookNotifications,
  webhooks,
} from "../db/schema";
import { type Clock, toIsoSeconds } from "../lib/clock";
import { ApiError } from "../lib/errors";
import type { LoadContext } from "../lib/jsonapi/include";
import type { PageRequest } from "../lib/jsonapi/pagination";
import type { ResourceObject } from "../lib/jsonapi/types";
import { listPage } from "../lib/list-query";
import { ownedBy } from "../lib/tenant";
import { serializeTrackingRequest } from "../tracking-requests/serializer";
import { serializeTransportEvent } from "../transport-events/serializer";
import { isWebhookEvent } from "../webhooks/catalog";
import { examplePayload } from "../webhooks/examples";
import { enqueueNotifications, type WebhookDeliveryMessage } from "../webhooks/outbox";
import {
  serializeContainerUpdatedEvent,
  serializeEstimatedEvent,
  type WebhookPayloadDocument,
} from "../webhooks/payloads";
import type { WebhookNotificationLogRow, WebhookNotificationRow, WebhookNotificationView } from "./rows";
import type { NotificationFilters } from "./schemas";

/** Notification ids per attempt-log query: D1 binds at most 100 parameters per statement (the account is one). */
const LOG_IDS_PER_STATEMENT = 80;

/** The attempt rows of some notifications of the account, oldest first (by `seq`, then attempt and time). */
function attemptLogQuery(db: Database, accountId: string, notificationIds: readonly string[]) {
  const d = webhookDeliveries;
  const n = webhookNotifications;
  return db
    .select(getTableColumns(d))
    .from(d)
    .innerJoin(n, eq(n.id, d.notificationId))
    .where(and(inArray(d.notificationId, [...notificationIds]), ownedBy(n.accountId, accountId)))
    .orderBy(asc(d.notificationId), asc(d.seq), asc(d.attempt), asc(d.createdAt));
}

/**
 * The delivery attempts (`webhook_deliveries`) of some notifications, oldest first, by notification id; only
 * notifications of `ctx.accountId` are read (the join checks the owner), and all of them in one D1 round trip.
 */
export async function loadAttemptLogs(
  ctx: LoadContext,
  notificationIds: readonly string[],
): Promise<Map<string, WebhookNotificationLogRow[]>> {
  const ids = [...new Set(notificationIds)];
  const out = new Map<string, WebhookNotificationLogRow[]>();
  if (ids.length === 0) return out;
  const queries: BatchItem<"sqlite">[] = [];
  for (let i = 0; i < ids.length; i += LOG_IDS_PER_STATEMENT) {
    queries.push(attemptLogQuery(ctx.db, ctx.accountId, ids.slice(i, i + LOG_IDS_PER_STATEMENT)));
  }
  const [first, ...rest] = queries;
  const results = (
    first && rest.length === 0 ? [await first] : await ctx.db.batch(queries as [BatchItem<"sqlite">])
  ) as WebhookNotificationLogRow[][];
  for (const rows of results) {
    for (const row of rows) {
      const list = out.get(row.notificationId);
      if (list) list.push(row);
      else out.set(row.notificationId, [row]);
    }
  }
  return out;
}

/**
 * One notification of the account with its attempt log (`logs`, oldest first), read in one D1 round trip. With
 * `archive` (ARCHIVE_BUCKET), a notification the retention job moved to R2 is read back from there with its attempts
 * (docs/SCALING.md §Retention and archive): the manifest query shares the round trip; D1's row wins when both exist.
 * @throws ApiError 404 when absent (in D1 and in the account's archive) or another account's.
 */
export async function getWebhookNotification(
  db: Database,
  accountId: string,
  id: string,
  archive?: R2Bucket,
): Promise<WebhookNotificationView> {
  const [rows, logs, archived] = await db.batch([
    db
      .select()
      .from(webhookNotifications)
      .where(and(ownedBy(webhookNotifications.accountId, accountId), eq(webhookNotifications.id, id)))
      .limit(1),
    attemptLogQuery(db, accountId, [id]),
    archivedNotificationQuery(db, accountId, id),
  ]);
  const [row] = rows;
  if (row) return { ...row, logs };
  const [object] = archived;
  const fromArchive = archive && object ? await readArchivedNotification(db, archive, object, id) : null;
  if (!fromArchive) throw ApiError.notFound("Couldn't find WebhookNotification");
  return fromArchive;
}

/** What `resendWebhookNotification` needs. */
export interface ResendDeps {
  db: Database;
  clock: Clock;
  /** The `webhook-deliveries` producer. */
  queue: Queue<WebhookDeliveryMessage>;
}

/**
 * `POST /webhook_notifications/{id}/resend` (issue 11 §5; the reference has no replay,
 * docs/webhooks.md §Acknowledgement and retries): puts a `succeeded` or `failed` notification back on the queue as a
 * new delivery round — `pending`, attempts from 0 (the whole retry schedule again), due now — with the same id
 * (`data.id`, `webhook-id`) and the same stored body. The earlier attempts stay in its log. One conditional UPDATE
 * decides (not pending, webhook active), so two concurrent resends queue it once. The message is sent after the update
 * commits; if that send fails, the cron sweep re-queues the notification (its `next_attempt_at` has passed), as for any
 * outbox row.
 * @returns the notification as it is now (logs not read).
 * @throws ApiError 404 when absent or another account's (a deleted webhook's notifications are deleted with it);
 *   409 `already_pending` while it is still being delivered; 409 `webhook_inactive` when its webhook is inactive
 *   (re-activate it with `PATCH /webhooks/{id}` `active: true` first); 409 `archived` when the retention job moved
 *   it to R2 (it can be read, not resent).
 */
export async function resendWebhookNotification(
  deps: ResendDeps,
  accountId: string,
  id: string,
): Promise<WebhookNotificationRow> {
  const n = webhookNotifications;
  const nowIso = toIsoSeconds(deps.clock.now());
  const [row] = await deps.db
    .update(n)
    .set({ deliveryStatus: "pending", attempts: 0, nextAttemptAt: nowIso, updatedAt: nowIso })
    .where(
      and(
        ownedBy(n.accountId, accountId),
        eq(n.id, id),
        ne(n.deliveryStatus, "pending"),
        // Qualified by hand: the outer row's column inside the subquery.
        sql`EXISTS (SELECT 1 FROM webhooks w WHERE w.id = "webhook_notifications"."webhook_id" AND w.active = 1)`,
      ),
    )
    .returning();
  if (!row) {
    const [existing] = await deps.db
      .select({ status: n.deliveryStatus, active: webhooks.active })
      .from(n)
      .leftJoin(webhooks, eq(webhooks.id, n.webhookId))
      .where(and(ownedBy(n.accountId, accountId), eq(n.id, id)))
      .limit(1);
    if (!existing) {
      const [archived] = await archivedNotificationQuery(deps.db, accountId, id);
      if (archived) {
        throw new ApiError(409, [
          {
            detail:
              "The notification is archived (older than the retention age, docs/SCALING.md §Retention and archive): it can be read but not resent.",
            code: "archived",
          },
        ]);
      }
      throw ApiError.notFound("Couldn't find WebhookNotification");
    }
    if (existing.status === "pending") {
      throw new ApiError(409, [
        {
          detail:
            "The notification is still being delivered (delivery_status pending); it can be resent once it has succeeded or failed.",
          code: "already_pending",
        },
      ]);
    }
    if (!existing.active) {
      throw new ApiError(409, [
        {
          detail:
            "The notification's webhook is inactive; re-activate it (PATCH /webhooks/{id} with active: true) to resend.",
          code: "webhook_inactive",
        },
      ]);
    }
    throw new ApiError(409, [{ detail: "The notification changed meanwhile; try again.", code: "conflict" }]);
  }
  await enqueueNotifications(deps.queue, [row.id]);
  return row;
}

/**
 * A page of the account's notifications, newest first, with the filters `filter[event]` (a catalog event),
 * `filter[delivery_status]` (`pending`, `succeeded`, `failed`) and `filter[webhook_id]` (issue 4; the reference
 * documents none). Another account's webhook id simply matches nothing. Without filters the total is the account's
 * count in `account_resource_counts`, kept exact by triggers (migrations/0002_webhook_notification_counts.sql);
 * with filters, a COUNT over the account's index range. Each row comes with its attempt log (`logs`, oldest first),
 * read in the page's own D1 batch (a companion query keyed on the page's ids, which are the account's), so the page,
 * its total and its logs cost one round trip. `parseNotificationFilters` checks the filters.
 */
export async function listWebhookNotifications(
  db: Database,
  accountId: string,
  filters: NotificationFilters,
  page: PageRequest,
): Promise<{ rows: WebhookNotificationView[]; total: number }> {
  const { "filter[event]": event, "filter[delivery_status]": status, "filter[webhook_id]": webhookId } = filters;
  const t = webhookNotifications;
  const d = webhookDeliveries;
  const result = await listPage(
    db,
    t,
    "webhook_notification",
    accountId,
    [
      event !== undefined ? eq(t.event, event) : undefined,
      status !== undefined ? eq(t.deliveryStatus, status) : undefined,
      webhookId !== undefined ? eq(t.webhookId, webhookId) : undefined,
    ],
    page,
    {
      key: "attempt-logs",
      build: (pageIds) => [
        db
          .select(getTableColumns(d))
          .from(d)
          .where(inArray(d.notificationId, pageIds))
          .orderBy(asc(d.notificationId), asc(d.seq), asc(d.attempt), asc(d.createdAt)),
      ],
    },
  );
  const logs = new Map<string, WebhookNotificationLogRow[]>();
  for (const row of (result.companions[0] ?? []) as WebhookNotificationLogRow[]) {
    const list = logs.get(row.notificationId);
    if (list) list.push(row);
    else logs.set(row.notificationId, [row]);
  }
  return { rows: result.rows.map((row) => ({ ...row, logs: logs.get(row.id) ?? [] })), total: result.total };
}

/**
 * The reference object as it was delivered: the resource of the row's reference type and id in the stored payload's
 * `included` (docs/webhooks.md §Webhook endpoints: a notification shows what its delivery carried), or null when the
 * payload does not carry it (the minimal bodies of `available`, `not_available`, `delivered`) or cannot be read.
 */
export function referenceObjectFromPayload(row: WebhookNotificationRow): ResourceObject | null {
  if (!row.referenceObjectType || !row.referenceObjectId) return null;
  let payload: unknown;
  try {
    payload = JSON.parse(row.payload);
  } catch {
    return null;
  }
  const included = (payload as { included?: unknown } | null)?.included;
  if (!Array.isArray(included)) return null;
  const match = included.find(
    (r): r is ResourceObject =>
      typeof r === "object" &&
      r !== null &&
      (r as ResourceObject).type === row.referenceObjectType &&
      (r as ResourceObject).id === row.referenceObjectId,
  );
  return match ?? null;
}

/**
 * Loader of `include=reference_object`: for each notification, its reference object as delivered
 * (`referenceObjectFromPayload`); when the payload does not carry it, the live row of the types that have a table
 * (`tracking_request`, `transport_event`, `container_updated_event`, `estimated_event`), read in one query per type
 * and scoped to the account. `container_created_event` and `container_pod_terminal_changed_event` exist only in
 * payloads.
 */
export async function loadReferenceObjects(
  ctx: LoadContext,
  parents: WebhookNotificationRow[],
): Promise<ResourceObject[]> {
  const out: ResourceObject[] = [];
  const missing = new Map<string, Set<string>>();
  for (const row of parents) {
    if (!row.referenceObjectType || !row.referenceObjectId) continue;
    const delivered = referenceObjectFromPayload(row);
    if (delivered) {
      out.push(delivered);
      continue;
    }
    let ids = missing.get(row.referenceObjectType);
    if (!ids) {
      ids = new Set();
      missing.set(row.referenceObjectType, ids);
    }
    ids.add(row.referenceObjectId);
  }
  const ids = (type: string) => [...(missing.get(type) ?? [])];
  const { db, accountId } = ctx;
  const reads: Promise<ResourceObject[]>[] = [];
  if (ids("tracking_request").length > 0) {
    reads.push(
      db
        .select()
        .from(trackingRequests)
        .where(
          and(ownedBy(trackingRequests.accountId, accountId), inArray(trackingRequests.id, ids("tracking_request"))),
        )
        .then((rows) => rows.map(serializeTrackingRequest)),
    );
  }
  if (ids("transport_event").length > 0) {
    reads.push(
      db
        .select()
        .from(transportEvents)
        .where(and(ownedBy(transportEvents.accountId, accountId), inArray(transportEvents.id, ids("transport_event"))))
        .then((rows) => rows.map(serializeTransportEvent)),
    );
  }
  if (ids("container_updated_event").length > 0) {
    reads.push(
      db
        .select()
        .from(containerUpdatedEvents)
        .where(
          and(
            ownedBy(containerUpdatedEvents.accountId, accountId),
            inArray(containerUpdatedEvents.id, ids("container_updated_event")),
          ),
        )
        .then((rows) => rows.map(serializeContainerUpdatedEvent)),
    );
  }
  if (ids("estimated_event").length > 0) {
    reads.push(
      db
        .select()
        .from(estimatedEvents)
        .where(and(ownedBy(estimatedEvents.accountId, accountId), inArray(estimatedEvents.id, ids("estimated_event"))))
        .then((rows) => rows.map((r) => serializeEstimatedEvent(r, null))),
    );
  }
  for (const rows of await Promise.all(reads)) out.push(...rows);
  return out;
}

/**
 * `GET /webhook_notifications/examples?event=` (docs/webhooks.md §Webhook endpoints): the example body of `event`
 * (`examplePayload`, the same document `POST /webhooks/trigger` sends) with `links.self` echoing the request, as the
 * reference's examples show.
 * @throws ApiError 400 with `source.parameter: "event"` when the event is missing or not in the catalog.
 */
export function exampleNotificationDocument(
  event: string | null,
  selfUrl: string,
): WebhookPayloadDocument & { links: { self: string } } {
  if (event === null || event.trim() === "") {
    throw ApiError.badParameter("event", "event is required: one of the events GET /webhooks/events lists.");
  }
  if (!isWebhookEvent(event)) {
    throw ApiError.badParameter(
      "event",
      `'${event.slice(0, 100)}' is not a webhook event (GET /webhooks/events lists them).`,
    );
  }
  return { ...examplePayload(event), links: { self: selfUrl } };
}
