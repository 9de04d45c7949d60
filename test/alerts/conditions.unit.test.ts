import { describe, expect, it } from "vitest";
import {
  type BoxContext,
  evaluateTimeDriven,
  evaluateTransition,
  freeTimeEndFor,
  inScope,
  type RuleForEvaluation,
} from "../../src/alerts/conditions";
import { quietUntil } from "../../src/alerts/delivery";
import { chargesEventOf } from "../../src/alerts/webhook-events";
import type { ContainerRow } from "../../src/containers/serializer";

// The alert conditions as a person would read them: dates are the box's local dates (the LFD is a local date at the
// POD), "within N days" counts whole local days from today, an episode alerts once.

function container(over: Partial<ContainerRow> = {}): ContainerRow {
  return {
    id: "c1",
    accountId: "a1",
    shipmentId: "s1",
    number: "MSCU1234565",
    scac: "MSCU",
    podLocode: "USLAX",
    podTimezone: "America/Los_Angeles",
    finalDestinationTimezone: null,
    pickupFacilityId: null,
    pickupLfd: null,
    podFullOutAt: null,
    finalDestinationFullOutAt: null,
    emptyTerminatedAt: null,
    availableForPickup: null,
    holdsAtPodTerminal: [],
    feesAtPodTerminal: [],
    terminalTrackingFailedReason: null,
    podLastTrackingRequestAt: null,
    ...over,
  } as ContainerRow;
}

function box(c: ContainerRow, shipment: Partial<BoxContext["shipment"]> = {}): BoxContext {
  return {
    container: c,
    shipment: {
      customerId: null,
      podEtaAt: null,
      lineTrackingFailedReason: null,
      lineTrackingLastSucceededAt: null,
      ...shipment,
    },
  };
}

function rule(condition: string, over: Partial<RuleForEvaluation> = {}): RuleForEvaluation {
  return { id: "r1", condition, thresholdDays: null, thresholdHours: null, scope: {}, ...over };
}

describe("free time ending / charges accruing, in the POD's local dates", () => {
  // LFD served as local midnight at the POD: 2026-12-03 00:00 in Los Angeles is 08:00Z.
  const lax = container({ pickupLfd: "2026-12-03T08:00:00Z" });

  it("reads the LFD's local date at USLAX, NLRTM and CNSHA", () => {
    expect(freeTimeEndFor(lax, "demurrage")).toBe("2026-12-03");
    expect(
      freeTimeEndFor(container({ podTimezone: "Europe/Amsterdam", pickupLfd: "2026-12-02T23:00:00Z" }), "demurrage"),
    ).toBe("2026-12-03");
    expect(
      freeTimeEndFor(container({ podTimezone: "Asia/Shanghai", pickupLfd: "2026-12-02T16:00:00Z" }), "demurrage"),
    ).toBe("2026-12-03");
    expect(freeTimeEndFor(container({ pickupLfd: "2026-12-03" }), "demurrage")).toBe("2026-12-03");
  });

  it("alerts within N local days, once per LFD value", () => {
    const r = rule("free_time_ending", { thresholdDays: 1 });
    // 2026-12-02 07:00Z is still 2026-12-01 (23:00) in Los Angeles: two days before the LFD, outside N = 1.
    expect(evaluateTimeDriven(r, box(lax), Date.parse("2026-12-02T07:00:00Z"))).toEqual([]);
    const [a] = evaluateTimeDriven(r, box(lax), Date.parse("2026-12-02T09:00:00Z"));
    expect(a?.episodeKey).toBe("free_time:2026-12-03T08:00:00Z");
    expect(a?.what).toContain("tomorrow");
    // In Shanghai the same instant is already the next day.
    const sha = container({ podTimezone: "Asia/Shanghai", pickupLfd: "2026-12-02T16:00:00Z" });
    expect(evaluateTimeDriven(r, box(sha), Date.parse("2026-12-02T17:00:00Z"))[0]?.what).toContain("today");
  });

  it("says nothing once the box is out, and charges accrue the day after the LFD", () => {
    const out = container({ pickupLfd: "2026-12-03T08:00:00Z", podFullOutAt: "2026-12-02T20:00:00Z" });
    expect(
      evaluateTimeDriven(rule("free_time_ending", { thresholdDays: 3 }), box(out), Date.parse("2026-12-02T21:00:00Z")),
    ).toEqual([]);
    const charges = rule("charges_accruing");
    expect(evaluateTimeDriven(charges, box(lax), Date.parse("2026-12-04T07:59:00Z"))).toEqual([]);
    const [c] = evaluateTimeDriven(charges, box(lax), Date.parse("2026-12-05T09:00:00Z"));
    expect(c?.episodeKey).toBe("charges:2026-12-03T08:00:00Z");
    expect(c?.what).toContain("2 chargeable days");
  });

  it("the charges webhook events: within 24 h of the end of the LFD, then after it", () => {
    expect(chargesEventOf(lax, Date.parse("2026-12-03T07:00:00Z"))).toBeNull();
    expect(chargesEventOf(lax, Date.parse("2026-12-03T09:00:00Z"))).toBe("container.free_time.ending_soon");
    // The free time ends at local midnight after the LFD: 2026-12-04 00:00 PST = 08:00Z.
    expect(chargesEventOf(lax, Date.parse("2026-12-04T07:59:59Z"))).toBe("container.free_time.ending_soon");
    expect(chargesEventOf(lax, Date.parse("2026-12-04T08:00:00Z"))).toBe("container.charges.started");
    expect(
      chargesEventOf({ ...lax, podFullOutAt: "2026-12-04T01:00:00Z" }, Date.parse("2026-12-04T09:00:00Z")),
    ).toBeNull();
  });
});

describe("empty return due and tracking failed", () => {
  it("the empty is due the interim free days after the full-out's local date", () => {
    const c = container({ podFullOutAt: "2026-12-02T06:00:00Z" }); // 2026-12-01 22:00 in Los Angeles
    expect(freeTimeEndFor(c, "detention")).toBe("2026-12-05");
    const r = rule("empty_return_due", { thresholdDays: 1 });
    expect(evaluateTimeDriven(r, box(c), Date.parse("2026-12-03T20:00:00Z"))).toEqual([]);
    expect(evaluateTimeDriven(r, box(c), Date.parse("2026-12-04T20:00:00Z"))[0]?.episodeKey).toBe(
      "empty_return:2026-12-05",
    );
    expect(
      evaluateTimeDriven(
        r,
        box({ ...c, emptyTerminatedAt: "2026-12-04T00:00:00Z" }),
        Date.parse("2026-12-04T20:00:00Z"),
      ),
    ).toEqual([]);
  });

  it("one episode per failure run of the line or the terminal", () => {
    const c = container({
      terminalTrackingFailedReason: "terminal_unreachable",
      podLastTrackingRequestAt: "2026-12-01T00:00:00Z",
    });
    const keys = evaluateTimeDriven(rule("tracking_failed"), box(c, { lineTrackingFailedReason: "not_found" }), 0).map(
      (a) => a.episodeKey,
    );
    expect(keys).toEqual(["tracking_failed:shipping_line:never", "tracking_failed:terminal:2026-12-01T00:00:00Z"]);
  });
});

describe("event-driven conditions", () => {
  const now = "2026-12-01T10:00:00Z";
  it("a hold placed, then released: two alerts of one cycle; nothing for a pending hold", () => {
    const free = box(container());
    const held = box(container({ holdsAtPodTerminal: [{ name: "customs", status: "hold", description: null }] }));
    const pending = box(container({ holdsAtPodTerminal: [{ name: "USDA", status: "pending", description: null }] }));
    const r = rule("hold_changed");
    expect(evaluateTransition(r, free, held, now).map((a) => a.episodeKey)).toEqual([`hold:customs:placed:${now}`]);
    expect(evaluateTransition(r, held, free, now).map((a) => a.episodeKey)).toEqual([`hold:customs:released:${now}`]);
    expect(evaluateTransition(r, free, pending, now)).toEqual([]);
    expect(evaluateTransition(r, null, held, now)).toEqual([]);
  });

  it("available for pickup on the change only", () => {
    const r = rule("available_for_pickup");
    const no = box(container({ availableForPickup: false }));
    const yes = box(container({ availableForPickup: true }));
    expect(evaluateTransition(r, no, yes, now)).toHaveLength(1);
    expect(evaluateTransition(r, yes, yes, now)).toEqual([]);
  });

  it("an ETA move above the threshold", () => {
    const r = rule("eta_changed", { thresholdHours: 12 });
    const before = box(container(), { podEtaAt: "2026-12-10T00:00:00Z" });
    expect(evaluateTransition(r, before, box(container(), { podEtaAt: "2026-12-10T12:00:00Z" }), now)).toEqual([]);
    const [a] = evaluateTransition(r, before, box(container(), { podEtaAt: "2026-12-11T06:00:00Z" }), now);
    expect(a?.what).toContain("later by 30 h");
    expect(a?.episodeKey).toBe("eta:2026-12-11T06:00:00Z");
  });

  it("scope: ports, lines, customers, custom field values", () => {
    const b: BoxContext = { ...box(container(), { customerId: "p1" }), customFields: { lane: "transpacific" } };
    expect(inScope({}, b)).toBe(true);
    expect(
      inScope({ ports: ["USLAX"], scacs: ["MSCU"], customers: ["p1"], custom_fields: { lane: "transpacific" } }, b),
    ).toBe(true);
    expect(inScope({ ports: ["NLRTM"] }, b)).toBe(false);
    expect(inScope({ scacs: ["MAEU"] }, b)).toBe(false);
    expect(inScope({ customers: ["p2"] }, b)).toBe(false);
    expect(inScope({ custom_fields: { lane: "transatlantic" } }, b)).toBe(false);
  });
});

describe("quiet hours", () => {
  const settings = { timeZone: "Europe/Amsterdam", quietHoursStart: 20, quietHoursEnd: 6 };
  it("holds a delivery due at night until they end, local time, across midnight", () => {
    // 21:30 in Amsterdam (CET, UTC+1) on 2026-12-01 → held until 06:00 on 2026-12-02 = 05:00Z.
    expect(quietUntil(Date.parse("2026-12-01T20:30:00Z"), settings)).toBe(Date.parse("2026-12-02T05:00:00Z"));
    // 02:00 local → same morning.
    expect(quietUntil(Date.parse("2026-12-02T01:00:00Z"), settings)).toBe(Date.parse("2026-12-02T05:00:00Z"));
    expect(quietUntil(Date.parse("2026-12-02T12:00:00Z"), settings)).toBeNull();
    expect(quietUntil(0, { ...settings, quietHoursStart: null, quietHoursEnd: null })).toBeNull();
  });
});
