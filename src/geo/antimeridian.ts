/**
 * Lines that cross the antimeridian, for GeoJSON (RFC 7946 §3.1.9: "any geometry that crosses the antimeridian SHOULD
 * be represented by cutting it in two such that neither part's representation crosses the antimeridian"). The map
 * (docs/api.md §Container map) writes a Pacific leg as a `MultiLineString` of such parts, so no map draws it across
 * the world; a leg that does not cross stays the reference's `LineString`.
 */

import type { LonLat } from "./geodesy.ts";

/** A GeoJSON line geometry (RFC 7946 §3.1.4, §3.1.5). */
export type LineGeometry =
  | { type: "LineString"; coordinates: LonLat[] }
  | { type: "MultiLineString"; coordinates: LonLat[][] };

/**
 * Cuts a line (longitudes in [−180, 180]) wherever a segment crosses the antimeridian — two consecutive longitudes
 * more than 180° apart — into parts that end and begin exactly on it (at 180 on one side, −180 on the other, at the
 * latitude interpolated there). A segment touching ±180 without crossing is not cut.
 * @returns the parts in order; one part when nothing crosses.
 */
export function splitAtAntimeridian(coordinates: readonly LonLat[]): LonLat[][] {
  const parts: LonLat[][] = [];
  let current: LonLat[] = [];
  for (let i = 0; i < coordinates.length; i++) {
    const p = coordinates[i] as LonLat;
    const prev = coordinates[i - 1];
    if (prev && Math.abs(p[0] - prev[0]) > 180) {
      // Crossing eastwards (179 → −179) or westwards (−179 → 179): the meridian ±180 lies between them.
      const east = prev[0] > 0;
      const prevLon = prev[0];
      const lon = east ? p[0] + 360 : p[0] - 360;
      const edge = east ? 180 : -180;
      const t = (edge - prevLon) / (lon - prevLon);
      const lat = prev[1] + (p[1] - prev[1]) * t;
      if (prevLon !== edge) current.push([edge, lat]);
      if (current.length >= 2) parts.push(current);
      current = p[0] === -edge ? [] : [[-edge, lat]];
    }
    current.push(p);
  }
  if (current.length >= 2) parts.push(current);
  else if (parts.length === 0) parts.push([...coordinates]);
  return parts;
}

/** The GeoJSON geometry of a line: a `LineString`, or a `MultiLineString` when it crosses the antimeridian. */
export function lineGeometry(coordinates: readonly LonLat[]): LineGeometry {
  const parts = splitAtAntimeridian(coordinates);
  return parts.length === 1
    ? { type: "LineString", coordinates: parts[0] as LonLat[] }
    : { type: "MultiLineString", coordinates: parts };
}
