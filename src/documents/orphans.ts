import { and, asc, eq, lt, sql } from "drizzle-orm";
import type { Database } from "../db/client";
import { documentBlobs, documents, maintenanceCursors } from "../db/schema";
import { toIsoSeconds } from "../lib/clock";

/**
 * The cron's clean-up of document files nobody can reach (docs/documents.md §Orphan files, docs/architecture.md
 * §Cron), after {@link ORPHAN_GRACE_MS}:
 * - blobs reserved by `POST /rails/active_storage/direct_uploads` (uploaded or not) that never became a document:
 *   the row and its R2 object, oldest first, at most {@link ORPHAN_BLOBS_PER_RUN} a run;
 * - R2 objects that no blob or document row names (a delete whose R2 call failed, a rotation cut short): the bucket
 *   is walked {@link OBJECTS_LISTED_PER_RUN} keys a run from where the last run stopped (`maintenance_cursors`), so
 *   every object is looked at once per pass whatever the bucket's size.
 * A blob's `signed_id` therefore works for `POST /documents` for 24 hours after the reservation.
 */

/** How long a reserved blob or an unnamed object is left alone: 24 hours (a slow client, a rotation in flight). */
export const ORPHAN_GRACE_MS = 24 * 60 * 60 * 1000;
/** Most orphan blobs deleted by one run. */
export const ORPHAN_BLOBS_PER_RUN = 100;
/** Most R2 objects looked at by one run (one `list` call). */
export const OBJECTS_LISTED_PER_RUN = 500;

const CURSOR = "document_objects";

/** What one sweep did, for the maintenance report and tests. */
export interface OrphanSweepReport {
  /** Blob rows (and their objects) deleted. */
  blobsDeleted: number;
  /** Objects without a row deleted. */
  objectsDeleted: number;
}

/** What the sweep needs. */
export interface OrphanSweepDeps {
  /** The primary (src/db/shards.ts): the blobs of its accounts, and the cursor of the object listing. */
  db: Database;
  bucket: R2Bucket;
  /**
   * Every shard other than the primary (issue 29 §3): their orphan blobs are swept too, and an object is unnamed only
   * when no shard's blob or document names it (the bucket is shared by all shards). None: a single database.
   */
  otherShards?: Database[];
}

/**
 * Deletes the orphan blobs and unnamed objects older than {@link ORPHAN_GRACE_MS} (see the module comment). A blob row
 * is deleted only while no document names it (checked in the DELETE itself, so a `POST /documents` that wins the race
 * keeps its blob), and its object after the row.
 * @param nowMs the cron's clock, epoch milliseconds.
 * @param limits most blobs deleted and objects listed this run (the defaults above; tests pass smaller ones).
 * @throws Error when D1 or R2 fail; whatever was deleted before stays deleted, the rest waits for the next run.
 */
export async function sweepOrphanDocumentFiles(
  deps: OrphanSweepDeps,
  nowMs: number,
  limits: { blobs: number; objects: number } = { blobs: ORPHAN_BLOBS_PER_RUN, objects: OBJECTS_LISTED_PER_RUN },
): Promise<OrphanSweepReport> {
  let blobsDeleted = 0;
  for (const db of [deps.db, ...(deps.otherShards ?? [])]) {
    blobsDeleted += await sweepOrphanBlobs({ db, bucket: deps.bucket }, nowMs, limits.blobs);
  }
  const objectsDeleted = await sweepUnnamedObjects(deps, nowMs, limits.objects);
  return { blobsDeleted, objectsDeleted };
}

async function sweepOrphanBlobs({ db, bucket }: OrphanSweepDeps, nowMs: number, limit: number): Promise<number> {
  if (limit < 1) return 0;
  const cutoff = toIsoSeconds(nowMs - ORPHAN_GRACE_MS);
  // Written out qualified: inside a DELETE drizzle may render the outer column bare, which in the subquery would be
  // the document's own column.
  const noDocument = sql`NOT EXISTS (SELECT 1 FROM "documents" d WHERE d."blob_id" = "document_blobs"."id")`;
  const candidates = await db
    .select({ id: documentBlobs.id })
    .from(documentBlobs)
    .where(and(lt(documentBlobs.createdAt, cutoff), noDocument))
    .orderBy(asc(documentBlobs.createdAt), asc(documentBlobs.id))
    .limit(limit);
  if (candidates.length === 0) return 0;
  const ids = JSON.stringify(candidates.map((c) => c.id));
  const deleted = await db
    .delete(documentBlobs)
    .where(and(sql`${documentBlobs.id} IN (SELECT value FROM json_each(${ids}))`, noDocument))
    .returning({ storageKey: documentBlobs.storageKey });
  if (deleted.length > 0) await bucket.delete(deleted.map((d) => d.storageKey));
  return deleted.length;
}

async function sweepUnnamedObjects(
  { db, bucket, otherShards = [] }: OrphanSweepDeps,
  nowMs: number,
  limit: number,
): Promise<number> {
  if (limit < 1) return 0;
  const [state] = await db
    .select({ cursor: maintenanceCursors.cursor })
    .from(maintenanceCursors)
    .where(eq(maintenanceCursors.name, CURSOR))
    .limit(1);
  const after = state?.cursor ?? "";
  const listed = await bucket.list({
    limit,
    ...(after === "" ? {} : { startAfter: after }),
  });
  const old = listed.objects.filter((o) => o.uploaded.getTime() < nowMs - ORPHAN_GRACE_MS).map((o) => o.key);
  let unnamed: string[] = [];
  if (old.length > 0) {
    const keys = JSON.stringify(old);
    const inKeys = (column: typeof documentBlobs.storageKey | typeof documents.storageKey) =>
      sql`${column} IN (SELECT value FROM json_each(${keys}))`;
    // Named in any shard: one round trip per shard.
    const named = new Set<string>();
    for (const shard of [db, ...otherShards]) {
      const [blobKeys, documentKeys] = await shard.batch([
        shard.select({ key: documentBlobs.storageKey }).from(documentBlobs).where(inKeys(documentBlobs.storageKey)),
        shard.select({ key: documents.storageKey }).from(documents).where(inKeys(documents.storageKey)),
      ]);
      for (const r of [...blobKeys, ...documentKeys]) named.add(r.key);
    }
    unnamed = old.filter((k) => !named.has(k));
    if (unnamed.length > 0) await bucket.delete(unnamed);
  }
  const last = listed.objects.at(-1)?.key;
  const next = listed.truncated && last !== undefined ? last : "";
  await db
    .insert(maintenanceCursors)
    .values({ name: CURSOR, cursor: next, updatedAt: toIsoSeconds(nowMs) })
    .onConflictDoUpdate({ target: maintenanceCursors.name, set: { cursor: next, updatedAt: toIsoSeconds(nowMs) } });
  return unnamed.length;
}
