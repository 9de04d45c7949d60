import { toIsoSeconds } from "../lib/clock";
import { freeTimeEndOf } from "./free-time";
import type { HolidayCalendar } from "./holidays";
import { addDays, daysBetween, localDateOf, startOfLocalDay } from "./local-dates";
import { formatMinorUnits, toMinorUnits } from "./money";
import type { TariffChoice, TariffKind } from "./tariff-match";

/**
 * A span when the box could not be picked up (not yet discharged or available, not available, an active hold):
 * `[from, to)` in ISO 8601 UTC, `to` null while it lasts. A local day any part of which the span covers is not
 * chargeable and stops the free-time clock (docs/charges.md §Days the box could not be picked up).
 */
export interface BlockedSpan {
  from: string;
  to: string | null;
  reason: string;
}

/** One day of a ledger: a local date at the port, its state, why, and what it costs (a decimal string). */
export interface LedgerDay {
  date: string;
  state: "free" | "chargeable" | "not_chargeable";
  reason: string;
  amount: string;
}

/** Which fact the free time's end comes from. */
export type ChargeBasis = "terminal_lfd" | "tariff";

/** One kind of charge of a box (the wire's `demurrage` / `detention` objects, in camelCase). */
export interface ChargeLine {
  kind: TariffKind;
  basis: ChargeBasis;
  tariffId: string;
  /** Why this tariff was chosen (see `chooseTariff`). */
  tariffExplanation: string[];
  /** ISO 8601 UTC of the event the clock started from; null while it has not happened. */
  clockStartedAt: string | null;
  /** The last free day, a local date at the port; null before the clock starts (without a terminal LFD). */
  lastFreeDay: string | null;
  /** The instant free time ends: local midnight after the last free day, ISO 8601 UTC; null with `lastFreeDay`. */
  freeTimeEndsAt: string | null;
  /** ISO 8601 UTC of the event that stops the charge (full out, empty return) when it happened by `as_of`. */
  stoppedAt: string | null;
  chargeableDays: number;
  amountToDate: string;
  /** Null once stopped. */
  amountIfOutTomorrow: string | null;
  /** The amount if the box goes out (or is returned) on the `out_on` date; null without one or once stopped. */
  amountIfOutOn: string | null;
  currencyCode: string;
  /** True when not stopped and the as-of day is chargeable. */
  accruing: boolean;
  /** Empty when the caller asked for no ledger (`withLedger` false). */
  ledger: LedgerDay[];
}

/** What {@link chargeLineOf} prices. */
export interface ChargeLineInput {
  kind: TariffKind;
  choice: TariffChoice;
  timeZone: string;
  holidays: HolidayCalendar;
  /** ISO 8601 UTC of the clock's start event, or null. */
  clockStartedAt: string | null;
  /** ISO 8601 UTC from which the ledger starts when earlier than the clock (discharge, for a clock on availability). */
  ledgerFrom: string | null;
  /** ISO 8601 UTC of the stop event (full out, empty return), or null. */
  stoppedAt: string | null;
  /** A last free day the terminal reported (local date), overriding the tariff's free time. */
  terminalLfd: string | null;
  blocked: readonly BlockedSpan[];
  /** The instant the charges are computed as of, ms since the epoch. */
  asOfMs: number;
  /** A local date to price "if out on", or null. */
  outOn: string | null;
  /** False to skip the ledger (a portfolio's rows do not show it): same figures, far less garbage. */
  withLedger?: boolean;
}

/**
 * Prices one kind of charge of a box as of an instant: the free time's end (the terminal's LFD when given, else the
 * tariff's free days from the clock's start), the day-by-day ledger from the first day through the stop day (or the
 * `as_of` day), chargeable days and amounts through that day, through tomorrow and through `outOn`. Events after
 * `asOfMs` are ignored, and a span still open at `asOfMs` is taken to end then: projections assume the box can be
 * picked up from the next day on. Chargeable days are calendar days (business-day tariffs count only their free time
 * in business days); the n-th chargeable day is priced by the tier whose range holds n, and by nothing past a closed
 * last tier.
 */
export function chargeLineOf(input: ChargeLineInput): ChargeLine {
  const { choice, timeZone: tz } = input;
  const withLedger = input.withLedger ?? true;
  const tariff = choice.tariff;
  const currency = tariff.tiers[0]?.currencyCode ?? "USD";
  const asOfDate = localDateOf(input.asOfMs, tz);
  const happened = (iso: string | null) => (iso !== null && Date.parse(iso) <= input.asOfMs ? iso : null);
  const clockStartedAt = happened(input.clockStartedAt);
  const stoppedAt = clockStartedAt ? happened(input.stoppedAt) : null;
  const zero = formatMinorUnits(0, currency);
  const blocked = input.blocked
    .map((s) => ({
      fromMs: Date.parse(s.from),
      toMs: s.to === null ? input.asOfMs : Math.min(Date.parse(s.to), input.asOfMs),
      reason: s.reason,
    }))
    .filter((s) => s.fromMs < s.toMs && s.fromMs <= input.asOfMs);
  const stopMs = stoppedAt ? Date.parse(stoppedAt) : Number.POSITIVE_INFINITY;
  const blockedDays = new Map<string, string | null>();
  const blockedReason = (date: string): string | null => {
    const known = blockedDays.get(date);
    if (known !== undefined) return known;
    const reason = blockedReasonOf(date);
    blockedDays.set(date, reason);
    return reason;
  };
  function blockedReasonOf(date: string): string | null {
    if (blocked.length === 0) return null;
    const dayStart = startOfLocalDay(date, tz);
    const dayEnd = startOfLocalDay(addDays(date, 1), tz);
    for (const s of blocked) {
      if (s.fromMs < dayEnd && s.toMs > dayStart && s.fromMs < stopMs) return s.reason;
    }
    return null;
  }

  let lastFreeDay: string | null = null;
  const notes = new Map<string, { state: "free" | "not_chargeable"; reason: string }>();
  const basis: ChargeBasis = input.terminalLfd ? "terminal_lfd" : "tariff";
  const clockDate = clockStartedAt ? localDateOf(Date.parse(clockStartedAt), tz) : null;
  if (input.terminalLfd) lastFreeDay = input.terminalLfd;
  else if (clockDate) {
    const free = freeTimeEndOf({
      clockStartDate: clockDate,
      freeDays: tariff.freeDays,
      basis: tariff.freeDaysBasis,
      holidays: input.holidays,
      blockedReason,
    });
    lastFreeDay = free.lastFreeDay;
    for (const d of free.days) notes.set(d.date, d);
  }
  const freeTimeEndsAt = lastFreeDay ? toIsoSeconds(startOfLocalDay(addDays(lastFreeDay, 1), tz)) : null;

  const tiers = tariff.tiers.map((t) => ({
    ...t,
    minor: toMinorUnits(t.ratePerDay, currency) ?? 0,
    range: t.toDay === null ? `${t.fromDay}+` : `${t.fromDay}-${t.toDay}`,
  }));
  const rateOf = (n: number): { minor: number; reason: string } => {
    const tier = tiers.find((t) => n >= t.fromDay && (t.toDay === null || n <= t.toDay));
    if (!tier) return { minor: 0, reason: `chargeable day ${n}: beyond the last tier, no rate` };
    return {
      minor: tier.minor,
      reason: `chargeable day ${n} (tier days ${tier.range}: ${tier.ratePerDay} ${currency}/day)`,
    };
  };

  /**
   * Each day after the last free day through `through`, with the running total (minor units) and chargeable count
   * after it: one pass serves the amount to date and every projection.
   */
  const price = (through: string) => {
    const days: (LedgerDay & { total: number; n: number })[] = [];
    let total = 0;
    let n = 0;
    if (!lastFreeDay || !clockDate) return days;
    for (let d = addDays(lastFreeDay, 1); d <= through; d = addDays(d, 1)) {
      if (d <= clockDate) continue;
      const reason = d <= asOfDate ? blockedReason(d) : null;
      if (reason) {
        days.push({ date: d, state: "not_chargeable", reason, amount: zero, total, n });
        continue;
      }
      n++;
      const rate = rateOf(n);
      total += rate.minor;
      const amount = withLedger ? formatMinorUnits(rate.minor, currency) : zero;
      days.push({ date: d, state: "chargeable", reason: withLedger ? rate.reason : "", amount, total, n });
    }
    return days;
  };
  /** The running total and count through `date` of a `price` pass. */
  const upTo = (days: ReturnType<typeof price>, date: string) => {
    let last: { total: number; n: number } = { total: 0, n: 0 };
    for (const d of days) {
      if (d.date > date) break;
      last = d;
    }
    return last;
  };

  const endDate = stoppedAt ? localDateOf(Date.parse(stoppedAt), tz) : asOfDate;
  const ledger: LedgerDay[] = [];
  if (clockDate && withLedger) {
    const ledgerFrom = happened(input.ledgerFrom);
    const firstDate =
      ledgerFrom && Date.parse(ledgerFrom) < Date.parse(clockStartedAt ?? ledgerFrom)
        ? localDateOf(Date.parse(ledgerFrom), tz)
        : clockDate;
    for (let d = firstDate; d < clockDate && d <= endDate; d = addDays(d, 1)) {
      ledger.push({
        date: d,
        state: "not_chargeable",
        reason: blockedReason(d) ?? "before the clock starts",
        amount: zero,
      });
    }
    const lastNoted = lastFreeDay && lastFreeDay < endDate ? lastFreeDay : endDate;
    for (let d = clockDate; d <= lastNoted; d = addDays(d, 1)) {
      const note = notes.get(d);
      const reason = blockedReason(d);
      if (note) ledger.push({ date: d, ...note, amount: zero });
      else if (reason) ledger.push({ date: d, state: "not_chargeable", reason, amount: zero });
      else {
        const why =
          d === clockDate ? "the clock starts this day (not counted)" : "on or before the terminal's last free day";
        ledger.push({ date: d, state: "free", reason: why, amount: zero });
      }
    }
  }
  const project = !stoppedAt && clockDate !== null;
  const tomorrowDate = addDays(asOfDate, 1);
  let through = endDate;
  if (project && tomorrowDate > through) through = tomorrowDate;
  if (project && input.outOn && input.outOn > through) through = input.outOn;
  const priced = price(through);
  let lastState: LedgerDay["state"] | null = null;
  for (const d of priced) {
    if (d.date > endDate) break;
    lastState = d.date === endDate ? d.state : null;
    if (withLedger) ledger.push({ date: d.date, state: d.state, reason: d.reason, amount: d.amount });
  }
  const toDate = upTo(priced, endDate);
  const tomorrow = project ? upTo(priced, tomorrowDate).total : null;
  const onDate = project && input.outOn ? upTo(priced, input.outOn).total : null;
  return {
    kind: input.kind,
    basis,
    tariffId: tariff.id,
    tariffExplanation: [
      ...choice.explanation,
      basis === "terminal_lfd"
        ? `The terminal reported the last free day ${input.terminalLfd}; it overrides the tariff's ${tariff.freeDays} ${tariff.freeDaysBasis} free days.`
        : `Free time: ${tariff.freeDays} ${tariff.freeDaysBasis} day(s) from the day after ${tariff.clockStartsAt}.`,
    ],
    clockStartedAt,
    lastFreeDay,
    freeTimeEndsAt,
    stoppedAt,
    chargeableDays: toDate.n,
    amountToDate: formatMinorUnits(toDate.total, currency),
    amountIfOutTomorrow: tomorrow === null ? null : formatMinorUnits(tomorrow, currency),
    amountIfOutOn: onDate === null ? null : formatMinorUnits(onDate, currency),
    currencyCode: currency,
    accruing: !stoppedAt && lastState === "chargeable",
    ledger,
  };
}

/** Days from the as-of date to the last free day (negative once past it), or null without an LFD. */
export function daysToFreeTimeEnd(line: Pick<ChargeLine, "lastFreeDay">, asOfDate: string): number | null {
  return line.lastFreeDay ? daysBetween(asOfDate, line.lastFreeDay) : null;
}
