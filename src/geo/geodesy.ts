/**
 * Small spherical-earth formulas the sea routes and predicted tracks use: great-circle distance, initial bearing,
 * a point between two others, longitude normalisation. WGS84 degrees in, mean earth radius (6 371 008.8 m, IUGG), so
 * distances are within ~0.5 % of the ellipsoid's — what a map and a minute-by-minute estimate need.
 */

/** A position as GeoJSON writes it (RFC 7946 §3.1.1): `[longitude, latitude]` in WGS84 degrees. */
export type LonLat = [number, number];

/** Mean earth radius in nautical miles (6 371 008.8 m / 1 852 m). */
const EARTH_RADIUS_NM = 6_371_008.8 / 1_852;

const rad = (deg: number) => (deg * Math.PI) / 180;
const deg = (r: number) => (r * 180) / Math.PI;

/** Longitude brought into [−180, 180) … except that 180 stays 180 (both name the antimeridian). */
export function normalizeLongitude(lon: number): number {
  if (lon >= -180 && lon <= 180) return lon;
  return ((((lon + 180) % 360) + 360) % 360) - 180;
}

/** Great-circle (haversine) distance between two positions, in nautical miles. */
export function distanceNm(a: LonLat, b: LonLat): number {
  const dLat = rad(b[1] - a[1]);
  const dLon = rad(b[0] - a[0]);
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(rad(a[1])) * Math.cos(rad(b[1])) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS_NM * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** Initial bearing from `a` towards `b`, degrees clockwise from true north in [0, 360); 0 when they coincide. */
export function bearingDegrees(a: LonLat, b: LonLat): number {
  const φ1 = rad(a[1]);
  const φ2 = rad(b[1]);
  const Δλ = rad(b[0] - a[0]);
  const y = Math.sin(Δλ) * Math.cos(φ2);
  const x = Math.cos(φ1) * Math.sin(φ2) - Math.sin(φ1) * Math.cos(φ2) * Math.cos(Δλ);
  if (x === 0 && y === 0) return 0;
  return (deg(Math.atan2(y, x)) + 360) % 360;
}

/**
 * The point a `fraction` (0–1) of the way from `a` to `b` along the great circle (the same distance
 * {@link distanceNm} measures, so points a fixed distance apart stay exactly that far apart); longitude in [−180, 180].
 */
export function between(a: LonLat, b: LonLat, fraction: number): LonLat {
  const φ1 = rad(a[1]);
  const λ1 = rad(a[0]);
  const φ2 = rad(b[1]);
  const λ2 = rad(b[0]);
  const h = Math.sin((φ2 - φ1) / 2) ** 2 + Math.cos(φ1) * Math.cos(φ2) * Math.sin((λ2 - λ1) / 2) ** 2;
  const δ = 2 * Math.asin(Math.min(1, Math.sqrt(h)));
  if (δ === 0) return [a[0], a[1]];
  if (fraction <= 0) return [a[0], a[1]];
  if (fraction >= 1) return [b[0], b[1]];
  const A = Math.sin((1 - fraction) * δ) / Math.sin(δ);
  const B = Math.sin(fraction * δ) / Math.sin(δ);
  const x = A * Math.cos(φ1) * Math.cos(λ1) + B * Math.cos(φ2) * Math.cos(λ2);
  const y = A * Math.cos(φ1) * Math.sin(λ1) + B * Math.cos(φ2) * Math.sin(λ2);
  const z = A * Math.sin(φ1) + B * Math.sin(φ2);
  return [normalizeLongitude(deg(Math.atan2(y, x))), deg(Math.atan2(z, Math.sqrt(x * x + y * y)))];
}
