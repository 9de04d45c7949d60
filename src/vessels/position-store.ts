import { and, asc, eq, gte, inArray, isNull, lte, max, or, sql } from "drizzle-orm";
import type { Database } from "../db/client";
import { vesselPositions, vessels } from "../db/schema";
import { toIsoSeconds } from "../lib/clock";
import { vesselIdForImo } from "./identity";
import type { VesselIdentityReport, VesselPositionReport } from "./positions/source";

/** A `vessels` row as drizzle returns it (src/db/schema/vessels.ts). */
export type VesselRow = typeof vessels.$inferSelect;

/** A `vessel_positions` row: one recorded position of a vessel. */
export type VesselPositionRow = typeof vesselPositions.$inferSelect;

/** How long recorded positions are kept (days): the reference's default `show_positions` window is 7 days. */
export const POSITION_RETENTION_DAYS = 7;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The vessel named by `key` in `/v2/vessels/{key}` (docs/api.md §Vessel resource): a vessel id (UUID) or a 7-digit IMO
 * number, the reference's two readings of one URL template. Vessels are shared by every account.
 * @returns the row, or undefined when no vessel has that id or IMO number (or the key is neither).
 */
export async function findVessel(db: Database, key: string): Promise<VesselRow | undefined> {
  const id = UUID.test(key) ? key.toLowerCase() : vesselIdForImo(key);
  if (!id) return undefined;
  const [row] = await db.select().from(vessels).where(eq(vessels.id, id)).limit(1);
  return row;
}

/**
 * The recorded positions of vessel `vesselId` from `fromIso` to `toIso` (UTC ISO seconds, both inclusive), oldest
 * first: the `show_positions` track and the past legs of a container's map. Reads the `(vessel_id, timestamp)` key.
 */
export async function positionTrack(
  db: Database,
  vesselId: string,
  fromIso: string,
  toIso: string,
): Promise<VesselPositionRow[]> {
  return db
    .select()
    .from(vesselPositions)
    .where(
      and(
        eq(vesselPositions.vesselId, vesselId),
        gte(vesselPositions.timestamp, fromIso),
        lte(vesselPositions.timestamp, toIso),
      ),
    )
    .orderBy(asc(vesselPositions.timestamp));
}

// ---------------------------------------------------------------------------------------------------------------
// Writing positions (the sink of every VesselPositionSource, src/vessels/positions/source.ts)
// ---------------------------------------------------------------------------------------------------------------

/**
 * Recorded positions of one vessel are at least this far apart (ms): a vessel reports every 2–10 s under way, the
 * reference refreshes about every 15 minutes (docs/api.md §Vessel resource), so one row per 5 minutes keeps a track
 * that draws well at 288 rows per vessel and day. The `vessels` row always gets the newest report.
 */
export const POSITION_MIN_INTERVAL_MS = 5 * 60_000;

/** A report this far ahead of the clock is a bad fix (ms) and dropped. */
const MAX_FUTURE_SKEW_MS = 5 * 60_000;
const DAY_MS = 86_400_000;
/** D1 binds at most 100 parameters per statement: rows per multi-row INSERT (7 columns for positions). */
const POSITION_ROWS_PER_INSERT = 14;
const VESSEL_ROWS_PER_INSERT = 20;
const IDS_PER_IN = 90;

/** What {@link recordPositions} did (counts), for the AisFeed's counters, logs and tests. */
export interface RecordPositionsResult {
  /** Rows added to `vessel_positions`. */
  stored: number;
  /** Reports dropped: thinned (within POSITION_MIN_INTERVAL_MS of a kept one), of an unknown MMSI, or out of range. */
  dropped: number;
  /** Vessels whose `vessels` row was created or whose identity (MMSI, name) changed. */
  identities: number;
}

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** True when a report's fields are in range (coordinates WGS84, a parseable timestamp): the store's last guard. */
function plausible(r: VesselPositionReport, nowMs: number): number | null {
  if (!Number.isFinite(r.latitude) || r.latitude < -90 || r.latitude > 90) return null;
  if (!Number.isFinite(r.longitude) || r.longitude < -180 || r.longitude > 180) return null;
  const ms = Date.parse(r.timestamp);
  if (!Number.isFinite(ms) || ms > nowMs + MAX_FUTURE_SKEW_MS) return null;
  if (ms < nowMs - POSITION_RETENTION_DAYS * DAY_MS) return null;
  return ms;
}

/**
 * Writes what a position source heard (docs/architecture.md §Vessel positions): identities first (a `vessels` row per
 * IMO number, its MMSI and name), then positions, thinned to one row per vessel per {@link POSITION_MIN_INTERVAL_MS}
 * (counting the newest row already stored) and the newest copied to the vessel's row. Positions are shared reference
 * data, never per account, and never produce a webhook notification. A report naming only an MMSI that no `vessels`
 * row carries is dropped (nobody tracks it). Reports older than {@link POSITION_RETENTION_DAYS} or ahead of the clock
 * are dropped. The caller decides which vessels are followed; this function does not filter by tracking.
 * @param nowMs the clock (ms since epoch), for `updated_at` and the range checks.
 */
export async function recordPositions(
  db: Database,
  input: { positions: readonly VesselPositionReport[]; identities?: readonly VesselIdentityReport[] },
  nowMs: number,
): Promise<RecordPositionsResult> {
  const now = toIsoSeconds(nowMs);
  const result: RecordPositionsResult = { stored: 0, dropped: 0, identities: 0 };

  // 1. Identities, and a row for every vessel a report names by IMO (the positions' foreign key).
  const byImo = new Map<string, { id: string; imo: string; mmsi: string | null; name: string | null }>();
  for (const i of input.identities ?? []) {
    const id = vesselIdForImo(i.imo);
    if (id && /^\d{9}$/.test(i.mmsi)) byImo.set(i.imo, { id, imo: i.imo, mmsi: i.mmsi, name: i.name?.trim() || null });
  }
  for (const p of input.positions) {
    const id = p.imo ? vesselIdForImo(p.imo) : null;
    if (id && p.imo && !byImo.has(p.imo)) byImo.set(p.imo, { id, imo: p.imo, mmsi: p.mmsi, name: null });
  }
  const vesselRows = [...byImo.values()].map((v) => ({ ...v, updatedAt: now }));
  if (vesselRows.length > 0) {
    const statements = chunks(vesselRows, VESSEL_ROWS_PER_INSERT).map((rows) =>
      db
        .insert(vessels)
        .values(rows)
        .onConflictDoUpdate({
          target: vessels.id,
          set: {
            mmsi: sql`coalesce(excluded.mmsi, ${vessels.mmsi})`,
            name: sql`coalesce(excluded.name, ${vessels.name})`,
            updatedAt: sql`excluded.updated_at`,
          },
          setWhere: sql`excluded.mmsi is not ${vessels.mmsi} and excluded.mmsi is not null or excluded.name is not ${vessels.name} and excluded.name is not null`,
        }),
    );
    const [first, ...rest] = statements;
    if (first) {
      const written = await db.batch([first, ...rest]);
      for (const w of written) result.identities += (w as D1Result).meta?.changes ?? 0;
    }
  }

  // 2. Which vessel each report belongs to.
  const mmsis = [...new Set(input.positions.filter((p) => !p.imo && p.mmsi).map((p) => p.mmsi as string))];
  const idOfMmsi = new Map<string, string>();
  for (const part of chunks(mmsis, IDS_PER_IN)) {
    const rows = await db
      .select({ id: vessels.id, mmsi: vessels.mmsi })
      .from(vessels)
      .where(inArray(vessels.mmsi, part));
    for (const r of rows) if (r.mmsi) idOfMmsi.set(r.mmsi, r.id);
  }
  const perVessel = new Map<string, { ms: number; report: VesselPositionReport }[]>();
  for (const p of input.positions) {
    const id = p.imo ? vesselIdForImo(p.imo) : p.mmsi ? idOfMmsi.get(p.mmsi) : undefined;
    const ms = plausible(p, nowMs);
    if (!id || ms === null) {
      result.dropped++;
      continue;
    }
    const list = perVessel.get(id) ?? [];
    list.push({ ms, report: p });
    perVessel.set(id, list);
  }
  if (perVessel.size === 0) return result;

  // 3. Thinning against the newest stored row of each vessel.
  const lastStored = new Map<string, number>();
  for (const part of chunks([...perVessel.keys()], IDS_PER_IN)) {
    const rows = await db
      .select({ id: vesselPositions.vesselId, last: max(vesselPositions.timestamp) })
      .from(vesselPositions)
      .where(inArray(vesselPositions.vesselId, part))
      .groupBy(vesselPositions.vesselId);
    for (const r of rows) if (r.last) lastStored.set(r.id, Date.parse(r.last));
  }
  const inserts: (typeof vesselPositions.$inferInsert)[] = [];
  const newest: { id: string; report: VesselPositionReport; ms: number }[] = [];
  for (const [id, list] of perVessel) {
    list.sort((a, b) => a.ms - b.ms);
    let last = lastStored.get(id) ?? Number.NEGATIVE_INFINITY;
    for (const { ms, report } of list) {
      if (ms - last < POSITION_MIN_INTERVAL_MS) {
        result.dropped++;
        continue;
      }
      last = ms;
      inserts.push({
        vesselId: id,
        timestamp: toIsoSeconds(ms),
        latitude: report.latitude,
        longitude: report.longitude,
        speedKnots: report.speedKnots,
        headingDegrees: report.headingDegrees,
        source: report.source,
      });
    }
    const top = list[list.length - 1];
    if (top) newest.push({ id, report: top.report, ms: top.ms });
  }

  // 4. One batch: the kept rows and the newest position of each vessel (only if newer than what the row holds).
  const statements = [
    ...chunks(inserts, POSITION_ROWS_PER_INSERT).map((rows) =>
      db.insert(vesselPositions).values(rows).onConflictDoNothing(),
    ),
    ...newest.map(({ id, report, ms }) => {
      const at = toIsoSeconds(ms);
      return db
        .update(vessels)
        .set({
          latitude: report.latitude,
          longitude: report.longitude,
          nauticalSpeedKnots: report.speedKnots,
          navigationalHeadingDegrees: report.headingDegrees,
          positionTimestamp: at,
          updatedAt: now,
        })
        .where(and(eq(vessels.id, id), or(isNull(vessels.positionTimestamp), lte(vessels.positionTimestamp, at))));
    }),
  ];
  const [first, ...rest] = statements;
  if (first) {
    const written = await db.batch([first, ...rest]);
    for (let i = 0; i < written.length && i < Math.ceil(inserts.length / POSITION_ROWS_PER_INSERT); i++) {
      result.stored += (written[i] as D1Result).meta?.changes ?? 0;
    }
  }
  return result;
}

/**
 * Deletes recorded positions older than {@link POSITION_RETENTION_DAYS} (the cron, src/tracking/maintenance.ts), at
 * most `limit` rows per call so one run stays short. @returns rows deleted.
 */
export async function deleteExpiredPositions(db: Database, nowMs: number, limit = 5000): Promise<number> {
  const cutoff = toIsoSeconds(nowMs - POSITION_RETENTION_DAYS * DAY_MS);
  const done = await db.run(
    sql`delete from vessel_positions where rowid in (select rowid from vessel_positions where timestamp < ${cutoff} limit ${limit})`,
  );
  return done.meta?.changes ?? 0;
}
