import { inArray } from "drizzle-orm";
import { vessels } from "../db/schema";
import { registerResourceType } from "../lib/jsonapi/include-registry";
import type { ResourceObject } from "../lib/jsonapi/types";
import { type VesselRef, vesselIdForImo } from "./identity";

// A vessel's identity (its id from the IMO number, the linkage of an event, the vessels of event rows) is in
// identity.ts, which the serializers of events use without importing this one; re-exported for the modules that
// build documents from here.
export { vesselIdForImo } from "./identity";

/** One item of a vessel's `positions` (docs/api.md §Vessel resource). */
export interface VesselPositionItem {
  latitude: number;
  longitude: number;
  heading: number | null;
  timestamp: string;
  estimated: boolean;
}

/**
 * What a `vessel` resource is built from: its identity and, when the `vessels` table has the vessel, its MMSI and
 * latest position (src/vessels/position-store.ts). `positions` only when asked for (`show_positions`).
 */
export interface VesselView extends VesselRef {
  mmsi?: string | null;
  latitude?: number | null;
  longitude?: number | null;
  nauticalSpeedKnots?: number | null;
  navigationalHeadingDegrees?: number | null;
  positionTimestamp?: string | null;
  positions?: VesselPositionItem[];
}

/**
 * Serialises a vessel (docs/api.md §Vessel resource): the reference's eight attributes, null where we know nothing
 * (a vessel known only from events has its name and IMO number); `positions` only when the view carries them.
 */
export function serializeVessel(v: VesselView): ResourceObject {
  return {
    id: v.id,
    type: "vessel",
    attributes: {
      name: v.name,
      imo: v.imo,
      mmsi: v.mmsi ?? null,
      latitude: v.latitude ?? null,
      longitude: v.longitude ?? null,
      nautical_speed_knots: v.nauticalSpeedKnots ?? null,
      navigational_heading_degrees: v.navigationalHeadingDegrees ?? null,
      position_timestamp: v.positionTimestamp ?? null,
      ...(v.positions ? { positions: v.positions } : {}),
    },
  };
}

/**
 * A `vessel` resource from an event's vessel name and IMO number, without reading the `vessels` table (webhook
 * payloads). Null without a valid IMO number.
 */
export function vesselResource(name: string | null, imo: string | null): ResourceObject | null {
  const id = vesselIdForImo(imo);
  return id ? serializeVessel({ id, name, imo }) : null;
}

/**
 * JSON:API type `vessel` (docs/api.md §Vessel resource): `GET /v2/vessels/{id}` and the `vessel` of events. Views made
 * from events are completed from the `vessels` table (MMSI, name when the event has none, latest position) in one
 * query; no relationships.
 */
export const vesselType = registerResourceType<VesselView>({
  type: "vessel",
  serializerName: "V2::VesselSerializer",
  async hydrate(ctx, rows) {
    const ids = [...new Set(rows.filter((r) => r.mmsi === undefined).map((r) => r.id))];
    if (ids.length === 0) return rows;
    // D1 binds at most 100 parameters per statement.
    const parts: string[][] = [];
    for (let i = 0; i < ids.length; i += 90) parts.push(ids.slice(i, i + 90));
    const known = (
      await Promise.all(parts.map((part) => ctx.db.select().from(vessels).where(inArray(vessels.id, part))))
    ).flat();
    const byId = new Map(known.map((k) => [k.id, k]));
    return rows.map((r) => {
      const k = r.mmsi === undefined ? byId.get(r.id) : undefined;
      if (!k) return r;
      return {
        ...r,
        name: k.name ?? r.name,
        mmsi: k.mmsi,
        latitude: k.latitude,
        longitude: k.longitude,
        nauticalSpeedKnots: k.nauticalSpeedKnots,
        navigationalHeadingDegrees: k.navigationalHeadingDegrees,
        positionTimestamp: k.positionTimestamp,
      };
    });
  },
  serialize: serializeVessel,
  relationships: {},
});
