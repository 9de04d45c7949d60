import { describe, expect, it } from "vitest";
import {
  type ContainerState,
  deriveContainerState,
  deriveShipmentState,
  type ShipmentState,
} from "../../src/tracking/derive";
import { MIN_POLL_INTERVAL_MS, nextPollDelayMs, pollRetryDelayMs } from "../../src/tracking/schedule";
import type { CurrentStatus } from "../../src/tracking/status";
import { containerFacts, DAY_MS, HOUR_MS, iso, MINUTE_MS, shipmentFacts } from "../helpers/facts";

// The adaptive poll schedule (docs/architecture.md §Tracking pipeline step 3): rarely mid-ocean, often near arrival and
// the LFD, never after the empty return; every interval divided by the box's speed-up.

const NOW = Date.UTC(2025, 5, 1, 12, 0, 0);
const box = containerFacts("TSTU9000001");
const BASE_STATE = deriveContainerState(shipmentFacts([box]), box, null, { deliveredAt: null });
const BASE_SHIPMENT = deriveShipmentState(shipmentFacts([box]));

function state(currentStatus: CurrentStatus, pickupLfdInMs: number | null = null): ContainerState {
  return { ...BASE_STATE, currentStatus, pickupLfd: pickupLfdInMs === null ? null : iso(NOW + pickupLfdInMs) };
}
function shipment(etaInMs: number | null): ShipmentState {
  return { ...BASE_SHIPMENT, podEtaAt: etaInMs === null ? null : iso(NOW + etaInMs) };
}

describe("nextPollDelayMs: the band a box is in", () => {
  it.each([
    ["on the water, ETA unknown", "on_ship", null, 12 * HOUR_MS],
    ["on the water, ETA in 10 days", "on_ship", 10 * DAY_MS, 12 * HOUR_MS],
    ["not yet loaded, ETA in 4 days", "new", 4 * DAY_MS, 12 * HOUR_MS],
    ["on the water, ETA in 2 days", "on_ship", 2 * DAY_MS, 2 * HOUR_MS],
    ["on the water, ETA just passed (vessel late)", "on_ship", -HOUR_MS, 2 * HOUR_MS],
  ] as const)("%s", (_why, status, eta, expected) => {
    expect(nextPollDelayMs(state(status), shipment(eta), NOW)).toBe(expected);
  });

  it.each(["grounded", "available", "not_available", "awaiting_inland_transfer", "on_rail", "off_dock"] as const)(
    "%s: 1 h with the LFD days away or unknown, 30 min within a day of it or past it",
    (status) => {
      expect(nextPollDelayMs(state(status, null), shipment(null), NOW)).toBe(HOUR_MS);
      expect(nextPollDelayMs(state(status, 3 * DAY_MS), shipment(null), NOW)).toBe(HOUR_MS);
      expect(nextPollDelayMs(state(status, 20 * HOUR_MS), shipment(null), NOW)).toBe(30 * MINUTE_MS);
      expect(nextPollDelayMs(state(status, -2 * DAY_MS), shipment(null), NOW)).toBe(30 * MINUTE_MS);
    },
  );

  it("picked up: 6 h until the empty return; empty returned or delivered: never again", () => {
    expect(nextPollDelayMs(state("picked_up"), shipment(null), NOW)).toBe(6 * HOUR_MS);
    expect(nextPollDelayMs(state("empty_returned"), shipment(null), NOW)).toBeNull();
    expect(nextPollDelayMs(state("delivered"), shipment(null), NOW)).toBeNull();
  });
});

describe("nextPollDelayMs: speed-up", () => {
  const SIM = 1440; // one simulated day per real minute

  it("divides every interval, never below the floor", () => {
    expect(nextPollDelayMs(state("on_ship"), shipment(null), NOW, SIM)).toBe((12 * HOUR_MS) / SIM);
    expect(nextPollDelayMs(state("picked_up"), shipment(null), NOW, SIM)).toBe((6 * HOUR_MS) / SIM);
    expect(nextPollDelayMs(state("available"), shipment(null), NOW, SIM)).toBe(MIN_POLL_INTERVAL_MS);
    expect(nextPollDelayMs(state("available"), shipment(null), NOW, 2)).toBe(HOUR_MS / 2);
  });

  it("measures the ETA and LFD windows in simulated time", () => {
    // 2 real minutes = 2 simulated days: within 3 days → 2 h simulated → floored at 5 s.
    expect(nextPollDelayMs(state("on_ship"), shipment(2 * MINUTE_MS), NOW, SIM)).toBe(MIN_POLL_INTERVAL_MS);
    // 4 real minutes = 4 simulated days: still 12 h simulated = 30 s real.
    expect(nextPollDelayMs(state("on_ship"), shipment(4 * MINUTE_MS), NOW, SIM)).toBe(30_000);
    // At speed 24 (an hour a day): LFD 50 real min away = 20 simulated h → 30 min / 24; 2 real h → 1 h / 24.
    expect(nextPollDelayMs(state("available", 50 * MINUTE_MS), shipment(null), NOW, 24)).toBe((30 * MINUTE_MS) / 24);
    expect(nextPollDelayMs(state("available", 2 * HOUR_MS), shipment(null), NOW, 24)).toBe(HOUR_MS / 24);
  });

  it("treats a speed-up that is not positive as real time", () => {
    expect(nextPollDelayMs(state("on_ship"), shipment(null), NOW, 0)).toBe(12 * HOUR_MS);
    expect(nextPollDelayMs(state("on_ship"), shipment(null), NOW, -5)).toBe(12 * HOUR_MS);
  });
});

describe("pollRetryDelayMs: backoff after failed polls", () => {
  it("1, 2, 4, 8 … minutes, at most an hour", () => {
    expect([1, 2, 3, 4, 5, 6, 7, 12].map((n) => pollRetryDelayMs(n))).toEqual(
      [1, 2, 4, 8, 16, 32, 60, 60].map((m) => m * MINUTE_MS),
    );
    expect(pollRetryDelayMs(0)).toBe(MINUTE_MS);
  });

  it("is always sooner than the normal interval on the water", () => {
    for (let n = 1; n <= 20; n++) expect(pollRetryDelayMs(n)).toBeLessThan(12 * HOUR_MS);
  });

  it("follows the speed-up, never below the floor", () => {
    expect(pollRetryDelayMs(7, 60)).toBe(MINUTE_MS);
    expect(pollRetryDelayMs(7, 1440)).toBe(MIN_POLL_INTERVAL_MS);
    expect(pollRetryDelayMs(1, 1440)).toBe(MIN_POLL_INTERVAL_MS);
    expect(pollRetryDelayMs(1, 0)).toBe(MINUTE_MS);
  });
});
