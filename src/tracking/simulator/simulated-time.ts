/**
 * The simulator's two time scales (types.ts): real time of a simulated day and back, and LFDs as local midnight on
 * the simulated calendar.
 */
import { wallClockToUtcMs, zoneOffsetMs } from "../../lib/time-zones";
import type { Journey } from "./types";

const DAY_MS = 86_400_000;
const REAL_MS_PER_SIMULATED_DAY_AT_SPEED_1 = 60_000;

/** Real time (ms since the epoch) of simulated day `day` of a journey. */
export function realMsOf(journey: Pick<Journey, "anchorMs" | "speed">, day: number): number {
  return journey.anchorMs + (day * REAL_MS_PER_SIMULATED_DAY_AT_SPEED_1) / journey.speed;
}

/** Simulated day (fractional) of real time `ms` in a journey. */
export function simulatedDayOf(journey: Pick<Journey, "anchorMs" | "speed">, ms: number): number {
  return ((ms - journey.anchorMs) * journey.speed) / REAL_MS_PER_SIMULATED_DAY_AT_SPEED_1;
}

/**
 * Local midnight, `daysAfter` calendar days after the local date of `ms` in `timeZone`, as ms since the epoch
 * (docs/api.md §Timestamps and time zones: LFDs are midnight local expressed in UTC).
 */
function localMidnightAfter(ms: number, daysAfter: number, timeZone: string): number {
  const local = new Date(ms + zoneOffsetMs(ms, timeZone));
  const wall = Date.UTC(local.getUTCFullYear(), local.getUTCMonth(), local.getUTCDate() + daysAfter);
  return wallClockToUtcMs(wall, timeZone);
}

/** The simulated day of the last free day: local midnight `freeDays` simulated-calendar days after `fromDay`. */
export function lfdDayAfter(anchorMs: number, fromDay: number, freeDays: number, timeZone: string): number {
  const midnight = localMidnightAfter(anchorMs + fromDay * DAY_MS, freeDays, timeZone);
  return (midnight - anchorMs) / DAY_MS;
}
