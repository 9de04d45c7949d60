import { raw } from "hono/html";
import type { ContainerMap, MapFeature } from "../containers/map-geojson";
import type { ContainerPageData } from "./container-data";
import { formatInstant } from "./container-format";
import { DASHBOARD_ASSETS } from "./layout";

/**
 * The container page's map (src/dashboard/container-page.tsx): the GeoJSON of `GET /v2/containers/{id}/map_geojson`
 * embedded as a JSON data island (`<script type="application/json">`, never executed), drawn by the island
 * public/app/assets/container-map.js with MapLibre GL JS on Natural Earth country shapes served with the dashboard
 * (scripts/dashboard-assets.mjs), and described in text next to it for anyone who cannot see it.
 */

/** Id of the map's data island, read by public/app/assets/container-map.js. */
export const MAP_DATA_ID = "container-map-data";

/** Where the vendored map library and basemap are served (copied by scripts/dashboard-assets.mjs; gitignored). */
export const MAP_VENDOR = `${DASHBOARD_ASSETS}/vendor`;

const SCRIPT_UNSAFE = /[<>&\u2028\u2029]/g;

/**
 * `value` as JSON safe to place inside a `<script>` element: `<`, `>` and `&` (so no `</script>` or `<!--` can end or
 * change the element), and U+2028/U+2029, are written as `\uXXXX` escapes, which JSON.parse reads back unchanged (the
 * HTML standard §4.12.1.3 "Restrictions for contents of script elements"; the escaping of Rails' `json_escape`).
 */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value).replace(SCRIPT_UNSAFE, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

function prop(f: MapFeature, name: string): string | null {
  const v = f.properties[name];
  return typeof v === "string" && v !== "" ? v : null;
}

function degrees(value: number, positive: string, negative: string): string {
  return `${Math.abs(value).toFixed(2)}° ${value >= 0 ? positive : negative}`;
}

/**
 * The text alternative of the map: the route's ports in order with their roles (POL, TS1…, POD) and, when known, the
 * vessel carrying the box now, its position and when it was reported. Pure.
 */
export function mapDescription(map: ContainerMap): string {
  const ports = map.features
    .filter((f) => f.properties.feature_type === "port")
    .sort((a, b) => Number(a.properties.ports_sequence ?? 0) - Number(b.properties.ports_sequence ?? 0));
  if (ports.length === 0) return "No route data yet.";
  const route = ports
    .map((p) => {
      const label = prop(p, "label");
      return `${prop(p, "name") ?? "Unknown port"}${label ? ` (${label})` : ""}`;
    })
    .join(" → ");
  const sentences = [`Route: ${route}.`];
  const vessel = map.features.find((f) => f.properties.feature_type === "current_vessel");
  if (vessel && vessel.geometry.type === "Point") {
    const [lon, lat] = vessel.geometry.coordinates as [number, number];
    const name = prop(vessel, "vessel_name") ?? "The vessel";
    const voyage = prop(vessel, "voyage_number");
    const at = prop(vessel, "vessel_location_timestamp");
    sentences.push(
      `${name}${voyage ? ` (voyage ${voyage})` : ""} is at ${degrees(lat, "N", "S")}, ${degrees(lon, "E", "W")}` +
        `${at ? `, reported ${formatInstant(at, "UTC")}` : ""}, sailing from ${prop(vessel, "departure_port_name") ?? "its last port"}` +
        ` to ${prop(vessel, "arrival_port_name") ?? "its next port"}.`,
    );
  } else {
    sentences.push("No vessel position for the leg under way.");
  }
  return sentences.join(" ");
}

/** The map section, `id="map"`: the map's element, its data island and its text alternative. */
export function MapSection({ data }: { data: ContainerPageData }) {
  const map = "geojson" in data.map ? data.map.geojson : null;
  return (
    <section id="map" aria-labelledby="map-heading">
      <h2 id="map-heading">Route map</h2>
      {map === null ? (
        <p>{"unavailable" in data.map ? data.map.unavailable : "No map."}</p>
      ) : (
        <>
          <p id="map-description">{mapDescription(map)}</p>
          {map.features.length > 0 ? (
            <>
              <div
                id="container-map"
                class="map"
                data-basemap={`${MAP_VENDOR}/countries-110m.geojson`}
                data-library={`${MAP_VENDOR}/maplibre-gl.mjs`}
                aria-describedby="map-description"
              >
                <p class="map-fallback">The map needs JavaScript and WebGL; the route is described above.</p>
              </div>
              <p class="hint">
                Solid line: legs sailed. Dashed line: legs planned. Ringed dots: ports. Filled dot: the vessel now.
              </p>
              <script type="application/json" id={MAP_DATA_ID}>
                {raw(jsonForScript(map))}
              </script>
            </>
          ) : null}
        </>
      )}
    </section>
  );
}
