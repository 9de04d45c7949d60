import { registerResourceType } from "../lib/jsonapi/include-registry";
import type { Resource } from "../lib/jsonapi/types";
import { metroAreasByIds } from "../reference/metro-areas";
import type { MetroAreaRecord } from "../reference/types";
import type { MetroAreaAttributes } from "./schemas";

/**
 * Serialises a metro area (docs/api.md §Metro area resource): the reference's real object, `id` repeated in
 * attributes, lat/long as strings, `time_zone`; no relationships (its embedded objects have none).
 */
export function serializeMetroArea(row: MetroAreaRecord): Resource<MetroAreaAttributes> {
  return {
    id: row.id,
    type: "metro_area",
    attributes: {
      id: row.id,
      name: row.name,
      code: row.code,
      state_abbr: row.stateAbbr,
      country_code: row.countryCode,
      time_zone: row.timeZone,
      latitude: row.latitude,
      longitude: row.longitude,
    },
  };
}

/** JSON:API type `metro_area`, read from the compiled reference data (src/reference/metro-areas.ts). */
export const metroAreaResource = registerResourceType<MetroAreaRecord>({
  type: "metro_area",
  serializerName: "V2::MetroAreaSerializer",
  serialize: serializeMetroArea,
  relationships: {},
  loadByIds: async (_ctx, ids) => metroAreasByIds(ids),
});
