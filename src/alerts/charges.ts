import { and, inArray, isNull } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { chargesOf, pickupFreeTimeOf } from "../charges/calculator";
import { AVAILABILITY_EVENTS, type AvailabilityChange, boxChargeFactsOf, type PortCalendarRow } from "../charges/facts";
import type { ChargeLine } from "../charges/ledger";
import { localDateOf } from "../charges/local-dates";
import type { Tariff } from "../charges/tariff-match";
import type { ContainerRow } from "../containers/serializer";
import type { Database } from "../db/client";
import { ports, tariffs, transportEvents } from "../db/schema";
import { tariffOfRow } from "../tariffs/serializer";

/**
 * What the tariff calculator (src/charges/) says about a box, for its alerts (issue 27 §2): written once, here, so
 * the conditions, the charges webhook events and the messages all tell the same truth.
 */

/** One charge of a box as an alert states it (the calculator's line, with what it is based on). */
export interface AlertChargeLine {
  kind: ChargeLine["kind"];
  /** `terminal_lfd` (the terminal reported the LFD) or `tariff` (calculated from the tariff's free time). */
  basis: ChargeLine["basis"];
  /** The tariff that prices the line, or null when no tariff applies (a terminal LFD alone: amounts unknown). */
  tariffId: string | null;
  tariffName: string | null;
  /** The last free day (free-time end, or empty return due date), a local date at the port; null before the clock. */
  lastFreeDay: string | null;
  /** The instant free time ends (local midnight after the last free day), ms since the epoch; null without one. */
  freeTimeEndsAtMs: number | null;
  /** Stopped (box out, empty back) by the as-of instant. */
  stopped: boolean;
  accruing: boolean;
  chargeableDays: number;
  /** Decimal strings in `currencyCode` (ISO 4217); null when no tariff prices the line. */
  amountToDate: string | null;
  amountIfOutTomorrow: string | null;
  currencyCode: string | null;
}

/** The calculator's view of a box as of an instant: its pickup free time (demurrage or combined) and its detention. */
export interface AlertCharges {
  /** Today, a local date at the box's POD (the calculator's time zone). */
  today: string;
  /** Demurrage, or the combined charge; null with neither a matching tariff nor a terminal LFD. */
  demurrage: AlertChargeLine | null;
  /** The empty return: the detention line, or the combined one; null without such a tariff (no known due date). */
  emptyReturn: AlertChargeLine | null;
}

/** What the calculator reads besides a box's row, for a batch of boxes (see {@link chargeInputsQueries}). */
export interface ChargeInputs {
  changesByBox: Map<string, AvailabilityChange[]>;
  portByCode: Map<string, PortCalendarRow>;
  tariffsByAccount: Map<string, Tariff[]>;
}

/** Ids per `IN (…)` list: D1 binds at most 100 parameters per statement. */
const CHUNK = 80;

function chunks<T>(xs: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < xs.length; i += CHUNK) out.push(xs.slice(i, i + CHUNK));
  return out;
}

/**
 * Reads what the calculator needs for some boxes in one D1 round trip (as src/charges/service.ts does for one box):
 * their availability changes, their PODs' calendar rows and their accounts' tariffs, chunked by 80 ids a statement.
 */
export async function loadChargeInputs(db: Database, boxes: readonly ContainerRow[]): Promise<ChargeInputs> {
  const inputs: ChargeInputs = { changesByBox: new Map(), portByCode: new Map(), tariffsByAccount: new Map() };
  if (boxes.length === 0) return inputs;
  const ids = chunks([...new Set(boxes.map((b) => b.id))]);
  const codes = chunks([...new Set(boxes.map((b) => b.podLocode).filter((c): c is string => c !== null))]);
  const accounts = chunks([...new Set(boxes.map((b) => b.accountId))]);
  const changeQueries = ids.map((chunk) =>
    db
      .select({
        containerId: transportEvents.containerId,
        event: transportEvents.event,
        timestamp: transportEvents.timestamp,
      })
      .from(transportEvents)
      .where(
        and(
          inArray(transportEvents.containerId, chunk),
          inArray(transportEvents.event, [...AVAILABILITY_EVENTS]),
          isNull(transportEvents.invalidatedAt),
        ),
      ),
  );
  const portQueries = codes.map((chunk) =>
    db
      .select({ code: ports.code, countryCode: ports.countryCode, stateAbbr: ports.stateAbbr })
      .from(ports)
      .where(inArray(ports.code, chunk)),
  );
  const tariffQueries = accounts.map((chunk) => db.select().from(tariffs).where(inArray(tariffs.accountId, chunk)));
  const statements = [...changeQueries, ...portQueries, ...tariffQueries];
  const results = (await db.batch(
    statements as unknown as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]],
  )) as unknown[][];
  let i = 0;
  for (const _ of changeQueries) {
    for (const c of results[i++] as { containerId: string; event: string; timestamp: string | null }[]) {
      const list = inputs.changesByBox.get(c.containerId);
      if (list) list.push(c);
      else inputs.changesByBox.set(c.containerId, [c]);
    }
  }
  for (const _ of portQueries) {
    for (const p of results[i++] as (PortCalendarRow & { code: string })[]) inputs.portByCode.set(p.code, p);
  }
  for (const _ of tariffQueries) {
    for (const row of results[i++] as (typeof tariffs.$inferSelect)[]) {
      const list = inputs.tariffsByAccount.get(row.accountId) ?? [];
      list.push(tariffOfRow(row));
      inputs.tariffsByAccount.set(row.accountId, list);
    }
  }
  return inputs;
}

function alertLine(line: ChargeLine, priced: boolean, tariffList: readonly Tariff[]): AlertChargeLine {
  return {
    kind: line.kind,
    basis: line.basis,
    tariffId: priced ? line.tariffId : null,
    tariffName: priced ? (tariffList.find((t) => t.id === line.tariffId)?.name ?? null) : null,
    lastFreeDay: line.lastFreeDay,
    freeTimeEndsAtMs: line.freeTimeEndsAt ? Date.parse(line.freeTimeEndsAt) : null,
    stopped: line.stoppedAt !== null,
    accruing: line.accruing,
    chargeableDays: line.chargeableDays,
    amountToDate: priced ? line.amountToDate : null,
    amountIfOutTomorrow: priced ? line.amountIfOutTomorrow : null,
    currencyCode: priced ? line.currencyCode : null,
  };
}

/**
 * The calculator's charges of a box as of `nowMs` (pure): its facts from the row and `inputs`
 * (`boxChargeFactsOf`), the pickup free time from `pickupFreeTimeOf` (terminal LFD, else the tariff's), the empty
 * return from `chargesOf`'s detention line, or its combined line when a combined tariff is the most specific.
 */
export function alertChargesOf(container: ContainerRow, inputs: ChargeInputs, nowMs: number): AlertCharges {
  const facts = boxChargeFactsOf(
    container,
    inputs.changesByBox.get(container.id) ?? [],
    inputs.portByCode.get(container.podLocode ?? "") ?? null,
  );
  const tariffList = inputs.tariffsByAccount.get(container.accountId) ?? [];
  // One pass of the calculator: its demurrage (or combined) line is the pickup free time, its detention line the
  // empty return.
  const charges = chargesOf(facts, tariffList, nowMs, { withLedger: false });
  const pickup = pickupFreeTimeOf(facts, tariffList, nowMs, charges);
  const demurrage = pickup ? alertLine(pickup.line, pickup.priced, tariffList) : null;
  let emptyReturn: AlertChargeLine | null = null;
  if (charges.detention) emptyReturn = alertLine(charges.detention, true, tariffList);
  else if (charges.demurrage?.kind === "combined") emptyReturn = demurrage;
  return { today: localDateOf(nowMs, facts.timeZone), demurrage, emptyReturn };
}

/**
 * The calculator's charges of each of `boxes` as of `nowMs`, by container id, read in one round trip. `pending`:
 * availability changes not in D1 yet (a box update's own events, written in its batch), added to what is read.
 */
export async function chargesOfBoxes(
  db: Database,
  boxes: readonly ContainerRow[],
  nowMs: number,
  pending: readonly (AvailabilityChange & { containerId: string })[] = [],
): Promise<Map<string, AlertCharges>> {
  const inputs = await loadChargeInputs(db, boxes);
  for (const c of pending) {
    if (!(AVAILABILITY_EVENTS as readonly string[]).includes(c.event)) continue;
    const list = inputs.changesByBox.get(c.containerId) ?? [];
    if (!list.some((x) => x.event === c.event && x.timestamp === c.timestamp)) list.push(c);
    inputs.changesByBox.set(c.containerId, list);
  }
  return new Map(boxes.map((b) => [b.id, alertChargesOf(b, inputs, nowMs)]));
}
