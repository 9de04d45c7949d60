import { type Clock, toIsoSeconds } from "../lib/clock";
import { ARCHIVE_KEY_PREFIX } from "./objects";

/**
 * The cron's clean-up of archive objects no manifest names (docs/SCALING.md §Retention and archive). A run that stops
 * after its R2 put and before its manifest batch (src/archive/job.ts, step 1 of 3) leaves an object that is never
 * read: its rows stay in D1 and the next run archives them into a new part. This sweep deletes such objects:
 * - the bucket's `archive/` keys are walked {@link ARCHIVE_OBJECTS_LISTED_PER_RUN} a run (one R2 `list`) from where
 *   the last run stopped (R2's list cursor, kept in the primary's `maintenance_cursors` as
 *   {@link ARCHIVE_OBJECTS_CURSOR}), so every object is looked at once per pass whatever the bucket's size;
 * - an object is an orphan only when it is older than {@link ARCHIVE_ORPHAN_GRACE_MS} and NO shard's
 *   `archive_objects` names it (the bucket is shared by every shard; one indexed query per shard, by key);
 * - a shard whose query fails fails the run before anything is deleted.
 * The documents bucket has the same sweep (src/documents/orphans.ts).
 */

/**
 * How long an object no manifest names is left alone: 24 hours. Only the cron runs `runArchive`, which records an
 * object seconds after its put, in the same invocation; a Cron Trigger invocation lasts at most 15 minutes of wall
 * time ("Scheduled Workers have a maximum wall time of 15 minutes per invocation",
 * https://developers.cloudflare.com/workers/platform/limits/#duration), so an object still unrecorded after that never
 * will be, and a run in flight is never robbed of its object. A day instead of 15 minutes is margin (clock skew
 * between R2's `uploaded` and the Worker, a limit raised later) bought for little: a crashed run's object, a few KB,
 * stays a day longer.
 */
export const ARCHIVE_ORPHAN_GRACE_MS = 24 * 60 * 60 * 1000;

/** Most archive objects looked at by one run (one R2 `list` call, class A; one D1 query per shard). */
export const ARCHIVE_OBJECTS_LISTED_PER_RUN = 500;

/** The `maintenance_cursors` row (primary) of the listing: R2's cursor, "" to start the next pass from the start. */
export const ARCHIVE_OBJECTS_CURSOR = "archive_objects";

/** What the sweep needs. */
export interface ArchiveOrphanSweepDeps {
  /** The primary (src/db/shards.ts): holds the listing's cursor. */
  primary: D1Database;
  /** Every shard whose manifest may name an object (`sweptShards`: the primary and each shard holding accounts). */
  shards: readonly D1Database[];
  bucket: R2Bucket;
  clock: Clock;
  /** Objects listed this run (default {@link ARCHIVE_OBJECTS_LISTED_PER_RUN}; R2 lists at most 1 000). */
  limit?: number;
}

/** What one run did. */
export interface ArchiveOrphanSweepReport {
  /** Objects looked at. */
  listed: number;
  /** Objects deleted: older than the grace and named by no shard's manifest. */
  deleted: number;
  /** Whether the listing reached the bucket's last key (the next run starts a new pass). */
  passEnded: boolean;
}

/**
 * One slice of the sweep (see the module comment): lists up to `limit` archive objects after the stored cursor,
 * deletes those older than {@link ARCHIVE_ORPHAN_GRACE_MS} that no shard's `archive_objects` names, and stores where
 * the listing stopped.
 * @throws Error when R2 or a shard's D1 fails: nothing is deleted unless every shard answered, and the cursor stays, so
 *   the next run looks at the same objects again.
 */
export async function sweepOrphanArchiveObjects(deps: ArchiveOrphanSweepDeps): Promise<ArchiveOrphanSweepReport> {
  const nowMs = deps.clock.now();
  const state = await deps.primary
    .prepare("SELECT cursor FROM maintenance_cursors WHERE name = ?1")
    .bind(ARCHIVE_OBJECTS_CURSOR)
    .first<{ cursor: string }>();
  const cursor = state?.cursor ?? "";
  const listed = await deps.bucket.list({
    prefix: ARCHIVE_KEY_PREFIX,
    limit: deps.limit ?? ARCHIVE_OBJECTS_LISTED_PER_RUN,
    ...(cursor === "" ? {} : { cursor }),
  });
  const old = listed.objects.filter((o) => o.uploaded.getTime() < nowMs - ARCHIVE_ORPHAN_GRACE_MS).map((o) => o.key);
  let orphans: string[] = [];
  if (old.length > 0) {
    const keys = JSON.stringify(old);
    // By `archive_objects_key_unique`; every shard at once, and all must answer before anything is deleted.
    const answers = await Promise.all(
      deps.shards.map((d1) =>
        d1
          .prepare("SELECT key FROM archive_objects WHERE key IN (SELECT value FROM json_each(?1))")
          .bind(keys)
          .all<{ key: string }>(),
      ),
    );
    const named = new Set(answers.flatMap((a) => a.results.map((r) => r.key)));
    orphans = old.filter((k) => !named.has(k));
    if (orphans.length > 0) {
      await deps.bucket.delete(orphans);
      console.log(`archive: deleted ${orphans.length} objects no manifest names (a run stopped after its R2 write)`);
    }
  }
  const next = listed.truncated ? listed.cursor : "";
  const now = toIsoSeconds(nowMs);
  await deps.primary
    .prepare(
      `INSERT INTO maintenance_cursors (name, cursor, updated_at) VALUES (?1, ?2, ?3)
       ON CONFLICT (name) DO UPDATE SET cursor = excluded.cursor, updated_at = excluded.updated_at`,
    )
    .bind(ARCHIVE_OBJECTS_CURSOR, next, now)
    .run();
  return { listed: listed.objects.length, deleted: orphans.length, passEnded: !listed.truncated };
}
