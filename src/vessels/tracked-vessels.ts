import { sql } from "drizzle-orm";
import type { Database } from "../db/client";
import type { TrackedVessel } from "./positions/source";

/**
 * Most vessels followed at once: {@link trackedVessels} returns at most this many (by IMO number), so the AIS feed
 * opens at most 10 position sockets of 50 MMSIs (src/vessels/positions/aisstream.ts).
 */
export const MAX_TRACKED_VESSELS = 500;

/**
 * The vessels that carry a tracked box (docs/architecture.md §Vessel positions), across every account: positions are
 * shared reference data, and a vessel is followed once however many accounts have boxes on it. A box is tracked while
 * its shipment's line tracking has not stopped and it has not been discharged at the port of discharge (POD) nor
 * picked up there; its vessels are
 * - the vessel of its current leg: the vessel (IMO number) of its latest transport event that names one, and
 * - the shipment's POD vessel (`pod_vessel_imo`), the one it will arrive on.
 * Only 7-digit IMO numbers count. The MMSI and name are those of the `vessels` row when we have one.
 */
export async function trackedVessels(db: Database, limit = MAX_TRACKED_VESSELS): Promise<TrackedVessel[]> {
  const rows = await db.all<{ imo: string; mmsi: string | null; name: string | null }>(sql`
    WITH active AS (
      SELECT c.id AS container_id, s.pod_vessel_imo AS pod_imo
      FROM containers c JOIN shipments s ON s.id = c.shipment_id
      WHERE s.line_tracking_stopped_at IS NULL AND c.pod_discharged_at IS NULL AND c.pod_full_out_at IS NULL
    ),
    imos AS (
      SELECT pod_imo AS imo FROM active WHERE pod_imo IS NOT NULL
      UNION
      SELECT (
        SELECT e.vessel_imo FROM transport_events e
        WHERE e.container_id = active.container_id AND e.vessel_imo IS NOT NULL AND e.invalidated_at IS NULL
        ORDER BY e.timestamp DESC, e.id DESC LIMIT 1
      ) FROM active
    )
    SELECT i.imo AS imo, v.mmsi AS mmsi, v.name AS name
    FROM imos i LEFT JOIN vessels v ON v.imo = i.imo
    WHERE i.imo GLOB '[0-9][0-9][0-9][0-9][0-9][0-9][0-9]'
    ORDER BY i.imo
    LIMIT ${limit}`);
  return rows.map((r) => ({ imo: r.imo, mmsi: r.mmsi, name: r.name }));
}
