import { desc, eq } from "drizzle-orm";
import { assertRoutingEnabled } from "../containers/shipping-route-service";
import type { Database } from "../db/client";
import { shipments, transportEvents } from "../db/schema";
import { toIsoSeconds } from "../lib/clock";
import { ApiError } from "../lib/errors";
import { parseTimeBound } from "../lib/jsonapi/filters";
import { imoOfVesselId, vesselIdForImo } from "./identity";
import { findVessel, POSITION_RETENTION_DAYS, positionTrack } from "./position-store";
import type { VesselView } from "./serializer";

const DAY_MS = 86_400_000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The `show_positions` parameters of `GET /v2/vessels/{id}` as given (null or absent when not). */
export interface ShowPositionsParams {
  show_positions?: string | null;
  "show_positions[from_timestamp]"?: string | null;
  "show_positions[to_timestamp]"?: string | null;
}

/** The position window asked for, or null when positions are not asked for. */
export interface PositionWindow {
  from: string;
  to: string;
}

/**
 * Reads the `show_positions` parameters (docs/api.md §Vessel resource): positions are asked for by either bracketed
 * bound or by `show_positions=true` (`false` or absent: not asked); the window defaults to the 7 days before now. Both
 * bounds are ISO 8601, normalised to UTC seconds.
 * @throws ApiError 400 with `source.parameter` for a malformed bound, a `show_positions` other than true/false, or a
 * window that ends before it starts.
 */
export function parsePositionWindow(params: ShowPositionsParams, nowMs: number): PositionWindow | null {
  const flag = params.show_positions?.trim().toLowerCase();
  if (flag && flag !== "true" && flag !== "false") {
    throw ApiError.badParameter("show_positions", "show_positions must be true or false.");
  }
  const from = parseTimeBound(params["show_positions[from_timestamp]"], "show_positions[from_timestamp]");
  const to = parseTimeBound(params["show_positions[to_timestamp]"], "show_positions[to_timestamp]");
  if (!from && !to && flag !== "true") return null;
  const window = {
    from: from ?? toIsoSeconds((to ? Date.parse(to) : nowMs) - POSITION_RETENTION_DAYS * DAY_MS),
    to: to ?? toIsoSeconds(nowMs),
  };
  if (window.from > window.to) {
    throw ApiError.badParameter(
      "show_positions[from_timestamp]",
      "show_positions[from_timestamp] must not be after show_positions[to_timestamp].",
    );
  }
  return window;
}

/**
 * The vessel named by `key` (docs/api.md §Vessel resource): a vessel id (UUID) or a 7-digit IMO number. Vessels are
 * shared by every account: one the `vessels` table has answers with its MMSI and latest position; one only our records
 * know (any account's transport events, else a shipment's `pod_vessel_imo`: the vessel is public reference data)
 * answers with the name and IMO number they give, the rest null. A row without a name (the simulator records
 * positions by IMO number alone) takes the name from the same records. `window` adds the recorded positions in it, oldest first, and needs the account's `routing`
 * entitlement (the 403 of `/v2/containers/{id}/route`); the plain read needs none.
 *
 * Databases (docs/SCALING.md §Shards): `primary` holds the entitlements, the `vessels` table and the positions;
 * `shards` is every shard's handle (the primary first, `allShards`), whose transport events and shipments name the
 * vessel ("any account's records": read from every shard at once, in parallel, only when the vessel row has no name).
 * @throws ApiError 403 without the entitlement when positions are asked for (checked first), 404 for an unknown
 * vessel or a key that is neither.
 */
export async function getVessel(
  primary: Database,
  shards: readonly Database[],
  accountId: string,
  key: string,
  window: PositionWindow | null,
): Promise<VesselView> {
  if (window) await assertRoutingEnabled(primary, accountId);
  const notFound = () => ApiError.notFound("Couldn't find Vessel");
  const id = UUID.test(key) ? key.toLowerCase() : vesselIdForImo(key);
  if (!id) throw notFound();
  const row = await findVessel(primary, key);
  const imo = row?.imo ?? imoOfVesselId(id);
  if (!imo) throw notFound();
  // The name our records give a vessel the position store has no name for (or no row at all).
  const named = row?.name ? undefined : await vesselNamedInRecords(shards, imo);
  if (!row && !named) throw notFound();
  const view: VesselView = {
    id,
    name: row?.name ?? named?.name ?? null,
    imo,
    mmsi: row?.mmsi ?? null,
    latitude: row?.latitude ?? null,
    longitude: row?.longitude ?? null,
    nauticalSpeedKnots: row?.nauticalSpeedKnots ?? null,
    navigationalHeadingDegrees: row?.navigationalHeadingDegrees ?? null,
    positionTimestamp: row?.positionTimestamp ?? null,
  };
  if (window) {
    const track = row ? await positionTrack(primary, row.id, window.from, window.to) : [];
    view.positions = track.map((p) => ({
      latitude: p.latitude,
      longitude: p.longitude,
      heading: p.headingDegrees,
      timestamp: p.timestamp,
      estimated: false,
    }));
  }
  return view;
}

/**
 * How our records name vessel `imo` (7 digits) when the `vessels` table cannot: the newest transport event naming it,
 * else a shipment arriving on it (`pod_vessel_imo`, the leg after a transshipment that no event names yet), any
 * account's: a vessel is shared reference data (docs/api.md §Vessel resource). Reads the
 * `transport_events(vessel_imo, created_at)` and `shipments(pod_vessel_imo)` indexes of every shard (one batch per
 * shard, all at once): the newest event across the shards wins, as it would in one database.
 * @returns `{name}` (null when the record gives none), or undefined when no record names the vessel.
 */
async function vesselNamedInRecords(
  shards: readonly Database[],
  imo: string,
): Promise<{ name: string | null } | undefined> {
  const perShard = await Promise.all(
    shards.map((db) =>
      db.batch([
        db
          .select({ name: transportEvents.vesselName, createdAt: transportEvents.createdAt })
          .from(transportEvents)
          .where(eq(transportEvents.vesselImo, imo))
          .orderBy(desc(transportEvents.createdAt))
          .limit(1),
        db.select({ name: shipments.podVesselName }).from(shipments).where(eq(shipments.podVesselImo, imo)).limit(1),
      ]),
    ),
  );
  const events = perShard.flatMap(([events]) => events).sort((a, b) => b.createdAt.localeCompare(a.createdAt));
  const event = events[0];
  if (event?.name) return { name: event.name };
  const shipment = perShard.map(([, shipments]) => shipments[0]).find((s) => s !== undefined);
  return shipment ?? (event ? { name: event.name } : undefined);
}
