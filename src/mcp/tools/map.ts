import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { MAP_FEATURE_TYPES, type MapFeature } from "../../containers/map-geojson";
import {
  containerIdArg,
  type McpDeps,
  READ_ONLY,
  registerTrackingTool,
  resolveContainerId,
  withNotFound,
} from "./common";

/**
 * `get_container_map` (docs/mcp.md §Tools): the container's map as GeoJSON, the document of
 * `GET /v2/containers/{id}/map_geojson` (docs/api.md §Container map), from the same service, behind the same paid
 * `routing` feature.
 */

const Feature = z.object({
  type: z.literal("Feature"),
  geometry: z.object({
    type: z.enum(["Point", "LineString", "MultiLineString"]),
    coordinates: z.array(z.unknown()),
  }),
  properties: z
    .object({
      feature_type: z.enum(MAP_FEATURE_TYPES),
    })
    .catchall(z.unknown()),
});

/** One line of the summary per feature: ports with their label and times, the vessel, each leg and its points. */
function summaryLine(f: MapFeature): string {
  const p = f.properties;
  switch (p.feature_type) {
    case "port":
      return `- ${p.label} ${p.name} (${p.country_code})${p.outbound_atd_at ? `, left ${p.outbound_atd_at}` : p.inbound_ata_at ? `, arrived ${p.inbound_ata_at}` : p.inbound_eta_at ? `, ETA ${p.inbound_eta_at}` : ""}`;
    case "current_vessel": {
      const [lon, lat] = f.geometry.coordinates as [number, number];
      return `- vessel ${p.vessel_name} at ${lat.toFixed(3)}, ${lon.toFixed(3)} (${p.vessel_location_timestamp}), bound for ${p.arrival_port_name}`;
    }
    default:
      return `- ${p.feature_type} from port ${p.ports_sequence}: ${p.point_count} points`;
  }
}

/** Registers `get_container_map`. */
export function registerMapTool(server: McpServer, deps: McpDeps): void {
  registerTrackingTool(server, deps, {
    name: "get_container_map",
    title: "Container map as GeoJSON (paid feature)",
    description:
      "The container's journey as GeoJSON for a map: ports (label POL/TS1…/POD, times), the vessel now, legs sailed and estimated along the sea route; [longitude, latitude]. Empty without route data. Paid `routing` feature.",
    input: { id: containerIdArg },
    output: { type: z.literal("FeatureCollection"), features: z.array(Feature) },
    annotations: READ_ONLY,
    async run(args, { api }) {
      const id = await resolveContainerId(api, args.id);
      const map = await withNotFound("container", id, () => api.getContainerMap(id));
      const text =
        map.features.length === 0
          ? "No route data yet: the map is empty."
          : [`Map of container ${id}: ${map.features.length} features`, ...map.features.map(summaryLine)].join("\n");
      return { structured: map, text };
    },
  });
}
