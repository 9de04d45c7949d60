// What bench/capacity/index.mjs runs in Node, bundled by esbuild (the Worker's modules use extensionless imports):
// production's poll schedule for a simulated box, replayed at real time. Not part of the Worker.
import { deriveContainerState, deriveShipmentState } from "../../src/tracking/derive";
import { facilitiesToPoll, nextPollDelayMs } from "../../src/tracking/schedule";
import { planJourney } from "../../src/tracking/simulator/plan";
import { journeyAt, terminalAt } from "../../src/tracking/simulator/state";

const DAY_MS = 86_400_000;

/** One box's journey as production would poll it. */
export interface ProductionSchedule {
  /** Polls from the first (tracking starts) to the one that sees the box stopped (empty returned / delivered). */
  polls: number;
  /** Simulated days from the start of tracking to that last poll. */
  days: number;
  /** Polls by the box's status when they were scheduled. */
  byStatus: Record<string, number>;
}

/**
 * Replays a simulated box (`scac`, container `number`) at speed-up 1 (`SIMULATION_SPEED` = 1/1440 day per minute:
 * simulated time is real time), as the Tracker polls it: each poll takes the carrier's facts and the facilities
 * `facilitiesToPoll` names, derives the state (derive.ts) and waits `nextPollDelayMs` (schedule.ts), until the
 * schedule says stop or `maxDays` passed. Terminal slots (at most 5 min late) and failures are not modelled.
 */
export function productionSchedule(scac: string, number: string, maxDays = 365): ProductionSchedule {
  const anchorMs = Date.parse("2026-01-05T00:00:00Z");
  const journey = planJourney({ scac, number, requestType: "container", speed: 1 / 1440, anchorMs });
  const byStatus: Record<string, number> = {};
  let t = anchorMs;
  let polls = 0;
  let lastTerminal = null as ReturnType<typeof terminalAt>;
  let lastPod = null as ReturnType<typeof terminalAt>;
  let state = null as ReturnType<typeof deriveContainerState> | null;
  for (;;) {
    polls += 1;
    const facts = journeyAt(journey, t).facts;
    const container = facts.containers.find((c) => c.number === number) ?? facts.containers[0];
    if (!container) throw new Error(`simulator: no container in the journey of ${number}`);
    const asked = facilitiesToPoll(facts, state);
    if (asked.inlandRampCode) lastTerminal = terminalAt(journey, number, asked.inlandRampCode, t) ?? lastTerminal;
    if (asked.podTerminalCode) {
      const obs = terminalAt(journey, number, asked.podTerminalCode, t);
      if (asked.inlandRampCode || facts.destinationTerminalCode) lastPod = obs ?? lastPod;
      else lastTerminal = obs ?? lastTerminal;
    }
    state = deriveContainerState(facts, container, lastTerminal, { deliveredAt: null }, lastPod);
    const shipment = deriveShipmentState(facts);
    byStatus[state.currentStatus] = (byStatus[state.currentStatus] ?? 0) + 1;
    const delay = nextPollDelayMs(state, shipment, t, 1);
    if (delay === null || t - anchorMs > maxDays * DAY_MS) break;
    t += delay;
  }
  return { polls, days: (t - anchorMs) / DAY_MS, byStatus };
}
