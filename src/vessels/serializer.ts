import { registerResourceType } from "../lib/jsonapi/include-registry";
import type { ResourceObject } from "../lib/jsonapi/types";
import { type VesselRef, vesselIdForImo } from "./identity";

// A vessel's identity (its id from the IMO number, the linkage of an event, the vessels of event rows) is in
// identity.ts, which the serializers of events use without importing this one; re-exported for the modules that
// build documents from here.
export { vesselIdForImo } from "./identity";

/**
 * Serialises a vessel (docs/api.md §Vessel resource) from what we know of it; positions and AIS fields are not tracked
 * (null).
 */
export function serializeVessel(v: VesselRef): ResourceObject {
  return {
    id: v.id,
    type: "vessel",
    attributes: {
      name: v.name,
      imo: v.imo,
      mmsi: null,
      latitude: null,
      longitude: null,
      nautical_speed_knots: null,
      navigational_heading_degrees: null,
      position_timestamp: null,
    },
  };
}

/** A `vessel` resource from an event's vessel name and IMO number. Null without a valid IMO number. */
export function vesselResource(name: string | null, imo: string | null): ResourceObject | null {
  const id = vesselIdForImo(imo);
  return id ? serializeVessel({ id, name, imo }) : null;
}

/**
 * JSON:API type `vessel` (docs/api.md §Vessel resource): only ever included, built from the events that name it; no
 * relationships.
 */
export const vesselType = registerResourceType<VesselRef>({
  type: "vessel",
  serializerName: "V2::VesselSerializer",
  serialize: serializeVessel,
  relationships: {},
});
