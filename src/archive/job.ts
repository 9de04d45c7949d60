import { type Clock, toIsoSeconds } from "../lib/clock";
import type { StoredRow } from "./codec";
import type { ArchiveConfig } from "./config";
import {
  type ArchiveKind,
  archiveObjectKey,
  deliveriesKeyOf,
  newPartName,
  putVerified,
  type WrittenObject,
} from "./objects";

/**
 * The retention job (issue 29 §2, docs/SCALING.md §Retention and archive) over ONE database: the cron runs it for every
 * shard (`runArchiveCron`, src/archive/cron.ts). Order, so nothing is lost:
 * 1. write the R2 object and verify it (`putVerified`);
 * 2. record it in the manifest (`archive_objects`, and `archived_rows` for each row) in one D1 batch (a transaction);
 * 3. only then delete its rows from D1 and mark the object purged, in one D1 batch.
 * A crash after 1 leaves an unrecorded object (never read; the rows are archived again by the next run; the cron's
 * `sweepOrphanArchiveObjects`, src/archive/orphans.ts, deletes it after a day); after 2 both
 * copies, which reads dedupe (the D1 row wins) and the next run's step 0 (`finishPurges`) deletes.
 */

/** Test seams: called between the steps, so a test can stop a run there ("crash"). */
export interface ArchiveHooks {
  /** After an object is written and verified in R2, before the manifest records it. */
  afterPut?(key: string): Promise<void> | void;
  /** After the manifest records an object, before its rows are deleted from D1. */
  afterManifest?(key: string): Promise<void> | void;
}

/** What `runArchive` needs: one shard's D1 binding, the archive bucket, a clock and the settings. */
export interface ArchiveDeps {
  d1: D1Database;
  bucket: R2Bucket;
  clock: Clock;
  config: ArchiveConfig;
  hooks?: ArchiveHooks;
}

/** What one run did (counts of rows and objects). */
export interface ArchiveRunResult {
  rawEvents: number;
  notifications: number;
  attempts: number;
  /** Objects written and recorded this run. */
  objects: number;
  /** Objects whose D1 rows were deleted this run (this run's and those a stopped run left). */
  purged: number;
}

/**
 * Most notifications per object: a point read of an archived notification fetches and inflates its whole object
 * (about 6 KB of JSON per notification), so notifications objects stay small (bench/archive: 400 per object read
 * 2.7× slower than D1). Raw events (about 0.6 KB) go up to `rowsPerRun` per object.
 */
export const NOTIFICATIONS_PER_OBJECT = 100;

/** Unpurged objects one run finishes at most (each is at most `rowsPerRun` rows). */
const PURGES_PER_RUN = 20;

/** `YYYY-MM` of an ISO time. */
function monthOf(iso: unknown): string {
  return typeof iso === "string" && /^\d{4}-\d{2}/.test(iso) ? iso.slice(0, 7) : "0000-00";
}

/** Rows grouped by account and month of `created_at`, in first-seen order. */
function byAccountMonth(rows: StoredRow[]): Map<string, { accountId: string; month: string; rows: StoredRow[] }> {
  const groups = new Map<string, { accountId: string; month: string; rows: StoredRow[] }>();
  for (const row of rows) {
    const accountId = String(row.account_id);
    const month = monthOf(row.created_at);
    const key = `${accountId}\u0000${month}`;
    let group = groups.get(key);
    if (!group) {
      group = { accountId, month, rows: [] };
      groups.set(key, group);
    }
    group.rows.push(row);
  }
  return groups;
}

/** The INSERT of a manifest row for `object`. */
function manifestInsert(
  d1: D1Database,
  object: WrittenObject,
  accountId: string,
  kind: ArchiveKind,
  month: string,
  now: string,
) {
  return d1
    .prepare(
      `INSERT INTO archive_objects (account_id, kind, month, key, rows, bytes, sha256, created_at)
       VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)`,
    )
    .bind(accountId, kind, month, object.key, object.rows, object.bytes, object.sha256, now);
}

/**
 * The index rows of an object (one statement whatever the count, from a bound JSON array: D1 binds at most 100
 * parameters): for raw events one `archived_raw_events` row per container, `[[id, index], …]`; for notifications one
 * `archived_rows` row each. A notification archived again (resent after it was archived, then finished again) points
 * at its newest object.
 */
function indexInsert(d1: D1Database, key: string, kind: "raw_events" | "webhook_notifications", rows: StoredRow[]) {
  if (kind === "webhook_notifications") {
    return d1
      .prepare(
        `INSERT OR REPLACE INTO archived_rows (id, object_id)
         SELECT j.value, (SELECT id FROM archive_objects WHERE key = ?1) FROM json_each(?2) j`,
      )
      .bind(key, JSON.stringify(rows.map((r) => r.id)));
  }
  const byContainer = new Map<string, [unknown, unknown][]>();
  for (const r of rows) {
    const list = byContainer.get(String(r.container_id));
    if (list) list.push([r.id, r.index]);
    else byContainer.set(String(r.container_id), [[r.id, r.index]]);
  }
  return d1
    .prepare(
      `INSERT INTO archived_raw_events (object_id, container_id, events)
       SELECT (SELECT id FROM archive_objects WHERE key = ?1), j.value ->> 0, j.value ->> 1 FROM json_each(?2) j`,
    )
    .bind(key, JSON.stringify([...byContainer]));
}

/** The cutoff of `config` at `nowMs`: rows whose clock (stop, finish) is before it may move (UTC ISO seconds). */
export function archiveCutoff(config: ArchiveConfig, nowMs: number): string {
  return toIsoSeconds(nowMs - config.afterDays * 86_400_000);
}

/**
 * Deletes the D1 rows of a recorded object and marks it (and, for notifications, its attempts object) purged, in one
 * batch. The deletes re-check the rule, so a row that changed since it was archived stays (a resent notification; a
 * box whose tracking resumed) and reads keep preferring it.
 */
async function purgeObject(deps: ArchiveDeps, object: { id: number; kind: string; key: string }): Promise<void> {
  const { d1 } = deps;
  const cutoff = archiveCutoff(deps.config, deps.clock.now());
  const now = toIsoSeconds(deps.clock.now());
  const mark = d1
    .prepare("UPDATE archive_objects SET purged_at = ?2 WHERE id = ?1 OR key = ?3")
    .bind(object.id, now, object.kind === "webhook_notifications" ? deliveriesKeyOf(object.key) : object.key);
  if (object.kind === "raw_events") {
    await d1.batch([
      d1
        .prepare(
          `DELETE FROM raw_events
           WHERE id IN (SELECT e.value ->> 0 FROM archived_raw_events a, json_each(a.events) e WHERE a.object_id = ?1)
             AND container_id IN (SELECT c.id FROM containers c JOIN shipments s ON s.id = c.shipment_id
                                  WHERE s.line_tracking_stopped_at < ?2)`,
        )
        .bind(object.id, cutoff),
      mark,
    ]);
    return;
  }
  const finished = `SELECT n.id FROM archived_rows a JOIN webhook_notifications n ON n.id = a.id
    WHERE a.object_id = ?1 AND n.delivery_status IN ('succeeded', 'failed') AND n.updated_at < ?2`;
  await d1.batch([
    d1.prepare(`DELETE FROM webhook_deliveries WHERE notification_id IN (${finished})`).bind(object.id, cutoff),
    d1.prepare(`DELETE FROM webhook_notifications WHERE id IN (${finished})`).bind(object.id, cutoff),
    mark,
  ]);
}

/** Step 0: deletes the rows of objects a stopped run recorded but did not purge (oldest first, bounded). */
async function finishPurges(deps: ArchiveDeps): Promise<number> {
  const { results } = await deps.d1
    .prepare(
      `SELECT id, kind, key FROM archive_objects WHERE purged_at IS NULL AND kind != 'webhook_deliveries'
       ORDER BY id LIMIT ?1`,
    )
    .bind(PURGES_PER_RUN)
    .all<{ id: number; kind: string; key: string }>();
  for (const object of results) await purgeObject(deps, object);
  return results.length;
}

/** Writes, records and purges one object (and its attempts object, for notifications). */
async function archiveGroup(
  deps: ArchiveDeps,
  group: { accountId: string; month: string; rows: StoredRow[] },
  kind: "raw_events" | "webhook_notifications",
  attempts: StoredRow[],
): Promise<number> {
  const { d1, bucket, hooks } = deps;
  const nowMs = deps.clock.now();
  const now = toIsoSeconds(nowMs);
  const part = newPartName(nowMs);
  const key = archiveObjectKey(group.accountId, group.month, kind, part);
  const written = await putVerified(bucket, key, group.rows);
  const statements = [manifestInsert(d1, written, group.accountId, kind, group.month, now)];
  let objects = 1;
  if (attempts.length > 0) {
    const attemptsObject = await putVerified(bucket, deliveriesKeyOf(key), attempts);
    statements.push(manifestInsert(d1, attemptsObject, group.accountId, "webhook_deliveries", group.month, now));
    objects++;
  }
  await hooks?.afterPut?.(key);
  statements.push(indexInsert(d1, key, kind, group.rows));
  await d1.batch(statements);
  await hooks?.afterManifest?.(key);
  const recorded = await d1.prepare("SELECT id FROM archive_objects WHERE key = ?1").bind(key).first<{ id: number }>();
  if (recorded) await purgeObject(deps, { id: recorded.id, kind, key });
  return objects;
}

/** `maintenance_cursors` row of the raw events walk (per shard: each shard has its own table). */
export const RAW_EVENTS_CURSOR = "archive_raw_events";

/**
 * Archives up to `rowsPerRun` raw events of containers whose shipment stopped tracking before the cutoff, one object
 * per account and month. The walk goes through stopped shipments in `line_tracking_stopped_at` order from a cursor
 * (`maintenance_cursors` `archive_raw_events`: every shipment stopped before it has nothing left to archive), so a
 * run reads the shipments it may still archive, not every shipment ever stopped. Containers with an object not yet
 * purged are left to `finishPurges`.
 */
async function archiveRawEvents(deps: ArchiveDeps): Promise<{ rows: number; objects: number; groups: number }> {
  const { d1 } = deps;
  const cutoff = archiveCutoff(deps.config, deps.clock.now());
  const cursorRow = await d1
    .prepare("SELECT cursor FROM maintenance_cursors WHERE name = ?1")
    .bind(RAW_EVENTS_CURSOR)
    .first<{ cursor: string }>();
  const from = cursorRow?.cursor ?? "";
  const { results } = await d1
    .prepare(
      `SELECT r.*, s.line_tracking_stopped_at AS archive_stopped_at FROM shipments s
       JOIN containers c ON c.shipment_id = s.id
       JOIN raw_events r ON r.container_id = c.id
       WHERE s.line_tracking_stopped_at IS NOT NULL AND s.line_tracking_stopped_at >= ?1
         AND s.line_tracking_stopped_at < ?2
         AND r.container_id NOT IN (SELECT a.container_id FROM archived_raw_events a
                                    JOIN archive_objects o ON o.id = a.object_id WHERE o.purged_at IS NULL)
       ORDER BY s.line_tracking_stopped_at
       LIMIT ?3`,
    )
    .bind(from, cutoff, deps.config.rowsPerRun)
    .all<StoredRow>();
  // A full page may have stopped inside a shipment's rows: resume from that shipment's stop time. A short page means
  // every shipment stopped before the cutoff is done.
  const last = results[results.length - 1];
  const next = results.length < deps.config.rowsPerRun ? cutoff : String(last?.archive_stopped_at ?? from);
  // Only the stop time orders the walk (the partial index gives it without a sort of the whole range); a container's
  // rows go to their object in feed order.
  const rows = results
    .map(({ archive_stopped_at: _, ...row }) => row)
    .sort(
      (a, b) =>
        String(a.container_id).localeCompare(String(b.container_id)) ||
        Number(a.index) - Number(b.index) ||
        String(a.id).localeCompare(String(b.id)),
    );
  const groups = byAccountMonth(rows);
  let objects = 0;
  for (const group of groups.values()) objects += await archiveGroup(deps, group, "raw_events", []);
  if (next !== from) {
    await d1
      .prepare(
        `INSERT INTO maintenance_cursors (name, cursor, updated_at) VALUES (?1, ?2, ?3)
         ON CONFLICT (name) DO UPDATE SET cursor = excluded.cursor, updated_at = excluded.updated_at`,
      )
      .bind(RAW_EVENTS_CURSOR, next, toIsoSeconds(deps.clock.now()))
      .run();
  }
  return { rows: rows.length, objects, groups: groups.size };
}

/**
 * Archives up to `rowsPerRun` notifications that finished (`succeeded`, or `failed` for good) before the cutoff (index
 * `webhook_notifications_finished_idx`: the scan stops at the page, whatever the number of recent ones), with
 * their delivery attempts: per account and month, objects of at most {@link NOTIFICATIONS_PER_OBJECT} notifications,
 * each with its attempts object.
 */
async function archiveNotifications(
  deps: ArchiveDeps,
): Promise<{ rows: number; attempts: number; objects: number; groups: number }> {
  const { d1 } = deps;
  const cutoff = archiveCutoff(deps.config, deps.clock.now());
  const { results } = await d1
    .prepare(
      `SELECT n.* FROM webhook_notifications n
       WHERE n.delivery_status IN ('succeeded', 'failed') AND n.updated_at < ?1
         AND NOT EXISTS (SELECT 1 FROM archived_rows a JOIN archive_objects o ON o.id = a.object_id
                         WHERE a.id = n.id AND o.purged_at IS NULL)
       LIMIT ?2`,
    )
    .bind(cutoff, deps.config.rowsPerRun)
    .all<StoredRow>();
  if (results.length === 0) return { rows: 0, attempts: 0, objects: 0, groups: 0 };
  const { results: attempts } = await d1
    .prepare(
      `SELECT d.* FROM webhook_deliveries d WHERE d.notification_id IN (SELECT value FROM json_each(?1))
       ORDER BY d.notification_id, d.seq, d.attempt, d.created_at`,
    )
    .bind(JSON.stringify(results.map((r) => r.id)))
    .all<StoredRow>();
  const attemptsOf = new Map<string, StoredRow[]>();
  for (const a of attempts) {
    const list = attemptsOf.get(String(a.notification_id));
    if (list) list.push(a);
    else attemptsOf.set(String(a.notification_id), [a]);
  }
  let objects = 0;
  let groups = 0;
  for (const group of byAccountMonth(results).values()) {
    for (let i = 0; i < group.rows.length; i += NOTIFICATIONS_PER_OBJECT) {
      const chunk = { ...group, rows: group.rows.slice(i, i + NOTIFICATIONS_PER_OBJECT) };
      const chunkAttempts = chunk.rows.flatMap((n) => attemptsOf.get(String(n.id)) ?? []);
      objects += await archiveGroup(deps, chunk, "webhook_notifications", chunkAttempts);
      groups++;
    }
  }
  return { rows: results.length, attempts: attempts.length, objects, groups };
}

/**
 * One retention run over one shard: finish the deletes a stopped run left, then archive raw events and notifications,
 * at most `rowsPerRun` rows of each. Run by the every-minute cron for every shard (src/archive/cron.ts).
 * @throws when R2 or D1 fails: whatever was done stays consistent (see the order above) and the next run resumes.
 */
export async function runArchive(deps: ArchiveDeps): Promise<ArchiveRunResult> {
  const purgedBefore = await finishPurges(deps);
  const raw = await archiveRawEvents(deps);
  const notifications = await archiveNotifications(deps);
  return {
    rawEvents: raw.rows,
    notifications: notifications.rows,
    attempts: notifications.attempts,
    objects: raw.objects + notifications.objects,
    // Each group's object is purged right after it is recorded (its attempts object with it).
    purged: purgedBefore + raw.groups + notifications.groups,
  };
}
