import { describe, expect, it } from "vitest";
import { alertChargesOf, type ChargeInputs } from "../../src/alerts/charges";
import {
  type BoxContext,
  evaluateTimeDriven,
  evaluateTransition,
  inScope,
  type RuleForEvaluation,
} from "../../src/alerts/conditions";
import { quietUntil } from "../../src/alerts/delivery";
import { alertEmail, alertFacts } from "../../src/alerts/messages";
import { chargesEventOf } from "../../src/alerts/webhook-events";
import type { Tariff } from "../../src/charges/tariff-match";
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
    pickupLfdTerminal: null,
    podDischargedAt: null,
    availabilityKnown: false,
    terminalCheckedAt: null,
    podTerminalId: null,
    equipmentLength: 40,
    equipmentType: "dry",
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

function tariff(over: Partial<Tariff> = {}): Tariff {
  return {
    id: "t1",
    name: "MSC US West Coast",
    kind: "demurrage",
    scac: null,
    portCode: null,
    terminalId: null,
    equipmentLength: null,
    equipmentType: null,
    freeDays: 4,
    freeDaysBasis: "calendar",
    clockStartsAt: "discharged",
    tiers: [{ fromDay: 1, toDay: null, ratePerDay: "150.00", currencyCode: "USD" }],
    updatedAt: "2026-11-01T00:00:00Z",
    ...over,
  };
}

/** A box, with the calculator's charges as of `nowMs` under `tariffs` (none: only a terminal LFD counts). */
function box(
  c: ContainerRow,
  shipment: Partial<BoxContext["shipment"]> = {},
  nowMs = 0,
  tariffs: Tariff[] = [],
): BoxContext {
  const inputs: ChargeInputs = {
    changesByBox: new Map(),
    portByCode: new Map(),
    tariffsByAccount: new Map([[c.accountId, tariffs]]),
  };
  return {
    container: c,
    shipment: {
      customerId: null,
      podEtaAt: null,
      lineTrackingFailedReason: null,
      lineTrackingLastSucceededAt: null,
      ...shipment,
    },
    charges: alertChargesOf(c, inputs, nowMs),
  };
}

/** The date-driven alerts of `r` for `c` at `iso`, the calculator's charges computed as of then. */
function at(r: RuleForEvaluation, c: ContainerRow, iso: string, tariffs: Tariff[] = []) {
  return evaluateTimeDriven(r, box(c, {}, Date.parse(iso), tariffs));
}

function rule(condition: string, over: Partial<RuleForEvaluation> = {}): RuleForEvaluation {
  return { id: "r1", condition, thresholdDays: null, thresholdHours: null, scope: {}, ...over };
}

describe("free time ending / charges accruing, in the POD's local dates", () => {
  // The terminal reports the LFD 2026-12-03 (a local date at the POD); discharged 2026-11-29.
  const lax = container({ pickupLfdTerminal: "2026-12-03", podDischargedAt: "2026-11-29T18:00:00Z" });

  it("alerts within N local days, once per LFD value", () => {
    const r = rule("free_time_ending", { thresholdDays: 1 });
    // 2026-12-02 07:00Z is still 2026-12-01 (23:00) in Los Angeles: two days before the LFD, outside N = 1.
    expect(at(r, lax, "2026-12-02T07:00:00Z")).toEqual([]);
    const [a] = at(r, lax, "2026-12-02T09:00:00Z");
    expect(a?.episodeKey).toBe("free_time:2026-12-03");
    expect(a?.what).toContain("tomorrow");
    // In Shanghai the same instant is already the next day.
    const sha = container({ podTimezone: "Asia/Shanghai", pickupLfdTerminal: "2026-12-03", podLocode: "CNSHA" });
    expect(at(r, sha, "2026-12-02T17:00:00Z")[0]?.what).toContain("today");
  });

  it("says nothing once the box is out, and charges accrue the day after the LFD", () => {
    const out = container({ pickupLfdTerminal: "2026-12-03", podFullOutAt: "2026-12-02T20:00:00Z" });
    expect(at(rule("free_time_ending", { thresholdDays: 3 }), out, "2026-12-02T21:00:00Z")).toEqual([]);
    const charges = rule("charges_accruing");
    expect(at(charges, lax, "2026-12-04T07:59:00Z")).toEqual([]);
    const [c] = at(charges, lax, "2026-12-05T09:00:00Z");
    expect(c?.episodeKey).toBe("charges:2026-12-03");
    expect(c?.what).toContain("2 chargeable days");
  });

  it("no terminal LFD: the matching tariff's calculated LFD alerts; a tariff edit that moves it is a new episode", () => {
    // Discharged 2026-11-29 10:00 local: 4 calendar free days from 11-30 → LFD 2026-12-03.
    const calc = container({ podDischargedAt: "2026-11-29T18:00:00Z" });
    const r = rule("free_time_ending", { thresholdDays: 1 });
    expect(at(r, calc, "2026-12-02T20:00:00Z")).toEqual([]);
    const [a] = at(r, calc, "2026-12-02T20:00:00Z", [tariff()]);
    expect(a?.episodeKey).toBe("free_time:2026-12-03");
    expect(a?.dueOn).toBe("2026-12-03");
    // Five free days: the LFD moves to 12-04, another episode (today, 12-03 local, is within N = 1 of it).
    const [b] = at(r, calc, "2026-12-03T20:00:00Z", [tariff({ freeDays: 5 })]);
    expect(b?.episodeKey).toBe("free_time:2026-12-04");
    // A tariff of another line does not apply.
    expect(at(r, calc, "2026-12-02T20:00:00Z", [tariff({ scac: "MAEU" })])).toEqual([]);
    // The calculator's accruing: the day after the LFD, 1 chargeable day.
    const [c] = at(rule("charges_accruing"), calc, "2026-12-04T20:00:00Z", [tariff()]);
    expect(c?.episodeKey).toBe("charges:2026-12-03");
    expect(c?.what).toContain("1 chargeable day so far");
    // An active hold stops the clock: not accruing, whatever the date.
    const held = container({
      podDischargedAt: "2026-11-29T18:00:00Z",
      pickupLfdTerminal: "2026-12-03",
      holdsAtPodTerminal: [{ name: "customs", status: "hold", description: null }],
      terminalCheckedAt: "2026-12-03T20:00:00Z",
    });
    expect(at(rule("charges_accruing"), held, "2026-12-04T20:00:00Z", [tariff()])).toEqual([]);
  });

  it("the message carries the calculator's amounts, currency and basis", () => {
    const calc = container({ podDischargedAt: "2026-11-29T18:00:00Z" });
    const [a] = at(rule("charges_accruing"), calc, "2026-12-05T20:00:00Z", [tariff()]);
    if (!a) throw new Error("no alert");
    const b = box(calc, {}, Date.parse("2026-12-05T20:00:00Z"), [tariff()]);
    const facts = alertFacts("al1", a, calc, null, "2026-12-05T20:00:00Z", b.charges);
    // 12-04 and 12-05 chargeable at USD 150: 300 to date, 450 if out tomorrow.
    expect(facts.cost).toBe("USD 300.00 in demurrage to date; USD 450.00 if out tomorrow");
    expect(facts.charge).toMatchObject({ basis: "tariff", tariff_id: "t1", currency_code: "USD", chargeable_days: 2 });
    const mail = alertEmail(facts).text;
    expect(mail).toContain("Cost: USD 300.00 in demurrage to date; USD 450.00 if out tomorrow");
    expect(mail).toContain('Basis: free time calculated from tariff "MSC US West Coast" (t1)');
    // A terminal LFD with no tariff: the dates, and no amounts.
    const terminal = container({ pickupLfdTerminal: "2026-12-03", podDischargedAt: "2026-11-29T18:00:00Z" });
    const tb = box(terminal, {}, Date.parse("2026-12-05T20:00:00Z"));
    const [t] = evaluateTimeDriven(rule("charges_accruing"), tb);
    if (!t) throw new Error("no alert");
    const tf = alertFacts("al2", t, terminal, null, "2026-12-05T20:00:00Z", tb.charges);
    expect(tf.cost).toBeNull();
    expect(alertEmail(tf).text).toContain("Cost: no tariff prices it: amounts unknown");
    expect(alertEmail(tf).text).toContain("Basis: last free day 2026-12-03 reported by the terminal; no tariff");
  });

  it("the charges webhook events: within 24 h of the end of the LFD, then once accruing", () => {
    const ev = (c: ContainerRow, iso: string) =>
      chargesEventOf(c, box(c, {}, Date.parse(iso)).charges, Date.parse(iso));
    expect(ev(lax, "2026-12-03T07:00:00Z")).toBeNull();
    expect(ev(lax, "2026-12-03T09:00:00Z")).toBe("container.free_time.ending_soon");
    // The free time ends at local midnight after the LFD: 2026-12-04 00:00 PST = 08:00Z.
    expect(ev(lax, "2026-12-04T07:59:59Z")).toBe("container.free_time.ending_soon");
    expect(ev(lax, "2026-12-04T08:00:00Z")).toBe("container.charges.started");
    expect(ev({ ...lax, podFullOutAt: "2026-12-04T01:00:00Z" }, "2026-12-04T09:00:00Z")).toBeNull();
  });
});

describe("empty return due and tracking failed", () => {
  const detention = tariff({ id: "t2", name: null, kind: "detention", freeDays: 4, clockStartsAt: "full_out" });

  it("a detention tariff gives the due date; without one there is no known due date and no alert", () => {
    const c = container({ podDischargedAt: "2026-11-28T18:00:00Z", podFullOutAt: "2026-12-02T06:00:00Z" }); // 12-01 22:00 local
    const r = rule("empty_return_due", { thresholdDays: 1 });
    // 4 free days from 12-02: due 12-05.
    expect(at(r, c, "2026-12-03T20:00:00Z", [detention])).toEqual([]);
    const [a] = at(r, c, "2026-12-04T20:00:00Z", [detention]);
    expect(a?.episodeKey).toBe("empty_return:2026-12-05");
    expect(at(r, c, "2026-12-04T20:00:00Z")).toEqual([]);
    expect(at(r, c, "2026-12-04T20:00:00Z", [tariff()])).toEqual([]);
    expect(at(r, { ...c, emptyTerminatedAt: "2026-12-04T00:00:00Z" }, "2026-12-04T20:00:00Z", [detention])).toEqual([]);
    // The message prices the detention line.
    const b = box(c, {}, Date.parse("2026-12-07T20:00:00Z"), [detention]);
    const [late] = evaluateTimeDriven(r, b);
    if (!late) throw new Error("no alert");
    expect(late.what).toContain("detention is accruing");
    const facts = alertFacts("al3", late, c, null, "2026-12-07T20:00:00Z", b.charges);
    expect(facts.cost).toBe("USD 300.00 in detention to date; USD 450.00 if returned tomorrow");
  });

  it("a combined tariff drives the empty return too", () => {
    const combined = tariff({ id: "t3", kind: "combined", freeDays: 7 });
    const c = container({ podDischargedAt: "2026-11-28T18:00:00Z", podFullOutAt: "2026-12-02T06:00:00Z" });
    // 7 days from 11-29: due 12-05.
    const [a] = at(rule("empty_return_due", { thresholdDays: 1 }), c, "2026-12-04T20:00:00Z", [combined]);
    expect(a?.episodeKey).toBe("empty_return:2026-12-05");
  });

  it("one episode per failure run of the line or the terminal", () => {
    const c = container({
      terminalTrackingFailedReason: "terminal_unreachable",
      podLastTrackingRequestAt: "2026-12-01T00:00:00Z",
    });
    const keys = evaluateTimeDriven(rule("tracking_failed"), box(c, { lineTrackingFailedReason: "not_found" })).map(
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
