import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type BoxChargeFacts, chargesOf, freeTimeEndOfBox, isAccruing } from "../../src/charges/calculator";
import type { RateTier, Tariff } from "../../src/charges/tariff-match";

// The calculator against cases computed by hand from the rules (docs/charges.md): day 1 of free time is the local day
// after the clock's start; business days skip Saturdays, Sundays and the port's public holidays; a day the box could
// not be picked up (any part of it) neither counts as free time nor is charged; chargeable days are calendar days and
// the n-th is priced by the tier holding n. Every date below is a local date at the port.

const USD = (from: number, to: number | null, rate: string): RateTier => ({
  fromDay: from,
  toDay: to,
  ratePerDay: rate,
  currencyCode: "USD",
});
const TIERS_100_200 = [USD(1, 3, "100.00"), USD(4, null, "200.00")];

function tariff(over: Partial<Tariff> = {}): Tariff {
  return {
    id: "t-1",
    name: null,
    kind: "demurrage",
    scac: null,
    portCode: null,
    terminalId: null,
    equipmentLength: null,
    equipmentType: null,
    freeDays: 4,
    freeDaysBasis: "calendar",
    clockStartsAt: "discharged",
    tiers: TIERS_100_200,
    updatedAt: "2026-01-01T00:00:00Z",
    ...over,
  };
}

const LAX: BoxChargeFacts = {
  scac: "MAEU",
  podLocode: "USLAX",
  podTerminalId: null,
  equipmentLength: 40,
  equipmentType: "dry",
  timeZone: "America/Los_Angeles",
  countryCode: "US",
  subdivision: "CA",
  dischargedAt: null,
  availableAt: null,
  fullOutAt: null,
  emptyReturnedAt: null,
  terminalLfd: null,
  blocked: [],
};
const RTM: BoxChargeFacts = {
  ...LAX,
  podLocode: "NLRTM",
  timeZone: "Europe/Amsterdam",
  countryCode: "NL",
  subdivision: null,
};
const SHA: BoxChargeFacts = {
  ...LAX,
  podLocode: "CNSHA",
  timeZone: "Asia/Shanghai",
  countryCode: "CN",
  subdivision: null,
};

interface Case {
  name: string;
  facts: BoxChargeFacts;
  tariffs: Tariff[];
  asOf: string;
  outOn?: string;
  line?: "demurrage" | "detention";
  expect: {
    basis: "terminal_lfd" | "tariff";
    lastFreeDay: string;
    freeTimeEndsAt: string;
    chargeableDays: number;
    amountToDate: string;
    amountIfOutTomorrow: string | null;
    amountIfOutOn?: string | null;
    currencyCode?: string;
    notChargeable?: string[];
  };
}

const CASES: Case[] = [
  {
    // Thu 19 Nov 10:00 PST; free Fri 20, Sat 21, Sun 22, Mon 23; chargeable 24..29 = 6 days: 3×100 + 3×200.
    name: "USLAX, 4 calendar days across a weekend, tiers crossing",
    facts: { ...LAX, dischargedAt: "2026-11-19T18:00:00Z" },
    tariffs: [tariff()],
    asOf: "2026-11-29T20:00:00Z",
    outOn: "2026-12-02",
    expect: {
      basis: "tariff",
      lastFreeDay: "2026-11-23",
      freeTimeEndsAt: "2026-11-24T08:00:00Z",
      chargeableDays: 6,
      amountToDate: "900.00",
      // 30 Nov is the 7th chargeable day; 2 Dec the 9th: 300 + 6×200.
      amountIfOutTomorrow: "1100.00",
      amountIfOutOn: "1500.00",
    },
  },
  {
    // Business days: Fri 20 (1), Sat/Sun skipped, Mon 23 (2), Tue 24 (3), Wed 25 (4), Thu 26 Thanksgiving skipped,
    // Fri 27 (California's Day after Thanksgiving) skipped, Sat/Sun skipped, Mon 30 (5). Chargeable Dec 1..3.
    name: "USLAX, 5 business days across a weekend, Thanksgiving and California's day after",
    facts: { ...LAX, dischargedAt: "2026-11-19T18:00:00Z" },
    tariffs: [tariff({ freeDays: 5, freeDaysBasis: "business" })],
    asOf: "2026-12-03T20:00:00Z",
    expect: {
      basis: "tariff",
      lastFreeDay: "2026-11-30",
      freeTimeEndsAt: "2026-12-01T08:00:00Z",
      chargeableDays: 3,
      amountToDate: "300.00",
      amountIfOutTomorrow: "500.00",
    },
  },
  {
    // Discharged 22:30Z on Thu 23 April = 00:30 CEST on Fri 24 April: the clock starts on the 24th, local time.
    // Sat 25, Sun 26, Mon 27 (Koningsdag) are not business days; Tue 28 (1), Wed 29 (2), Thu 30 (3). 1 May is not a
    // Dutch public holiday; chargeable 1 and 2 May at EUR 75.
    name: "NLRTM, 3 business days across a weekend and King's Day, the clock's day in CEST",
    facts: { ...RTM, dischargedAt: "2026-04-23T22:30:00Z" },
    tariffs: [
      tariff({ freeDays: 3, freeDaysBasis: "business", tiers: [{ ...USD(1, null, "75.00"), currencyCode: "EUR" }] }),
    ],
    asOf: "2026-05-02T10:00:00Z",
    expect: {
      basis: "tariff",
      lastFreeDay: "2026-04-30",
      freeTimeEndsAt: "2026-04-30T22:00:00Z",
      chargeableDays: 2,
      amountToDate: "150.00",
      amountIfOutTomorrow: "225.00",
      currencyCode: "EUR",
    },
  },
  {
    // Discharged 30 Sep 04:00 CST, available 1 Oct 10:00 CST: the clock starts on availability (1 Oct); free 2, 3, 4
    // Oct (calendar days: the National Day holidays count); chargeable 5 and 6 Oct at CNY 300. 30 Sep is in the ledger
    // as not chargeable (not yet available).
    name: "CNSHA, free time from availability, calendar days through National Day",
    facts: {
      ...SHA,
      dischargedAt: "2026-09-29T20:00:00Z",
      availableAt: "2026-10-01T02:00:00Z",
      blocked: [{ from: "2026-09-29T20:00:00Z", to: "2026-10-01T02:00:00Z", reason: "not yet available for pickup" }],
    },
    tariffs: [
      tariff({
        freeDays: 3,
        clockStartsAt: "available",
        tiers: [{ ...USD(1, null, "300.00"), currencyCode: "CNY" }],
      }),
    ],
    asOf: "2026-10-06T04:00:00Z",
    expect: {
      basis: "tariff",
      lastFreeDay: "2026-10-04",
      freeTimeEndsAt: "2026-10-04T16:00:00Z",
      chargeableDays: 2,
      amountToDate: "600.00",
      amountIfOutTomorrow: "900.00",
      currencyCode: "CNY",
      notChargeable: ["2026-09-30", "2026-10-01"],
    },
  },
  {
    // Discharged Thu 5 Nov; a hold from Fri 6 Nov 09:00 to Sun 8 Nov 12:00 PST stops the clock on 6, 7, 8 Nov; free
    // 9, 10, 11 (Veterans Day counts: calendar days), 12; chargeable 13, 14 Nov.
    name: "USLAX, a hold during free time stops the clock",
    facts: {
      ...LAX,
      dischargedAt: "2026-11-05T18:00:00Z",
      blocked: [{ from: "2026-11-06T17:00:00Z", to: "2026-11-08T20:00:00Z", reason: "hold: customs" }],
    },
    tariffs: [tariff()],
    asOf: "2026-11-14T20:00:00Z",
    expect: {
      basis: "tariff",
      lastFreeDay: "2026-11-12",
      freeTimeEndsAt: "2026-11-13T08:00:00Z",
      chargeableDays: 2,
      amountToDate: "200.00",
      amountIfOutTomorrow: "300.00",
      notChargeable: ["2026-11-06", "2026-11-07", "2026-11-08"],
    },
  },
  {
    // Discharged Thu 5 Nov; free 6..9; a hold from 11 Nov 10:00 to 12 Nov 10:00 PST: 11 and 12 are not chargeable;
    // chargeable 10, 13, 14 (days 1-3 at 100); tomorrow (15) is the 4th at 200.
    name: "USLAX, a hold after the LFD makes its days not chargeable",
    facts: {
      ...LAX,
      dischargedAt: "2026-11-05T18:00:00Z",
      blocked: [{ from: "2026-11-11T18:00:00Z", to: "2026-11-12T18:00:00Z", reason: "hold: customs" }],
    },
    tariffs: [tariff()],
    asOf: "2026-11-14T20:00:00Z",
    expect: {
      basis: "tariff",
      lastFreeDay: "2026-11-09",
      freeTimeEndsAt: "2026-11-10T08:00:00Z",
      chargeableDays: 3,
      amountToDate: "300.00",
      amountIfOutTomorrow: "500.00",
      notChargeable: ["2026-11-11", "2026-11-12"],
    },
  },
  {
    // The tariff would give 23 Nov; the terminal says 25 Nov, which wins: chargeable 26 and 27 Nov.
    name: "USLAX, the terminal's LFD overrides the calculation",
    facts: { ...LAX, dischargedAt: "2026-11-19T18:00:00Z", terminalLfd: "2026-11-25" },
    tariffs: [tariff()],
    asOf: "2026-11-27T20:00:00Z",
    expect: {
      basis: "terminal_lfd",
      lastFreeDay: "2026-11-25",
      freeTimeEndsAt: "2026-11-26T08:00:00Z",
      chargeableDays: 2,
      amountToDate: "200.00",
      amountIfOutTomorrow: "300.00",
    },
  },
  {
    // Out Wed 25 Nov 11:00 PST: chargeable 24 and 25 only, whatever the as-of date; nothing to project.
    name: "USLAX, full out stops demurrage (the out day is charged)",
    facts: { ...LAX, dischargedAt: "2026-11-19T18:00:00Z", fullOutAt: "2026-11-25T19:00:00Z" },
    tariffs: [tariff()],
    asOf: "2026-11-29T20:00:00Z",
    outOn: "2026-12-02",
    expect: {
      basis: "tariff",
      lastFreeDay: "2026-11-23",
      freeTimeEndsAt: "2026-11-24T08:00:00Z",
      chargeableDays: 2,
      amountToDate: "200.00",
      amountIfOutTomorrow: null,
      amountIfOutOn: null,
    },
  },
  {
    // Full out Wed 25 Nov 11:00 PST; 2 free calendar days 26, 27; returned Tue 1 Dec 10:00 PST: chargeable 28 Nov to
    // 1 Dec = 4 days at 50.
    name: "USLAX, detention from full out to empty return",
    line: "detention",
    facts: {
      ...LAX,
      dischargedAt: "2026-11-19T18:00:00Z",
      fullOutAt: "2026-11-25T19:00:00Z",
      emptyReturnedAt: "2026-12-01T18:00:00Z",
    },
    tariffs: [
      tariff({
        id: "t-det",
        kind: "detention",
        freeDays: 2,
        clockStartsAt: "full_out",
        tiers: [USD(1, null, "50.00")],
      }),
    ],
    asOf: "2026-12-05T20:00:00Z",
    expect: {
      basis: "tariff",
      lastFreeDay: "2026-11-27",
      freeTimeEndsAt: "2026-11-28T08:00:00Z",
      chargeableDays: 4,
      amountToDate: "200.00",
      amountIfOutTomorrow: null,
    },
  },
  {
    // Discharged Thu 29 Oct 10:00 PDT; free 30, 31 Oct, 1 Nov (PDT ends that night), 2 Nov: the LFD ends at
    // midnight PST, 08:00Z (not 07:00Z as it would in October). Chargeable 3 and 4 Nov.
    name: "USLAX, free time across the end of daylight saving time",
    facts: { ...LAX, dischargedAt: "2026-10-29T17:00:00Z" },
    tariffs: [tariff()],
    asOf: "2026-11-04T20:00:00Z",
    expect: {
      basis: "tariff",
      lastFreeDay: "2026-11-02",
      freeTimeEndsAt: "2026-11-03T08:00:00Z",
      chargeableDays: 2,
      amountToDate: "200.00",
      amountIfOutTomorrow: "300.00",
    },
  },
  {
    // 0.10 a day for 3 days is 0.30 exactly (in floats 0.1 × 3 is 0.30000000000000004).
    name: "amounts are exact decimals",
    facts: { ...LAX, dischargedAt: "2026-11-19T18:00:00Z" },
    tariffs: [tariff({ freeDays: 0, tiers: [USD(1, null, "0.10")] })],
    asOf: "2026-11-22T20:00:00Z",
    expect: {
      basis: "tariff",
      lastFreeDay: "2026-11-19",
      freeTimeEndsAt: "2026-11-20T08:00:00Z",
      chargeableDays: 3,
      amountToDate: "0.30",
      amountIfOutTomorrow: "0.40",
    },
  },
];

describe("chargesOf: hand-computed cases", () => {
  it.each(CASES)("$name", (c) => {
    const charges = chargesOf(c.facts, c.tariffs, Date.parse(c.asOf), { outOn: c.outOn ?? null });
    const line = charges[c.line ?? "demurrage"];
    expect(line).not.toBeNull();
    if (!line) return;
    const { notChargeable, ...figures } = c.expect;
    expect(line).toMatchObject({ currencyCode: "USD", amountIfOutOn: null, ...figures });
    const chargeable = line.ledger.filter((d) => d.state === "chargeable");
    expect(chargeable).toHaveLength(line.chargeableDays);
    if (notChargeable) {
      expect(line.ledger.filter((d) => d.state === "not_chargeable").map((d) => d.date)).toEqual(notChargeable);
    }
    // The ledger is one entry per local day, in order, with no gap.
    const dates = line.ledger.map((d) => d.date);
    for (let i = 1; i < dates.length; i++) {
      expect(Date.parse(`${dates[i]}T00:00:00Z`) - Date.parse(`${dates[i - 1]}T00:00:00Z`)).toBe(86_400_000);
    }
  });

  it("explains the business days it skipped, by name", () => {
    const line = chargesOf(
      { ...LAX, dischargedAt: "2026-11-19T18:00:00Z" },
      [tariff({ freeDays: 5, freeDaysBasis: "business" })],
      Date.parse("2026-12-01T20:00:00Z"),
    ).demurrage;
    const reasons = Object.fromEntries((line?.ledger ?? []).map((d) => [d.date, d.reason]));
    expect(reasons["2026-11-19"]).toBe("the clock starts this day (not counted)");
    expect(reasons["2026-11-21"]).toBe("Saturday: not a business day");
    expect(reasons["2026-11-26"]).toBe("public holiday (Thanksgiving Day): not a business day");
    expect(reasons["2026-11-30"]).toBe("free day 5 of 5");
    expect(reasons["2026-12-01"]).toBe("chargeable day 1 (tier days 1-3: 100.00 USD/day)");
    expect(line?.ledger.find((d) => d.date === "2026-12-01")?.amount).toBe("100.00");
  });

  it("has nothing to charge before the clock starts, and null where no tariff applies", () => {
    const charges = chargesOf(LAX, [tariff()], Date.parse("2026-11-29T20:00:00Z"));
    expect(charges.demurrage).toMatchObject({
      clockStartedAt: null,
      lastFreeDay: null,
      chargeableDays: 0,
      amountToDate: "0.00",
      ledger: [],
    });
    expect(charges.detention).toBeNull();
    expect(charges.terminalStorage).toBeNull();
  });

  it("ignores facts after the as-of instant", () => {
    const facts = { ...LAX, dischargedAt: "2026-11-19T18:00:00Z", fullOutAt: "2026-11-25T19:00:00Z" };
    const line = chargesOf(facts, [tariff()], Date.parse("2026-11-24T20:00:00Z")).demurrage;
    expect(line).toMatchObject({ stoppedAt: null, chargeableDays: 1, amountToDate: "100.00" });
    expect(isAccruing(line)).toBe(true);
  });

  it("prices nothing past a closed last tier, and says so", () => {
    const line = chargesOf(
      { ...LAX, dischargedAt: "2026-11-19T18:00:00Z" },
      [tariff({ freeDays: 0, tiers: [USD(1, 2, "10.00")] })],
      Date.parse("2026-11-22T20:00:00Z"),
    ).demurrage;
    expect(line?.amountToDate).toBe("20.00");
    expect(line?.ledger.at(-1)).toMatchObject({
      amount: "0.00",
      reason: "chargeable day 3: beyond the last tier, no rate",
    });
  });

  it("a combined tariff covers discharge to empty return and leaves no separate detention", () => {
    const facts = {
      ...LAX,
      dischargedAt: "2026-11-19T18:00:00Z",
      fullOutAt: "2026-11-25T19:00:00Z",
      emptyReturnedAt: "2026-11-27T18:00:00Z",
    };
    const charges = chargesOf(
      facts,
      [tariff({ kind: "combined" }), tariff({ id: "t-det", kind: "detention", clockStartsAt: "full_out" })],
      Date.parse("2026-12-05T20:00:00Z"),
    );
    // Chargeable 24..27 Nov: 3×100 + 200.
    expect(charges.demurrage).toMatchObject({ kind: "combined", chargeableDays: 4, amountToDate: "500.00" });
    expect(charges.detention).toBeNull();
  });

  it("freeTimeEndOfBox answers the LFD and its basis for alerts", () => {
    const facts = { ...LAX, dischargedAt: "2026-11-19T18:00:00Z" };
    expect(freeTimeEndOfBox(facts, [tariff()], Date.parse("2026-11-20T20:00:00Z"))).toEqual({
      lastFreeDay: "2026-11-23",
      freeTimeEndsAt: "2026-11-24T08:00:00Z",
      basis: "tariff",
    });
    expect(freeTimeEndOfBox(LAX, [tariff()], Date.parse("2026-11-20T20:00:00Z"))).toBeNull();
  });
});

describe("chargesOf: properties", () => {
  const DAY = 86_400_000;
  const base = Date.parse("2026-01-05T18:00:00Z");
  const arbitraryCase = fc.record({
    dischargeOffset: fc.integer({ min: 0, max: 300 * DAY }),
    asOfAfter: fc.integer({ min: 0, max: 60 * DAY }),
    freeDays: fc.integer({ min: 0, max: 10 }),
    hold: fc.option(
      fc.record({ start: fc.integer({ min: 0, max: 20 * DAY }), length: fc.integer({ min: 1, max: 5 * DAY }) }),
    ),
    zone: fc.constantFrom(LAX, RTM, SHA),
  });

  it("the ledger adds up, tomorrow costs at least today, and business-day free time ends no earlier", () => {
    fc.assert(
      fc.property(arbitraryCase, (c) => {
        const discharged = base + c.dischargeOffset;
        const blocked = c.hold
          ? [
              {
                from: new Date(discharged + c.hold.start).toISOString(),
                to: new Date(discharged + c.hold.start + c.hold.length).toISOString(),
                reason: "hold",
              },
            ]
          : [];
        const facts = { ...c.zone, dischargedAt: new Date(discharged).toISOString(), blocked };
        const asOf = discharged + c.asOfAfter;
        const calendar = chargesOf(facts, [tariff({ freeDays: c.freeDays })], asOf).demurrage;
        const business = chargesOf(
          facts,
          [tariff({ freeDays: c.freeDays, freeDaysBasis: "business" })],
          asOf,
        ).demurrage;
        if (!calendar || !business) return false;
        const sum = calendar.ledger.reduce((s, d) => s + Math.round(Number(d.amount) * 100), 0);
        expect(sum).toBe(Math.round(Number(calendar.amountToDate) * 100));
        expect(calendar.ledger.filter((d) => d.state === "chargeable")).toHaveLength(calendar.chargeableDays);
        expect(Number(calendar.amountIfOutTomorrow)).toBeGreaterThanOrEqual(Number(calendar.amountToDate));
        expect((business.lastFreeDay ?? "") >= (calendar.lastFreeDay ?? "")).toBe(true);
        expect(Number(business.amountToDate)).toBeLessThanOrEqual(Number(calendar.amountToDate));
        // The portfolio's ledger-less pass gives the same figures.
        const bare = chargesOf(facts, [tariff({ freeDays: c.freeDays })], asOf, { withLedger: false }).demurrage;
        const { ledger: _full, ...figures } = calendar;
        expect(bare).toEqual({ ...figures, ledger: [] });
        expect(isAccruing(calendar)).toBe(calendar.ledger.at(-1)?.state === "chargeable");
        return true;
      }),
      { numRuns: 200 },
    );
  });
});
