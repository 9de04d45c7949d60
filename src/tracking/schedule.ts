import type { ContainerState, ShipmentState } from "./derive";
import type { ShipmentFacts } from "./sources/types";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** Shortest interval between two polls of one box, whatever the speed-up (ms). */
export const MIN_POLL_INTERVAL_MS = 5_000;

/**
 * How long until a box is polled again (ms), adapted to where it is (docs/architecture.md §Tracking pipeline step 3):
 * rarely mid-ocean, more often as arrival nears, often at the terminal and around the last free day, rarely after
 * pickup, and never after the empty return (null). `speedUp` divides every interval: 1 in production; the simulator's
 * clock runs `SIMULATION_SPEED × 1440` times faster than real time, and polls follow it.
 *
 * | where | interval |
 * |---|---|
 * | on the water, POD ETA more than 3 days away (or unknown) | 12 h |
 * | on the water, ETA within 3 days | 2 h |
 * | on rail, ETA at the inland destination more than a day away | 6 h |
 * | at the POD terminal, on rail (inland ETA within a day or unknown), or at the inland facility | 1 h |
 * | at a facility or on rail within a day of the LFD, or past it | 30 min |
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
      if (untilLfd < DAY) return scaled(30 * MINUTE);
      if (state.currentStatus === "on_rail") {
        // Mid-rail is like mid-ocean: little changes until the train nears the inland destination.
        const eta = state.indEtaAt ? Date.parse(state.indEtaAt) : Number.NaN;
        const untilEta = Number.isNaN(eta) ? 0 : (eta - nowMs) * factor;
        if (untilEta > DAY) return scaled(6 * HOUR);
      }
      return scaled(HOUR);
    }
  }
}

/** Facility codes one poll of a box asks about (see `facilitiesToPoll`); null where none is asked. */
export interface FacilitiesToPoll {
  /** The POD terminal (CBP FIRMS or other facility code). */
  podTerminalCode: string | null;
  /** The inland rail ramp (or inland terminal) of a move with a rail leg. */
  inlandRampCode: string | null;
}

/** Whether the move continues past the POD to an inland destination (the rail leg), as derive.ts decides it. */
export function hasInlandLeg(shipment: Pick<ShipmentFacts, "destinationLocode" | "portOfDischargeLocode">): boolean {
  return Boolean(shipment.destinationLocode && shipment.destinationLocode !== shipment.portOfDischargeLocode);
}

/**
 * Which facilities a poll of a box asks, besides its carrier (docs/architecture.md §Tracking pipeline steps 3–4; issue
 * 3, the rail leg):
 * - no inland leg: the POD terminal, whose answer is the box's availability, holds, fees and LFD;
 * - with an inland (rail) leg, each facility while it has something to say:
 *   - the POD terminal until the box has left it by rail (no rail departure yet, nor any sign of it further on:
 *     inland arrival, rail unloading, full-out inland): discharge, holds and the on-dock rail position
 *     (`pod_last_tracking_request_at`);
 *   - the inland ramp from the discharge at the POD on: the train's progress, unloading, availability, holds and
 *     the rail LFD at the pickup facility (`rail_last_tracking_request_at`). From the discharge rather than from
 *     the first rail milestone, because not every carrier reports rail moves and the ramp must be asked anyway;
 *     between discharge and rail departure both are asked.
 * A facility whose code the carrier has not named yet is not asked. Before anything is known (no facts), nothing
 * is. Pure.
 */
export function facilitiesToPoll(shipment: ShipmentFacts | null, state: ContainerState | null): FacilitiesToPoll {
  if (!shipment) return { podTerminalCode: null, inlandRampCode: null };
  const podTerminalCode = shipment.podTerminalCode ?? null;
  if (!hasInlandLeg(shipment)) return { podTerminalCode, inlandRampCode: null };
  const leftPodByRail = Boolean(
    state?.podRailDepartedAt || state?.indAtaAt || state?.indRailUnloadedAt || state?.finalDestinationFullOutAt,
  );
  const reachedPod = Boolean(state?.podDischargedAt || state?.podRailLoadedAt || leftPodByRail);
  return {
    podTerminalCode: leftPodByRail ? null : podTerminalCode,
    inlandRampCode: reachedPod ? (shipment.destinationTerminalCode ?? null) : null,
  };
}

/** Delay before retrying a box whose sources failed: 1, 2, 4 … minutes, at most 1 hour (ms, before speed-up). */
export function pollRetryDelayMs(consecutiveFailures: number, speedUp = 1): number {
  const base = Math.min(HOUR, MINUTE * 2 ** Math.max(0, consecutiveFailures - 1));
  return Math.max(MIN_POLL_INTERVAL_MS, Math.round(base / (speedUp > 0 ? speedUp : 1)));
}

/**
 * Width of the slots a box's scheduled poll is delivered in (ms, before speed-up), so the boxes due at one terminal
 * meet in one `terminal-polls` batch and are asked about in one request (issue 14 "Batching per terminal"): each
 * box's alarm fires at its own time, spread over its interval, so without slots a batch of the consumer
 * (`max_batch_timeout` of a few seconds) would hold about one box of a terminal. At most 5 min late, a sixth of the
 * shortest scheduled interval (30 min, {@link nextPollDelayMs}).
 */
export const POLL_SLOT_MS = 5 * MINUTE;

/**
 * How long (whole seconds, ≥ 0) to hold a scheduled poll of a box so it is delivered at its terminal's next slot
 * boundary: slots are {@link POLL_SLOT_MS} ÷ `speedUp` wide, shifted per terminal (`facilityCode`, hashed) so
 * different terminals' boxes do not all arrive in the same second; 0 when slots would be shorter than 10 s (the
 * simulator's fast clock) or the box is exactly on a boundary. Pure.
 */
export function pollSlotDelaySeconds(nowMs: number, facilityCode: string | null, speedUp = 1): number {
  const slotS = Math.floor(POLL_SLOT_MS / (speedUp > 0 ? speedUp : 1) / 1000);
  if (slotS < 10) return 0;
  let hash = 2166136261;
  for (const ch of facilityCode ?? "") hash = Math.imul(hash ^ (ch.codePointAt(0) ?? 0), 16777619) >>> 0;
  const offsetS = hash % slotS;
  const nowS = Math.ceil(nowMs / 1000);
  return (((offsetS - nowS) % slotS) + slotS) % slotS;
}
