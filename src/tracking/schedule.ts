import type { ContainerState, ShipmentState } from "./derive";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** Shortest interval between two polls of one box, whatever the speed-up (ms). */
export const MIN_POLL_INTERVAL_MS = 5_000;

/**
 * How long until a box is polled again (ms), adapted to where it is (DESIGN.md §4 step 3): rarely mid-ocean,
 * more often as arrival nears, often at the terminal and around the last free day, rarely after pickup, and
 * never after the empty return (null). `speedUp` divides every interval: 1 in production; the simulator's
 * clock runs `SIMULATION_SPEED × 1440` times faster than real time, and polls follow it.
 *
 * | where | interval |
 * |---|---|
 * | on the water, POD ETA more than 3 days away (or unknown) | 12 h |
 * | on the water, ETA within 3 days | 2 h |
 * | at the POD terminal, on rail, or at the inland facility | 1 h |
 * | at a facility within a day of the LFD, or past it | 30 min |
 * | picked up, waiting for the empty return | 6 h |
 * | empty returned / delivered | stop |
 */
export function nextPollDelayMs(
  state: ContainerState,
  shipment: ShipmentState,
  nowMs: number,
  speedUp = 1,
): number | null {
  const factor = speedUp > 0 ? speedUp : 1;
  const scaled = (ms: number) => Math.max(MIN_POLL_INTERVAL_MS, Math.round(ms / factor));
  switch (state.currentStatus) {
    case "empty_returned":
    case "delivered":
      return null;
    case "picked_up":
      return scaled(6 * HOUR);
    case "new":
    case "on_ship": {
      const eta = shipment.podEtaAt ? Date.parse(shipment.podEtaAt) : Number.NaN;
      const untilEta = Number.isNaN(eta) ? Number.POSITIVE_INFINITY : (eta - nowMs) * factor;
      return scaled(untilEta > 3 * DAY ? 12 * HOUR : 2 * HOUR);
    }
    default: {
      const lfd = state.pickupLfd ? Date.parse(state.pickupLfd) : Number.NaN;
      const untilLfd = Number.isNaN(lfd) ? Number.POSITIVE_INFINITY : (lfd - nowMs) * factor;
      return scaled(untilLfd < DAY ? 30 * MINUTE : HOUR);
    }
  }
}

/** Delay before retrying a box whose sources failed: 1, 2, 4 … minutes, at most 1 hour (ms, before speed-up). */
export function pollRetryDelayMs(consecutiveFailures: number, speedUp = 1): number {
  const base = Math.min(HOUR, MINUTE * 2 ** Math.max(0, consecutiveFailures - 1));
  return Math.max(MIN_POLL_INTERVAL_MS, Math.round(base / (speedUp > 0 ? speedUp : 1)));
}
