// The container page's route map (src/dashboard/container-map.tsx): draws the GeoJSON of
// GET /v2/containers/{id}/map_geojson, embedded in the page as a JSON data island, with MapLibre GL JS on the Natural
// Earth countries that ship with the dashboard (public/app/assets/vendor/, copied by scripts/dashboard-assets.mjs).
// No tiles, glyphs or sprites from anywhere: a style with two local geojson sources and no text labels. The text
// alternative beside the map says what it shows; the map never takes the keyboard focus beyond its own canvas.
const element = document.getElementById("container-map");
const island = document.getElementById("container-map-data");

/** [[west, south], [east, north]] of every coordinate, across the antimeridian when that is the shorter way. */
function boundsOf(collection) {
  const points = [];
  const walk = (c) => (typeof c[0] === "number" ? points.push(c) : c.forEach(walk));
  for (const f of collection.features) walk(f.geometry.coordinates);
  if (points.length === 0) return null;
  const lats = points.map((p) => p[1]);
  const lons = points.map((p) => p[0]);
  const shifted = lons.map((lon) => (lon < 0 ? lon + 360 : lon));
  const span = (list) => Math.max(...list) - Math.min(...list);
  const use = span(shifted) < span(lons) ? shifted : lons;
  return [
    [Math.min(...use), Math.min(...lats)],
    [Math.max(...use), Math.max(...lats)],
  ];
}

const INK = "#0b3d5c";

function styleOf(basemap, route) {
  const type = ["get", "feature_type"];
  return {
    version: 8,
    sources: {
      countries: { type: "geojson", data: basemap, attribution: "Natural Earth" },
      route: { type: "geojson", data: route },
    },
    layers: [
      { id: "sea", type: "background", paint: { "background-color": "#dcebf5" } },
      { id: "land", type: "fill", source: "countries", paint: { "fill-color": "#f6f3ec" } },
      { id: "borders", type: "line", source: "countries", paint: { "line-color": "#b7b0a2", "line-width": 0.5 } },
      {
        id: "legs-planned",
        type: "line",
        source: "route",
        filter: ["in", type, ["literal", ["estimated_full_legs", "estimated_partial_leg"]]],
        paint: { "line-color": INK, "line-width": 2, "line-dasharray": [2, 2] },
      },
      {
        id: "legs-sailed",
        type: "line",
        source: "route",
        filter: ["==", type, "past_vessel_locations"],
        paint: { "line-color": INK, "line-width": 3 },
      },
      {
        id: "ports",
        type: "circle",
        source: "route",
        filter: ["==", type, "port"],
        paint: { "circle-radius": 5, "circle-color": "#ffffff", "circle-stroke-color": INK, "circle-stroke-width": 2 },
      },
      {
        id: "vessel",
        type: "circle",
        source: "route",
        filter: ["==", type, "current_vessel"],
        paint: {
          "circle-radius": 7,
          "circle-color": "#b45309",
          "circle-stroke-color": "#ffffff",
          "circle-stroke-width": 2,
        },
      },
    ],
  };
}

async function draw() {
  const route = JSON.parse(island.textContent ?? "");
  const bounds = boundsOf(route);
  const maplibregl = await import(element.dataset.library);
  const map = new maplibregl.Map({
    container: element,
    style: styleOf(new URL(element.dataset.basemap, location.href).href, route),
    ...(bounds ? { bounds, fitBoundsOptions: { padding: 40, maxZoom: 6 } } : { center: [0, 20], zoom: 1 }),
    attributionControl: { compact: true },
  });
  map.addControl(new maplibregl.NavigationControl({ showCompass: false }));
  map.once("load", () => element.querySelector(".map-fallback")?.remove());
}

if (element && island) {
  draw().catch((err) => {
    // No WebGL, or the library failed to load: the text alternative stays the map.
    console.warn("container map:", err);
  });
}
