import { holidayCalendarOf } from "./holidays";
import { type BlockedSpan, type ChargeLine, chargeLineOf } from "./ledger";
import { localDateOf } from "./local-dates";
import { chooseTariff, type Tariff, type TariffKind, type TariffScopeFacts } from "./tariff-match";

/**
 * The facts of a box the calculator reads (issue 27 §1), all already derived by tracking: times are ISO 8601 UTC, the
 * LFD a local date at the POD. `timeZone` is the POD's IANA zone (UTC when unknown); `countryCode` and `subdivision`
 * name its holiday calendar (the LOCODE's country, and the port's state for US ports).
 */
export interface BoxChargeFacts extends TariffScopeFacts {
  timeZone: string;
  countryCode: string | null;
  subdivision: string | null;
  dischargedAt: string | null;
  /** When the terminal first reported the box available for pickup, or null. */
  availableAt: string | null;
  fullOutAt: string | null;
  /** When the empty was returned (`empty_terminated_at`), or null. */
  emptyReturnedAt: string | null;
  /** The POD terminal's last free day (`import_deadlines.pickup_lfd_terminal`), or null. */
  terminalLfd: string | null;
  /** Spans when the box could not be picked up (see `blockedSpansOf` in src/charges/facts.ts). */
  blocked: BlockedSpan[];
}

/** Every charge of one box: each null when no tariff of its kind applies. */
export interface BoxCharges {
  /** Demurrage, or the combined charge (kind `combined`) when a combined tariff is the most specific. */
  demurrage: ChargeLine | null;
  /** Detention; null when a combined tariff covers it. */
  detention: ChargeLine | null;
  /** The terminal's storage charge (kind `terminal_storage`). */
  terminalStorage: ChargeLine | null;
}

/** Options of {@link chargesOf}. */
export interface ChargesOptions {
  /** A local date at the port to price "if out (or returned) on"; null for none. */
  outOn?: string | null;
  /** False to leave the ledgers empty (the portfolio); the figures are the same. */
  withLedger?: boolean;
}

function clockEvent(facts: BoxChargeFacts, tariff: Tariff): string | null {
  if (tariff.clockStartsAt === "discharged") return facts.dischargedAt;
  if (tariff.clockStartsAt === "available") return facts.availableAt;
  return facts.fullOutAt;
}

/**
 * The demurrage, detention and terminal storage of a box as of an instant (issue 27 §1; docs/charges.md):
 * - demurrage: the most specific `demurrage` or `combined` tariff; the clock starts at discharge or availability (as
 *   the tariff says); the terminal's LFD, when reported, overrides the tariff's free time (`basis: terminal_lfd`);
 *   charges stop at full out (at empty return for `combined`); days the box could not be picked up are not chargeable;
 * - detention: the most specific `detention` tariff, from full out to empty return (none when combined applies);
 * - terminal storage: like demurrage, with `terminal_storage` tariffs.
 * Pure: no I/O; holidays come from the `date-holidays` package.
 * @param asOfMs the instant to compute as of (ms since the epoch); facts after it are ignored.
 */
export function chargesOf(
  facts: BoxChargeFacts,
  tariffs: readonly Tariff[],
  asOfMs: number,
  options: ChargesOptions = {},
): BoxCharges {
  const holidays = holidayCalendarOf(facts.countryCode ?? "", facts.subdivision);
  const outOn = options.outOn ?? null;
  const pickupLine = (kinds: TariffKind[]): ChargeLine | null => {
    const choice = chooseTariff(tariffs, facts, kinds);
    if (!choice) return null;
    const combined = choice.tariff.kind === "combined";
    return chargeLineOf({
      kind: choice.tariff.kind,
      choice,
      timeZone: facts.timeZone,
      holidays,
      clockStartedAt: clockEvent(facts, choice.tariff),
      ledgerFrom: facts.dischargedAt,
      stoppedAt: combined ? facts.emptyReturnedAt : facts.fullOutAt,
      terminalLfd: facts.terminalLfd,
      blocked: facts.blocked,
      asOfMs,
      outOn,
      withLedger: options.withLedger,
    });
  };
  const demurrage = pickupLine(["demurrage", "combined"]);
  let detention: ChargeLine | null = null;
  if (demurrage?.kind !== "combined") {
    const choice = chooseTariff(tariffs, facts, ["detention"]);
    if (choice) {
      detention = chargeLineOf({
        kind: "detention",
        choice,
        timeZone: facts.timeZone,
        holidays,
        clockStartedAt: facts.fullOutAt,
        ledgerFrom: null,
        stoppedAt: facts.emptyReturnedAt,
        terminalLfd: null,
        blocked: [],
        asOfMs,
        outOn,
        withLedger: options.withLedger,
      });
    }
  }
  return { demurrage, detention, terminalStorage: pickupLine(["terminal_storage"]) };
}

/**
 * The last free day (local date at the port) of a box's demurrage as of an instant, and its basis; null when no
 * demurrage tariff applies or the clock has not started without a terminal LFD. For alert evaluation ("free time ends
 * within N days").
 */
export function freeTimeEndOfBox(
  facts: BoxChargeFacts,
  tariffs: readonly Tariff[],
  asOfMs: number,
): { lastFreeDay: string; freeTimeEndsAt: string; basis: ChargeLine["basis"] } | null {
  const line = chargesOf(facts, tariffs, asOfMs).demurrage;
  if (!line?.lastFreeDay || !line.freeTimeEndsAt) return null;
  return { lastFreeDay: line.lastFreeDay, freeTimeEndsAt: line.freeTimeEndsAt, basis: line.basis };
}

/** True when a charge is accruing as of its computation: not stopped, and its as-of day is chargeable. */
export function isAccruing(line: ChargeLine | null): boolean {
  return line?.accruing === true;
}

/** The local date at the box's port of an instant (for `as_of` arithmetic of callers). */
export function portDateOf(facts: Pick<BoxChargeFacts, "timeZone">, utcMs: number): string {
  return localDateOf(utcMs, facts.timeZone);
}

/** The tariff a box's demurrage is priced by when the terminal reported an LFD but no tariff of the account applies. */
const UNPRICED_TERMINAL_LFD: Tariff = {
  id: "",
  name: null,
  kind: "demurrage",
  scac: null,
  portCode: null,
  terminalId: null,
  equipmentLength: null,
  equipmentType: null,
  freeDays: 0,
  freeDaysBasis: "calendar",
  clockStartsAt: "discharged",
  tiers: [],
  updatedAt: "1970-01-01T00:00:00Z",
};

/**
 * The free time at the terminal of a box, for alerts and the charges webhook events (issue 27 §2): the calculator's
 * demurrage (or combined) line, so its last free day is the terminal's LFD when reported, else the matching tariff's
 * calculated one, and `accruing` is the calculator's. When no demurrage or combined tariff applies but the terminal
 * reported an LFD, the same line is computed with no rate (`priced` false: days and dates are the calculator's, the
 * amounts unknown). Null when neither applies.
 * @param asOfMs the instant to compute as of (ms since the epoch).
 * @param charges `chargesOf(facts, tariffs, asOfMs)` when the caller has it already (computed here otherwise).
 */
export function pickupFreeTimeOf(
  facts: BoxChargeFacts,
  tariffs: readonly Tariff[],
  asOfMs: number,
  charges: BoxCharges = chargesOf(facts, tariffs, asOfMs, { withLedger: false }),
): { line: ChargeLine; priced: boolean } | null {
  const line = charges.demurrage;
  if (line) return { line, priced: true };
  if (!facts.terminalLfd) return null;
  const unpriced = chargesOf(facts, [UNPRICED_TERMINAL_LFD], asOfMs, { withLedger: false }).demurrage;
  return unpriced ? { line: unpriced, priced: false } : null;
}
