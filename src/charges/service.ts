import { and, eq, inArray, isNull, type SQL, sql } from "drizzle-orm";
import type { Database } from "../db/client";
import { containers, ports, tariffs, transportEvents } from "../db/schema";
import { ApiError } from "../lib/errors";
import { ownedBy } from "../lib/tenant";
import { tariffOfRow } from "../tariffs/serializer";
import { type BoxCharges, chargesOf, isAccruing } from "./calculator";
import {
  AVAILABILITY_EVENTS,
  type AvailabilityChange,
  boxChargeFactsOf,
  type ContainerChargeRow,
  type PortCalendarRow,
} from "./facts";
import type { ChargeLine } from "./ledger";
import { addDays, daysBetween, localDateOf, startOfLocalDay } from "./local-dates";
import { formatMinorUnits, toMinorUnits } from "./money";
import type { Tariff } from "./tariff-match";

const chargeColumns = {
  id: containers.id,
  number: containers.number,
  scac: containers.scac,
  podLocode: containers.podLocode,
  podTerminalId: containers.podTerminalId,
  equipmentLength: containers.equipmentLength,
  equipmentType: containers.equipmentType,
  podTimezone: containers.podTimezone,
  podDischargedAt: containers.podDischargedAt,
  availabilityKnown: containers.availabilityKnown,
  availableForPickup: containers.availableForPickup,
  holdsAtPodTerminal: containers.holdsAtPodTerminal,
  terminalCheckedAt: containers.terminalCheckedAt,
  podFullOutAt: containers.podFullOutAt,
  emptyTerminatedAt: containers.emptyTerminatedAt,
  pickupLfdTerminal: containers.pickupLfdTerminal,
};

const changeColumns = {
  containerId: transportEvents.containerId,
  event: transportEvents.event,
  timestamp: transportEvents.timestamp,
};
const portColumns = { code: ports.code, countryCode: ports.countryCode, stateAbbr: ports.stateAbbr };

/** When to compute charges: a local date at each box's port (end of that day), or the instant `nowMs`. */
export interface AsOf {
  nowMs: number;
  /** `as_of` query date, or null for now. */
  date: string | null;
}

/** How far from today `as_of` and `out_on` may reach, in days (a ledger walks every day in between). */
export const MAX_DATE_REACH_DAYS = 366;
/** The earliest `as_of`. */
const EARLIEST_AS_OF = "2000-01-01";

/**
 * Checks `as_of` (from 2000-01-01 to a year from now) and `out_on` (not before the as-of date, at most a year after
 * it) before any work: a ledger walks every day between them.
 * @throws ApiError 400 naming the parameter.
 */
export function checkDates(asOf: AsOf, outOn: string | null, asOfDate?: string): void {
  const today = new Date(asOf.nowMs).toISOString().slice(0, 10);
  if (asOf.date && (asOf.date < EARLIEST_AS_OF || asOf.date > addDays(today, MAX_DATE_REACH_DAYS))) {
    throw ApiError.badParameter("as_of", `as_of must be from ${EARLIEST_AS_OF} to a year from today`);
  }
  const from = asOfDate ?? asOf.date ?? today;
  if (outOn && outOn < from) {
    throw ApiError.badParameter("out_on", `out_on must not be before the as-of date (${from})`);
  }
  if (outOn && outOn > addDays(from, MAX_DATE_REACH_DAYS)) {
    throw ApiError.badParameter("out_on", "out_on must be at most a year after the as-of date");
  }
}

/** The instant a box's charges are computed as of: the last millisecond of `asOf.date` at its port, else now. */
export function asOfInstant(asOf: AsOf, timeZone: string): number {
  return asOf.date ? startOfLocalDay(addDays(asOf.date, 1), timeZone) - 1 : asOf.nowMs;
}

/** One box's charges with what identifies it. */
export interface ContainerCharges {
  containerId: string;
  containerNumber: string;
  asOfDate: string;
  charges: BoxCharges;
}

/**
 * The charges of one container of the account (`GET /containers/{id}/charges`, docs/api.md §Charges): its row, its
 * availability changes, its POD's calendar row and the account's tariffs in one D1 round trip, then `chargesOf`.
 * @throws ApiError 404 when the container is unknown or another account's; 400 when `outOn` is before the as-of date.
 */
export async function getContainerCharges(
  db: Database,
  accountId: string,
  id: string,
  asOf: AsOf,
  outOn: string | null,
): Promise<ContainerCharges> {
  checkDates(asOf, outOn);
  const owned = and(ownedBy(containers.accountId, accountId), eq(containers.id, id));
  const [rows, changes, portRows, tariffRows] = await db.batch([
    db.select(chargeColumns).from(containers).where(owned).limit(1),
    db
      .select(changeColumns)
      .from(transportEvents)
      .where(
        and(
          inArray(transportEvents.containerId, db.select({ id: containers.id }).from(containers).where(owned)),
          inArray(transportEvents.event, [...AVAILABILITY_EVENTS]),
          isNull(transportEvents.invalidatedAt),
        ),
      ),
    db
      .select(portColumns)
      .from(ports)
      .where(inArray(ports.code, db.select({ code: containers.podLocode }).from(containers).where(owned))),
    db.select().from(tariffs).where(eq(tariffs.accountId, accountId)),
  ]);
  const row = rows[0] as ContainerChargeRow | undefined;
  if (!row) throw ApiError.notFound("Couldn't find Container");
  const facts = boxChargeFactsOf(row, changes, portRows[0] ?? null);
  const asOfMs = asOfInstant(asOf, facts.timeZone);
  const asOfDate = localDateOf(asOfMs, facts.timeZone);
  checkDates(asOf, outOn, asOfDate);
  const charges = chargesOf(facts, tariffRows.map(tariffOfRow), asOfMs, { outOn });
  return { containerId: row.id, containerNumber: row.number, asOfDate, charges };
}

/**
 * Where a box stands in the portfolio: `accruing` (a chargeable day as of now), `at_risk` (free time ends within the
 * window), `free` (in free time), `not_started` (a charge applies but its clock has not started: not yet discharged,
 * available or out, as the tariff counts), `stopped` (every charge has stopped: out, or the empty is back).
 */
export type PortfolioStatus = "accruing" | "at_risk" | "free" | "not_started" | "stopped";

/** A box of the portfolio: its charges, its standing and its figures for sorting. */
export interface PortfolioRow extends ContainerCharges {
  status: PortfolioStatus;
  /** The earliest free-time end of its running charges (ISO 8601 UTC), or null. */
  freeTimeEndsAt: string | null;
  /** Amount to date per currency, minor units. */
  amountByCurrency: Map<string, number>;
}

/** Filters and order of `GET /charges`. */
export interface PortfolioQuery {
  /** Which boxes: `accruing`, `at_risk` (free time ends within `withinDays`), or `any` charge. */
  status: "accruing" | "at_risk" | "any" | "attention";
  withinDays: number;
  sort: "amount" | "-amount" | "free_time_ends_at" | "-free_time_ends_at";
}

/** Totals of a portfolio per currency (decimal strings) and its counts. */
export interface PortfolioTotals {
  currencies: { currency_code: string; amount_to_date: string; amount_if_out_tomorrow: string; boxes: number }[];
  accruing: number;
  at_risk: number;
}

function linesOf(charges: BoxCharges): ChargeLine[] {
  return [charges.demurrage, charges.detention, charges.terminalStorage].filter((l): l is ChargeLine => l !== null);
}

function statusOf(charges: BoxCharges, asOfDate: string, withinDays: number): PortfolioStatus | null {
  const lines = linesOf(charges);
  if (lines.length === 0) return null;
  if (lines.some((l) => isAccruing(l))) return "accruing";
  const running = lines.filter((l) => l.stoppedAt === null && l.lastFreeDay !== null);
  if (running.some((l) => l.lastFreeDay && daysBetween(asOfDate, l.lastFreeDay) <= withinDays)) return "at_risk";
  if (running.length > 0) return "free";
  return lines.some((l) => l.clockStartedAt === null) ? "not_started" : "stopped";
}

/**
 * The account's portfolio of charges (`GET /charges`, docs/api.md §Charges): every container's charges as of now
 * or `as_of` (as of now, boxes whose empty is back are read only for `any`: their charges have all stopped), the
 * boxes `query` selects in its order, totals per currency over the selected boxes, and the counts of accruing and
 * at-risk boxes over all. The containers, their availability changes, their ports and the tariffs are read in one D1
 * round trip; the calculation is in memory (bench/charges measures it at 10 000 and 100 000 boxes). Amounts in different currencies sort by their numbers (there
 * is no exchange rate).
 */
export async function portfolioCharges(
  db: Database,
  accountId: string,
  asOf: AsOf,
  query: PortfolioQuery,
): Promise<{ rows: PortfolioRow[]; totals: PortfolioTotals }> {
  checkDates(asOf, null);
  // A box whose empty is back has every charge stopped: as of now, only `any` needs those (most of an account's
  // history). A past `as_of` reads them all, since they may have been running then.
  const running =
    query.status === "any" || asOf.date !== null
      ? eq(containers.accountId, accountId)
      : and(eq(containers.accountId, accountId), isNull(containers.emptyTerminatedAt));
  const inputs = await chargeInputsOf(db, accountId, running);
  return portfolioOf(inputs.rows, inputs.changes, inputs.portRows, inputs.tariffList, asOf, query);
}

/**
 * What the calculator needs for the account's boxes that `boxes` selects, in one D1 round trip: their charge rows,
 * their availability changes (not invalidated), the calendars of their PODs, and the account's tariffs. Shared by
 * {@link portfolioCharges} and {@link chargesOfContainers}.
 */
async function chargeInputsOf(db: Database, accountId: string, boxes: SQL | undefined) {
  const ids = db.select({ id: containers.id }).from(containers).where(boxes);
  const [rows, changes, portRows, tariffRows] = await db.batch([
    db.select(chargeColumns).from(containers).where(boxes),
    db
      .select(changeColumns)
      .from(transportEvents)
      .where(
        and(
          inArray(transportEvents.containerId, ids),
          inArray(transportEvents.event, [...AVAILABILITY_EVENTS]),
          isNull(transportEvents.invalidatedAt),
        ),
      ),
    db
      .select(portColumns)
      .from(ports)
      .where(
        inArray(
          ports.code,
          db
            .selectDistinct({ code: sql<string>`${containers.podLocode}` })
            .from(containers)
            .where(boxes),
        ),
      ),
    db.select().from(tariffs).where(eq(tariffs.accountId, accountId)),
  ]);
  return { rows: rows as ContainerChargeRow[], changes, portRows, tariffList: tariffRows.map(tariffOfRow) };
}

/**
 * The in-memory part of {@link portfolioCharges}: each box's facts and charges, its standing, the selection, its order
 * and the totals. Pure; `changes` carry their container's id.
 */
export function portfolioOf(
  rows: readonly ContainerChargeRow[],
  changes: readonly (AvailabilityChange & { containerId: string })[],
  portRows: readonly (PortCalendarRow & { code: string })[],
  tariffList: readonly Tariff[],
  asOf: AsOf,
  query: PortfolioQuery,
): { rows: PortfolioRow[]; totals: PortfolioTotals } {
  const portByCode = new Map(portRows.map((p) => [p.code, p as PortCalendarRow]));
  const changesByBox = new Map<string, AvailabilityChange[]>();
  for (const c of changes) {
    const list = changesByBox.get(c.containerId);
    if (list) list.push(c);
    else changesByBox.set(c.containerId, [c]);
  }
  const all: PortfolioRow[] = [];
  let accruing = 0;
  let atRisk = 0;
  if (tariffList.length === 0) return { rows: [], totals: { currencies: [], accruing: 0, at_risk: 0 } };
  for (const row of rows) {
    const facts = boxChargeFactsOf(row, changesByBox.get(row.id) ?? [], portByCode.get(row.podLocode ?? "") ?? null);
    const asOfMs = asOfInstant(asOf, facts.timeZone);
    const asOfDate = localDateOf(asOfMs, facts.timeZone);
    const charges = chargesOf(facts, tariffList, asOfMs, { withLedger: false });
    const status = statusOf(charges, asOfDate, query.withinDays);
    if (!status) continue;
    if (status === "accruing") accruing++;
    if (status === "at_risk") atRisk++;
    const amountByCurrency = new Map<string, number>();
    for (const line of linesOf(charges)) {
      const toDate = toMinorUnits(line.amountToDate, line.currencyCode) ?? 0;
      amountByCurrency.set(line.currencyCode, (amountByCurrency.get(line.currencyCode) ?? 0) + toDate);
    }
    const ends = linesOf(charges)
      .filter((l) => l.stoppedAt === null && l.freeTimeEndsAt !== null)
      .map((l) => l.freeTimeEndsAt as string)
      .sort();
    all.push({
      containerId: row.id,
      containerNumber: row.number,
      asOfDate,
      charges,
      status,
      freeTimeEndsAt: ends[0] ?? null,
      amountByCurrency,
    });
  }
  const selected = all.filter((r) =>
    query.status === "any"
      ? true
      : query.status === "attention"
        ? r.status === "accruing" || r.status === "at_risk"
        : r.status === query.status,
  );
  const amountOf = (r: PortfolioRow) => {
    let n = 0;
    for (const [currency, minor] of r.amountByCurrency) n += Number(formatMinorUnits(minor, currency));
    return n;
  };
  const direction = query.sort.startsWith("-") ? -1 : 1;
  selected.sort((a, b) => {
    const primary = query.sort.endsWith("amount")
      ? amountOf(a) - amountOf(b)
      : (a.freeTimeEndsAt ?? "9999").localeCompare(b.freeTimeEndsAt ?? "9999");
    return direction * primary || a.containerNumber.localeCompare(b.containerNumber);
  });
  const sums = new Map<string, { toDate: number; tomorrow: number; boxes: number }>();
  for (const r of selected) {
    const counted = new Set<string>();
    for (const line of linesOf(r.charges)) {
      const sum = sums.get(line.currencyCode) ?? { toDate: 0, tomorrow: 0, boxes: 0 };
      sum.toDate += toMinorUnits(line.amountToDate, line.currencyCode) ?? 0;
      sum.tomorrow += toMinorUnits(line.amountIfOutTomorrow ?? line.amountToDate, line.currencyCode) ?? 0;
      if (!counted.has(line.currencyCode)) sum.boxes++;
      counted.add(line.currencyCode);
      sums.set(line.currencyCode, sum);
    }
  }
  const currencies = [...sums.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([code, s]) => ({
      currency_code: code,
      amount_to_date: formatMinorUnits(s.toDate, code),
      amount_if_out_tomorrow: formatMinorUnits(s.tomorrow, code),
      boxes: s.boxes,
    }));
  return { rows: selected, totals: { currencies, accruing, at_risk: atRisk } };
}

/** Most ids {@link chargesOfContainers} binds; past it, it reads the account's boxes and keeps the ones asked for. */
const MAX_BOUND_CHARGE_IDS = 89;

/**
 * The charges as of now of some of the account's containers (the dashboard's table and its CSV export, issue 28): the
 * portfolio's calculation (`portfolioOf`) over those boxes only. Their rows, availability changes, ports and the
 * account's tariffs are read in one D1 round trip: by id for up to 89 boxes (D1 binds at most 100 parameters a
 * statement), else the account's boxes as `portfolioCharges` reads them, keeping those asked for. Boxes no tariff or
 * terminal LFD applies to are absent from the map.
 * @returns each box's portfolio row by container id.
 */
export async function chargesOfContainers(
  db: Database,
  accountId: string,
  containerIds: readonly string[],
  nowMs: number,
): Promise<Map<string, PortfolioRow>> {
  if (containerIds.length === 0) return new Map();
  const wanted = new Set(containerIds);
  const byId = wanted.size <= MAX_BOUND_CHARGE_IDS;
  const owned = byId
    ? and(eq(containers.accountId, accountId), inArray(containers.id, [...wanted]))
    : eq(containers.accountId, accountId);
  const { rows, changes, portRows, tariffList } = await chargeInputsOf(db, accountId, owned);
  const { rows: charged } = portfolioOf(
    rows.filter((r) => byId || wanted.has(r.id)),
    changes,
    portRows,
    tariffList,
    { nowMs, date: null },
    { status: "any", withinDays: 0, sort: "amount" },
  );
  return new Map(charged.map((r) => [r.containerId, r]));
}
