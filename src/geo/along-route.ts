/**
 * Positions along a sea route (src/geo/sea-route.ts) at a given speed: where a vessel is after sailing some distance,
 * heading along the track, and the minute-by-minute predicted track of docs/api.md §Future positions.
 */

import { bearingDegrees, between, distanceNm, type LonLat } from "./geodesy.ts";

/** A position on a route and the direction of travel there (degrees from true north, [0, 360)). */
export interface RoutePoint {
  position: LonLat;
  headingDegrees: number;
}

/** One predicted position: where and when (ms since the epoch), heading along the track. */
export interface TrackPoint extends RoutePoint {
  timestampMs: number;
}

/**
 * Walks a route by increasing distance: the cumulative distances are computed once, and successive calls with
 * non-decreasing distances cost O(1) each (a predicted track asks for tens of thousands of them).
 */
export class RouteWalker {
  private readonly coordinates: readonly LonLat[];
  private readonly cumulative: number[];
  private segment = 0;
  /** Total length of the route, nautical miles. */
  readonly lengthNm: number;

  /** @param coordinates the route's positions in travel order (at least one). */
  constructor(coordinates: readonly LonLat[]) {
    this.coordinates = coordinates;
    if (coordinates.length === 0) throw new RangeError("a route needs at least one position");
    this.cumulative = [0];
    for (let i = 1; i < coordinates.length; i++) {
      const prev = this.cumulative[i - 1] as number;
      this.cumulative.push(prev + distanceNm(coordinates[i - 1] as LonLat, coordinates[i] as LonLat));
    }
    this.lengthNm = this.cumulative[this.cumulative.length - 1] as number;
  }

  /**
   * The point `distance` nautical miles from the start (clamped to [0, length]); its heading is that of the segment it
   * lies on (the last segment's at the end). Calls with a smaller distance than the previous one restart the walk.
   */
  at(distance: number): RoutePoint {
    const c = this.coordinates;
    if (c.length === 1) return { position: [...(c[0] as LonLat)], headingDegrees: 0 };
    const d = Math.min(Math.max(distance, 0), this.lengthNm);
    if (d < (this.cumulative[this.segment] as number)) this.segment = 0;
    // Segment i runs from c[i] to c[i + 1]; skip zero-length and passed ones.
    while (this.segment < c.length - 2 && (this.cumulative[this.segment + 1] as number) <= d) this.segment++;
    const i = this.segment;
    const start = this.cumulative[i] as number;
    const span = (this.cumulative[i + 1] as number) - start;
    const a = c[i] as LonLat;
    const b = c[i + 1] as LonLat;
    const fraction = span > 0 ? (d - start) / span : 1;
    return { position: between(a, b, fraction), headingDegrees: Math.round(bearingDegrees(a, b)) % 360 };
  }
}

/** Options of {@link predictedTrack}. */
export interface PredictedTrackOptions {
  /** Time between points, ms (the reference's one minute: 60 000). */
  stepMs: number;
  /** Most points returned; the track stops there even short of the destination. */
  maxPoints: number;
}

/**
 * The predicted track of a vessel sailing `coordinates` from `startMs` at `speedKnots` (> 0): one point every
 * `stepMs`, the first at the start, each `speedKnots × step` further along the route, the last at the destination
 * (at the first step on or after the arrival), unless `maxPoints` cuts it short.
 * @returns the points, and whether they reach the destination.
 * @throws RangeError for a speed that is not a positive finite number.
 */
export function predictedTrack(
  coordinates: readonly LonLat[],
  startMs: number,
  speedKnots: number,
  options: PredictedTrackOptions,
): { points: TrackPoint[]; complete: boolean } {
  if (!(speedKnots > 0) || !Number.isFinite(speedKnots)) throw new RangeError(`not a speed: ${speedKnots}`);
  const walker = new RouteWalker(coordinates);
  const nmPerStep = (speedKnots * options.stepMs) / 3_600_000;
  const points: TrackPoint[] = [];
  for (let k = 0; k < options.maxPoints; k++) {
    const distance = k * nmPerStep;
    const point = walker.at(distance);
    points.push({ ...point, timestampMs: startMs + k * options.stepMs });
    if (distance >= walker.lengthNm) return { points, complete: true };
  }
  return { points, complete: false };
}
