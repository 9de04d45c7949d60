import { describe, expect, it } from "vitest";
import { nextPollDelayMs, pollRetryDelayMs } from "../../src/tracking/schedule";
import type { CarrierSource, TerminalSource } from "../../src/tracking/sources/types";
import {
  type BoxIdentity,
  facilityAttempt,
  newSnapshot,
  notApplied,
  type PollResults,
  PUSH_POLL_INTERVAL_FACTOR,
  pollPlanOf,
  pollTransition,
  queuedSourceNames,
  rescheduleTransition,
  type TrackerSnapshot,
  trackerName,
  unsubscribeTransition,
  updateTransition,
} from "../../src/tracking/tracker-state";
import { containerFacts, DAY_MS, HOUR_MS, iso, milestone, observation, shipmentFacts } from "../helpers/facts";

// The Tracker's pure transitions (src/tracking/tracker-state.ts): what a poll's answers, an update and a reschedule do
// to a box's snapshot, with plain inputs (the Durable Object around them is tested in test/tracking/tracker.test.ts).

const BOX = "TSTU9000001";
const T0 = Date.parse("2025-03-10T12:00:00Z");
const box: BoxIdentity = {
  trackedEquipmentId: "te-1",
  scac: "TEST",
  number: BOX,
  shipmentNumber: "TESTBL1",
  requestType: "bill_of_lading",
};
const sub = (n: number) => ({ accountId: `acct-${n}`, containerId: `ctr-${n}`, shipmentId: `shp-${n}` });

const departed = () =>
  shipmentFacts([containerFacts(BOX, [milestone("container.transport.vessel_departed", iso(T0 - DAY_MS), "CNYTN")])], {
    podEtaAt: iso(T0 + 10 * DAY_MS),
  });

/** A snapshot that has applied `departed()` at T0 - 1 h, with one subscriber. */
function tracked(extra: Partial<TrackerSnapshot> = {}): TrackerSnapshot {
  const start = { ...newSnapshot(box, T0 - DAY_MS), subscriptions: [sub(1)] };
  const shipment = departed();
  const container = shipment.containers[0];
  if (!container) throw new Error("fixture without a container");
  const t = updateTransition(start, {
    carrier: { shipment, container },
    terminal: null,
    nowMs: T0 - HOUR_MS,
    joining: [],
    carrierChecked: true,
    terminalChecked: false,
    partialFailure: false,
    speedUp: 1,
  });
  if (!t) throw new Error("fixture did not apply");
  return { ...t.next, ...extra };
}

const poll = (extra: Partial<PollResults>): PollResults => ({
  carrier: null,
  terminal: null,
  polledAtMs: T0,
  ...extra,
});

describe("trackerName / newSnapshot / notApplied", () => {
  it("names one Tracker per SCAC and container number", () => {
    expect(trackerName("TEST", BOX)).toBe(`TEST:${BOX}`);
  });

  it("starts a box with nothing known and not stopped", () => {
    const snap = newSnapshot(box, T0);
    expect(snap).toMatchObject({ box, startedAtMs: T0, subscriptions: [], state: null, stopped: false });
    expect(notApplied(snap, null)).toEqual({ applied: false, events: [], currentStatus: null, nextPollAt: null });
  });
});

describe("pollPlanOf", () => {
  it("asks the POD terminal of a direct move, with the BL of a BL request", () => {
    expect(pollPlanOf(tracked())).toMatchObject({
      number: BOX,
      facilityCode: "Y257",
      railFacilityCode: null,
      trackingStartedAtMs: T0 - DAY_MS,
      billOfLadingNumber: "TESTBL1",
    });
  });

  it("gives a container request the BL its carrier reported, unless it is the number itself", () => {
    const asContainer = { ...box, requestType: "container", shipmentNumber: BOX };
    expect(pollPlanOf(tracked({ box: asContainer })).billOfLadingNumber).toBe("FAKEBL");
    const self = tracked({ box: asContainer, shipment: { ...departed(), billOfLadingNumber: BOX.toLowerCase() } });
    expect(pollPlanOf(self).billOfLadingNumber).toBeNull();
    expect(pollPlanOf(tracked({ box: { ...box, requestType: "booking_number" } })).billOfLadingNumber).toBeNull();
  });
});

describe("queuedSourceNames", () => {
  const carrier: CarrierSource = {
    name: "Shipping line",
    supports: (scac) => scac === "TEST",
    lookup: async () => ({ kind: "not_found" }),
  };
  const terminal: TerminalSource = {
    name: "Terminal",
    supports: (code) => code === "Y257",
    poll: async () => ({ kind: "not_found" }),
  };

  it("names each source asked once, carrier first, and leaves out facilities no source serves", () => {
    const registry = { carriers: [carrier], terminals: [terminal] };
    expect(queuedSourceNames({ scac: "TEST", facilityCode: "Y257", railFacilityCode: "Y257" }, registry)).toEqual([
      "Shipping line",
      "Terminal",
    ]);
    expect(queuedSourceNames({ scac: "OTHR", facilityCode: "W185", railFacilityCode: null }, registry)).toEqual([]);
  });
});

describe("facilityAttempt", () => {
  const now = iso(T0);

  it("records nothing for a facility not asked, or when a newer attempt is recorded", () => {
    expect(facilityAttempt(null, "2025-03-09T00:00:00Z", "terminal_unreachable", now)).toEqual({
      attemptedAt: "2025-03-09T00:00:00Z",
      failedReason: "terminal_unreachable",
      changed: null,
    });
    expect(facilityAttempt({ kind: "not_found" }, iso(T0 + 1000), null, now).changed).toBeNull();
  });

  it("keeps a temporary failure's reason, clears it on an answer, and says whether it changed", () => {
    const down = { kind: "temporary_failure", reason: "terminal_unreachable" } as const;
    expect(facilityAttempt(down, null, null, now)).toEqual({
      attemptedAt: now,
      failedReason: "terminal_unreachable",
      changed: true,
    });
    expect(facilityAttempt(down, null, "terminal_unreachable", now).changed).toBe(false);
    expect(facilityAttempt({ kind: "not_found" }, null, "terminal_unreachable", now)).toEqual({
      attemptedAt: now,
      failedReason: null,
      changed: true,
    });
  });
});

describe("pollTransition", () => {
  it("applies the carrier's facts of this box and records the attempt", () => {
    const { outageChanges, next } = pollTransition(
      tracked(),
      poll({ carrier: { kind: "found", shipment: departed() } }),
    );
    expect(next).toMatchObject({ kind: "update", carrierChecked: true, terminalChecked: false, partialFailure: false });
    if (next.kind !== "update") throw new Error(next.kind);
    expect(next.carrier?.container.number).toBe(BOX);
    expect(next.snap).toMatchObject({ carrierAttemptedAt: iso(T0), carrierFailedReason: null });
    expect(outageChanges[0]).toEqual({
      source: { sourceType: "shipping_line", sourceCode: "TEST" },
      attempted: true,
      before: null,
      after: null,
    });
  });

  it("applies nothing from answers to a poll older than the facts kept", () => {
    const snap = tracked({ carrierFactsAtMs: T0 + 1 });
    expect(pollTransition(snap, poll({ carrier: { kind: "found", shipment: departed() } })).next).toEqual({
      kind: "stale",
    });
  });

  it("reschedules a carrier failure as failed, the reason recorded and changed once", () => {
    const down = { kind: "temporary_failure", reason: "shipping_line_unreachable" } as const;
    const first = pollTransition(tracked(), poll({ carrier: down }));
    expect(first.next).toMatchObject({
      kind: "reschedule",
      failed: true,
      lineAttemptChanged: true,
      facilityAttemptChanged: null,
      snap: { carrierAttemptedAt: iso(T0), carrierFailedReason: "shipping_line_unreachable" },
    });
    expect(first.outageChanges[0]).toMatchObject({ attempted: true, before: null, after: "shipping_line_unreachable" });
    const again = pollTransition(
      tracked({ carrierFailedReason: "shipping_line_unreachable" }),
      poll({ carrier: down }),
    );
    expect(again.next).toMatchObject({ kind: "reschedule", failed: true, lineAttemptChanged: false });
  });

  it("fails a poll whose carrier answer lacks this box, but not one where the carrier does not know it", () => {
    const without = shipmentFacts([containerFacts("TSTU9000002")]);
    expect(pollTransition(tracked(), poll({ carrier: { kind: "found", shipment: without } })).next).toMatchObject({
      kind: "reschedule",
      failed: true,
    });
    expect(pollTransition(tracked(), poll({ carrier: { kind: "not_found" } })).next).toMatchObject({
      kind: "reschedule",
      failed: false,
    });
  });

  it("counts a terminal's not-found as a check without facts", () => {
    const { next } = pollTransition(tracked(), poll({ terminal: { kind: "not_found" } }));
    expect(next).toMatchObject({
      kind: "reschedule",
      failed: false,
      lineAttemptChanged: null,
      facilityAttemptChanged: false,
      snap: { terminalCheckedAt: iso(T0), terminalAttemptedAt: iso(T0), terminalFailedReason: null },
    });
  });

  it("on a rail move, takes the ramp as the pickup facility and keeps the POD terminal's answer apart", () => {
    const rail = { ...departed(), destinationLocode: "USCHI", destinationTerminalCode: "USCHIBNSF" };
    const pod = observation(iso(T0), { dischargedAt: iso(T0 - HOUR_MS) });
    const ramp = observation(iso(T0), { availabilityKnown: true, availableForPickup: false });
    const { next } = pollTransition(
      tracked({ shipment: rail }),
      poll({ terminal: { kind: "found", observation: pod }, rail: { kind: "found", observation: ramp } }),
    );
    expect(next).toMatchObject({ kind: "update", carrier: null, terminal: ramp, terminalChecked: true });
    if (next.kind !== "update") throw new Error(next.kind);
    expect(next.snap).toMatchObject({ podTerminal: pod, podTerminalFactsAtMs: T0, railCheckedAt: iso(T0) });
  });

  it("keeps the carrier attempt recorded when a newer one is", () => {
    const later = iso(T0 + HOUR_MS);
    const { next, outageChanges } = pollTransition(
      tracked({ carrierAttemptedAt: later }),
      poll({ carrier: { kind: "temporary_failure", reason: "shipping_line_unreachable" } }),
    );
    expect(next).toMatchObject({ kind: "reschedule", lineAttemptChanged: null, snap: { carrierAttemptedAt: later } });
    expect(outageChanges[0]?.attempted).toBe(false);
  });
});

describe("updateTransition", () => {
  const input = {
    carrier: null,
    terminal: null,
    nowMs: T0,
    joining: [],
    carrierChecked: false,
    terminalChecked: false,
    partialFailure: false,
    speedUp: 1,
  };

  it("has nothing to derive from before the carrier found the box", () => {
    expect(updateTransition(newSnapshot(box, T0), input)).toBeNull();
  });

  it("derives the state, the new events and the next poll, and records what it applied", () => {
    const shipment = departed();
    const container = shipment.containers[0];
    if (!container) throw new Error("fixture without a container");
    const t = updateTransition(
      { ...newSnapshot(box, T0), subscriptions: [sub(1)] },
      {
        ...input,
        carrier: { shipment, container },
        carrierChecked: true,
      },
    );
    if (!t) throw new Error("not applied");
    expect(t.state.currentStatus).toBe("on_ship");
    expect(t.events.map((e) => (e.kind === "transport_event" ? e.event : e.kind))).toContain(
      "container.transport.vessel_departed",
    );
    expect(t.historyEvents).toEqual([]);
    const delay = nextPollDelayMs(t.state, t.shipmentState, T0, 1);
    expect(t.delayMs).toBe(delay);
    expect(t.next).toMatchObject({
      carrierCheckedAt: iso(T0),
      carrierFactsAtMs: T0,
      consecutiveFailures: 0,
      nextPollAt: iso(T0 + (delay ?? 0)),
    });
  });

  it("gives nothing new on the same facts, and a joining row the whole history", () => {
    const same = updateTransition(tracked(), input);
    expect(same?.events).toEqual([]);
    const joined = updateTransition(tracked(), { ...input, joining: [sub(2)] });
    expect(joined?.historyEvents.length).toBeGreaterThan(0);
    expect(joined?.next.subscriptions).toEqual([sub(1), sub(2)]);
  });

  it("retries sooner after a partial failure, and polls less often under a push subscription", () => {
    const retry = updateTransition(tracked({ consecutiveFailures: 2 }), { ...input, partialFailure: true });
    expect(retry?.delayMs).toBe(pollRetryDelayMs(3, 1));
    expect(retry?.next.consecutiveFailures).toBe(3);
    const plain = updateTransition(tracked(), input)?.delayMs ?? 0;
    expect(updateTransition(tracked({ pushSubscribed: true }), input)?.delayMs).toBe(plain * PUSH_POLL_INTERVAL_FACTOR);
  });
});

describe("rescheduleTransition", () => {
  it("backs off by consecutive failures, and resets them on a poll that did not fail", () => {
    const failed = rescheduleTransition(tracked({ consecutiveFailures: 1 }), T0, true, 1);
    expect(failed.delayMs).toBe(pollRetryDelayMs(2, 1));
    expect(failed.next).toMatchObject({ consecutiveFailures: 2, nextPollAt: iso(T0 + pollRetryDelayMs(2, 1)) });
    expect(rescheduleTransition(tracked({ consecutiveFailures: 3 }), T0, false, 1).next.consecutiveFailures).toBe(0);
  });

  it("polls by the state's interval (spaced under a push subscription), or as a first retry without a state", () => {
    const plain = rescheduleTransition(tracked(), T0, false, 1).delayMs ?? 0;
    expect(rescheduleTransition(tracked({ pushSubscribed: true }), T0, false, 1).delayMs).toBe(
      plain * PUSH_POLL_INTERVAL_FACTOR,
    );
    expect(rescheduleTransition(newSnapshot(box, T0), T0, false, 1).delayMs).toBe(pollRetryDelayMs(1, 1));
  });
});

describe("unsubscribeTransition", () => {
  it("drops the row, and stops the box when none is left", () => {
    const two = tracked({ subscriptions: [sub(1), sub(2)] });
    const one = unsubscribeTransition(two, "ctr-1");
    expect(one).toMatchObject({ subscriptions: [sub(2)], stopped: false, nextPollAt: two.nextPollAt });
    expect(unsubscribeTransition(one, "ctr-2")).toMatchObject({ subscriptions: [], stopped: true, nextPollAt: null });
  });
});
