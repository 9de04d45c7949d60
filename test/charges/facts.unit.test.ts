import { describe, expect, it } from "vitest";
import { blockedSpansOf, boxChargeFactsOf, type ContainerChargeRow } from "../../src/charges/facts";

// What tracking keeps turned into spans the box could not be picked up (docs/charges.md §Days the box could not be
// picked up): availability changes are transport events, holds only a current list.

const ROW: ContainerChargeRow = {
  id: "c",
  number: "MSCU1234566",
  scac: "MSCU",
  podLocode: "USLAX",
  podTerminalId: null,
  equipmentLength: 40,
  equipmentType: "dry",
  podTimezone: "America/Los_Angeles",
  podDischargedAt: "2026-11-05T18:00:00Z",
  availabilityKnown: true,
  availableForPickup: true,
  holdsAtPodTerminal: [],
  terminalCheckedAt: "2026-11-10T12:00:00Z",
  podFullOutAt: null,
  emptyTerminatedAt: null,
  pickupLfdTerminal: null,
};
const available = (timestamp: string) => ({ event: "container.transport.available", timestamp });
const notAvailable = (timestamp: string) => ({ event: "container.transport.not_available", timestamp });

describe("blockedSpansOf", () => {
  it("blocks from discharge to a first availability, then each not-available span", () => {
    expect(
      blockedSpansOf(ROW, [
        notAvailable("2026-11-08T10:00:00Z"),
        available("2026-11-06T10:00:00Z"),
        available("2026-11-09T10:00:00Z"),
      ]),
    ).toEqual({
      availableAt: "2026-11-06T10:00:00Z",
      blocked: [
        { from: "2026-11-05T18:00:00Z", to: "2026-11-06T10:00:00Z", reason: "not yet available for pickup" },
        { from: "2026-11-08T10:00:00Z", to: "2026-11-09T10:00:00Z", reason: "not available for pickup (terminal)" },
      ],
    });
  });

  it("reads a first not-available change as: available since discharge until then", () => {
    expect(blockedSpansOf({ ...ROW, availableForPickup: false }, [notAvailable("2026-11-08T10:00:00Z")])).toEqual({
      availableAt: "2026-11-05T18:00:00Z",
      blocked: [{ from: "2026-11-08T10:00:00Z", to: null, reason: "not available for pickup (terminal)" }],
    });
  });

  it("without changes, the current availability stands since discharge; unknown blocks nothing", () => {
    expect(blockedSpansOf(ROW, [])).toEqual({ availableAt: "2026-11-05T18:00:00Z", blocked: [] });
    expect(blockedSpansOf({ ...ROW, availableForPickup: false }, [])).toEqual({
      availableAt: null,
      blocked: [{ from: "2026-11-05T18:00:00Z", to: null, reason: "not available for pickup (terminal)" }],
    });
    expect(blockedSpansOf({ ...ROW, availabilityKnown: false, availableForPickup: null }, [])).toEqual({
      availableAt: null,
      blocked: [],
    });
    expect(blockedSpansOf({ ...ROW, podDischargedAt: null }, [available("2026-11-06T10:00:00Z")])).toEqual({
      availableAt: null,
      blocked: [],
    });
  });

  it("names active holds on the open span, or blocks from the check that saw them; pending holds and boxes out do not", () => {
    const customs = { name: "customs" as const, status: "hold" as const, description: null };
    const pending = { name: "freight" as const, status: "pending" as const, description: null };
    expect(
      blockedSpansOf({ ...ROW, availableForPickup: false, holdsAtPodTerminal: [customs, pending] }, [
        available("2026-11-06T10:00:00Z"),
        notAvailable("2026-11-08T10:00:00Z"),
      ]).blocked.at(-1),
    ).toEqual({ from: "2026-11-08T10:00:00Z", to: null, reason: "not available for pickup (terminal); hold: customs" });
    expect(blockedSpansOf({ ...ROW, holdsAtPodTerminal: [customs] }, []).blocked).toEqual([
      { from: "2026-11-10T12:00:00Z", to: null, reason: "hold: customs" },
    ]);
    expect(blockedSpansOf({ ...ROW, holdsAtPodTerminal: [pending] }, []).blocked).toEqual([]);
    expect(
      blockedSpansOf({ ...ROW, holdsAtPodTerminal: [customs], podFullOutAt: "2026-11-11T00:00:00Z" }, []).blocked,
    ).toEqual([]);
  });
});

describe("boxChargeFactsOf", () => {
  it("reads the terminal's LFD, served as a datetime (local midnight at the POD), as its local date there", () => {
    // import_deadlines.pickup_lfd_terminal is a datetime on the wire (REFERENCE-SERVICE §containers).
    const lfd = (v: string, podTimezone: string) =>
      boxChargeFactsOf({ ...ROW, podTimezone, pickupLfdTerminal: v }, [], null).terminalLfd;
    expect(lfd("2026-12-03T08:00:00Z", "America/Los_Angeles")).toBe("2026-12-03");
    expect(lfd("2026-12-02T23:00:00Z", "Europe/Amsterdam")).toBe("2026-12-03");
    expect(lfd("2026-12-02T16:00:00Z", "Asia/Shanghai")).toBe("2026-12-03");
    expect(lfd("2026-12-03", "Asia/Shanghai")).toBe("2026-12-03");
    expect(boxChargeFactsOf(ROW, [], null).terminalLfd).toBeNull();
  });
});
