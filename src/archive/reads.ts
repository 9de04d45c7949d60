import { and, eq } from "drizzle-orm";
import type { Database } from "../db/client";
import {
  archivedRawEvents,
  archivedRows,
  archiveObjects,
  rawEvents,
  webhookDeliveries,
  webhookNotifications,
} from "../db/schema";
import { ApiError } from "../lib/errors";
import type { RawEventRow } from "../raw-events/serializer";
import type { WebhookNotificationLogRow, WebhookNotificationView } from "../webhook-notifications/rows";
import type { StoredRow } from "./codec";
import { rowFromStored } from "./codec";
import { deliveriesKeyOf, readArchiveObject } from "./objects";

/**
 * Transparent reads of archived rows (docs/SCALING.md §Retention and archive): the manifest query goes in the D1 batch
 * of the ordinary read (no extra round trip while nothing is archived), and the R2 objects it names are read only when
 * it names some. Every manifest query is scoped to the account, so another account's archived ids stay 404.
 */

/**
 * `readArchiveObject` for a request (only the lines containing `needle`: the container's or notification's id): an object missing from R2 or failing its checksum (or R2 failing) is logged and
 * answered 503 `archive_unavailable` with Retry-After, never a shorter list or a 500.
 * @throws ApiError 503
 */
async function readForRequest(bucket: R2Bucket, object: ArchivedObjectRef, needle: string): Promise<StoredRow[]> {
  try {
    return await readArchiveObject(bucket, object.key, object.sha256, needle);
  } catch (error) {
    console.error(`archive read failed: ${error instanceof Error ? error.message : String(error)}`);
    throw new ApiError(
      503,
      [
        {
          code: "archive_unavailable",
          detail: "Archived rows of this resource cannot be read right now; try again later.",
        },
      ],
      { "Retry-After": "60" },
    );
  }
}

/** A manifest entry a read needs: the object's key and SHA-256. */
export interface ArchivedObjectRef {
  key: string;
  sha256: string;
}

/** The archived objects holding raw events of the account's container (distinct, oldest first). */
export function archivedRawEventObjectsQuery(db: Database, accountId: string, containerId: string) {
  const o = archiveObjects;
  return db
    .selectDistinct({ key: o.key, sha256: o.sha256, id: o.id })
    .from(archivedRawEvents)
    .innerJoin(o, eq(o.id, archivedRawEvents.objectId))
    .where(and(eq(archivedRawEvents.containerId, containerId), eq(o.accountId, accountId), eq(o.kind, "raw_events")))
    .orderBy(o.id);
}

/**
 * The container's rows from its archived objects, merged with the rows D1 still has: a row in both (a run stopped
 * between its R2 write and its delete, or a row written again) is served from D1; the result is in the order of
 * `listContainerRawEvents` (`index`, then id).
 * @throws ApiError 503 `archive_unavailable` when an object is missing from R2 or fails its checksum.
 */
export async function withArchivedRawEvents(
  bucket: R2Bucket,
  objects: readonly ArchivedObjectRef[],
  containerId: string,
  live: RawEventRow[],
): Promise<RawEventRow[]> {
  if (objects.length === 0) return live;
  const seen = new Set(live.map((r) => r.id));
  const merged = [...live];
  const parts = await Promise.all(objects.map((o) => readForRequest(bucket, o, containerId)));
  for (const stored of parts.flat()) {
    if (stored.container_id !== containerId) continue;
    const row = rowFromStored(rawEvents, stored);
    if (seen.has(row.id)) continue;
    seen.add(row.id);
    merged.push(row);
  }
  merged.sort((a, b) => a.index - b.index || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return merged;
}

/** The manifest entry of an archived notification of the account (and of its attempts object, when there is one). */
export function archivedNotificationQuery(db: Database, accountId: string, id: string) {
  const o = archiveObjects;
  return db
    .select({ key: o.key, sha256: o.sha256 })
    .from(archivedRows)
    .innerJoin(o, eq(o.id, archivedRows.objectId))
    .where(and(eq(archivedRows.id, id), eq(o.accountId, accountId), eq(o.kind, "webhook_notifications")))
    .limit(1);
}

/**
 * An archived notification with its attempt log (oldest first: `seq`, attempt, time, as `getWebhookNotification`),
 * read from R2; null when the object does not hold it.
 * @throws ApiError 503 `archive_unavailable` when an object is missing from R2 or fails its checksum.
 */
export async function readArchivedNotification(
  db: Database,
  bucket: R2Bucket,
  object: ArchivedObjectRef,
  id: string,
): Promise<WebhookNotificationView | null> {
  const stored = (await readForRequest(bucket, object, id)).find((r) => r.id === id);
  if (!stored) return null;
  const row = rowFromStored(webhookNotifications, stored);
  const [attemptsObject] = await db
    .select({ key: archiveObjects.key, sha256: archiveObjects.sha256 })
    .from(archiveObjects)
    .where(and(eq(archiveObjects.key, deliveriesKeyOf(object.key)), eq(archiveObjects.accountId, row.accountId)))
    .limit(1);
  const logs: WebhookNotificationLogRow[] = attemptsObject
    ? (await readForRequest(bucket, attemptsObject, id))
        .filter((a) => a.notification_id === id)
        .map((a) => rowFromStored(webhookDeliveries, a))
    : [];
  logs.sort(
    (a, b) =>
      a.seq - b.seq || a.attempt - b.attempt || (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0),
  );
  return { ...row, logs };
}
