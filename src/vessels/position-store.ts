import { and, asc, eq, gte, lte } from "drizzle-orm";
import type { Database } from "../db/client";
import { vesselPositions, vessels } from "../db/schema";
import { vesselIdForImo } from "./identity";

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
