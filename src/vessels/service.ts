import { and, desc, eq, isNotNull } from "drizzle-orm";
import { ROUTING_ENTITLEMENT } from "../containers/shipping-route";
import { routingNotEnabled } from "../containers/shipping-route-service";
import type { Database } from "../db/client";
import { accounts, transportEvents } from "../db/schema";
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
 * shared by every account: one the `vessels` table has answers with its MMSI and latest position; one only events know
 * (any account's, the vessel being public reference data) answers with the name and IMO number of its latest event,
 * the rest null. `window` adds the recorded positions in it, oldest first, and needs the account's `routing`
 * entitlement (the 403 of `/v2/containers/{id}/route`); the plain read needs none.
 * @throws ApiError 403 without the entitlement when positions are asked for (checked first), 404 for an unknown
 * vessel or a key that is neither.
 */
export async function getVessel(
  db: Database,
  accountId: string,
  key: string,
  window: PositionWindow | null,
): Promise<VesselView> {
  if (window) {
    const [account] = await db
      .select({ entitlements: accounts.entitlements })
      .from(accounts)
      .where(eq(accounts.id, accountId))
      .limit(1);
    if (!account?.entitlements.includes(ROUTING_ENTITLEMENT)) throw routingNotEnabled();
  }
  const notFound = () => ApiError.notFound("Couldn't find Vessel");
  const id = UUID.test(key) ? key.toLowerCase() : vesselIdForImo(key);
  if (!id) throw notFound();
  const row = await findVessel(db, key);
  let view: VesselView;
  if (row) {
    view = {
      id: row.id,
      name: row.name,
      imo: row.imo,
      mmsi: row.mmsi,
      latitude: row.latitude,
      longitude: row.longitude,
      nauticalSpeedKnots: row.nauticalSpeedKnots,
      navigationalHeadingDegrees: row.navigationalHeadingDegrees,
      positionTimestamp: row.positionTimestamp,
    };
  } else {
    const imo = imoOfVesselId(id);
    if (!imo) throw notFound();
    const [event] = await db
      .select({ name: transportEvents.vesselName })
      .from(transportEvents)
      .where(and(eq(transportEvents.vesselImo, imo), isNotNull(transportEvents.vesselImo)))
      .orderBy(desc(transportEvents.createdAt))
      .limit(1);
    if (!event) throw notFound();
    view = { id, name: event.name, imo, mmsi: null };
  }
  if (window) {
    const track = row ? await positionTrack(db, row.id, window.from, window.to) : [];
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
