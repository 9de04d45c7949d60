import { registerResourceType } from "../lib/jsonapi/include-registry";
import type { ResourceObject } from "../lib/jsonapi/types";
import type { BoxCharges } from "./calculator";
import type { ChargeLine } from "./ledger";
import type { ContainerCharges, PortfolioRow } from "./service";

/**
 * A charge line in wire names (issue 27 wire names `{basis, tariff_id, clock_started_at, free_time_ends_at,
 * chargeable_days, amount_to_date, amount_if_out_tomorrow, currency_code, ledger}`, extended with `kind`,
 * `tariff_explanation`, `last_free_day`, `stopped_at` and `amount_if_out_on`). `withLedger` false leaves the ledger out
 * (the portfolio's rows).
 */
export function chargeLineWire(line: ChargeLine | null, withLedger = true): Record<string, unknown> | null {
  if (!line) return null;
  return {
    kind: line.kind,
    basis: line.basis,
    tariff_id: line.tariffId,
    tariff_explanation: line.tariffExplanation,
    clock_started_at: line.clockStartedAt,
    last_free_day: line.lastFreeDay,
    free_time_ends_at: line.freeTimeEndsAt,
    stopped_at: line.stoppedAt,
    chargeable_days: line.chargeableDays,
    amount_to_date: line.amountToDate,
    amount_if_out_tomorrow: line.amountIfOutTomorrow,
    amount_if_out_on: line.amountIfOutOn,
    currency_code: line.currencyCode,
    ...(withLedger ? { ledger: line.ledger } : {}),
  };
}

function chargeAttributes(charges: BoxCharges, withLedger: boolean) {
  return {
    demurrage: chargeLineWire(charges.demurrage, withLedger),
    detention: chargeLineWire(charges.detention, withLedger),
    terminal_storage: chargeLineWire(charges.terminalStorage, withLedger),
  };
}

/**
 * The `container_charges` resource of one box (docs/api.md §Charges): its id is the container's, with `as_of` (the
 * local date at the POD it was computed for), `container_number`, the three charges and a `container` relationship.
 */
export function serializeContainerCharges(c: ContainerCharges): ResourceObject {
  return {
    id: c.containerId,
    type: "container_charges",
    attributes: { as_of: c.asOfDate, container_number: c.containerNumber, ...chargeAttributes(c.charges, true) },
    relationships: { container: { data: { id: c.containerId, type: "container" } } },
  };
}

/** A portfolio row: the same resource with its `status` and `free_time_ends_at`, without ledgers. */
export function serializePortfolioRow(r: PortfolioRow): ResourceObject {
  return {
    id: r.containerId,
    type: "container_charges",
    attributes: {
      as_of: r.asOfDate,
      container_number: r.containerNumber,
      status: r.status,
      free_time_ends_at: r.freeTimeEndsAt,
      ...chargeAttributes(r.charges, false),
    },
    relationships: { container: { data: { id: r.containerId, type: "container" } } },
  };
}

const CSV_COLUMNS = [
  "container_id",
  "container_number",
  "status",
  "as_of",
  "kind",
  "basis",
  "tariff_id",
  "clock_started_at",
  "last_free_day",
  "free_time_ends_at",
  "stopped_at",
  "chargeable_days",
  "amount_to_date",
  "amount_if_out_tomorrow",
  "currency_code",
] as const;

/** A CSV field quoted when it holds a comma, quote or line break (RFC 4180), and defused against formula injection. */
function csvField(value: unknown): string {
  let s = value === null || value === undefined ? "" : String(value);
  if (/^[=+\-@\t\r]/.test(s) && !/^-?\d/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

/** The portfolio as CSV (RFC 4180, CRLF): one line per box and kind of charge, the columns of `CSV_COLUMNS`. */
export function portfolioCsv(rows: readonly PortfolioRow[]): string {
  const lines = [CSV_COLUMNS.join(",")];
  for (const r of rows) {
    for (const line of [r.charges.demurrage, r.charges.detention, r.charges.terminalStorage]) {
      if (!line) continue;
      const values: Record<(typeof CSV_COLUMNS)[number], unknown> = {
        container_id: r.containerId,
        container_number: r.containerNumber,
        status: r.status,
        as_of: r.asOfDate,
        kind: line.kind,
        basis: line.basis,
        tariff_id: line.tariffId,
        clock_started_at: line.clockStartedAt,
        last_free_day: line.lastFreeDay,
        free_time_ends_at: line.freeTimeEndsAt,
        stopped_at: line.stoppedAt,
        chargeable_days: line.chargeableDays,
        amount_to_date: line.amountToDate,
        amount_if_out_tomorrow: line.amountIfOutTomorrow,
        currency_code: line.currencyCode,
      };
      lines.push(CSV_COLUMNS.map((c) => csvField(values[c])).join(","));
    }
  }
  return `${lines.join("\r\n")}\r\n`;
}

/** JSON:API type `container_charges` (registered so the type is known to the registry; it has no includes). */
export const containerChargesResource = registerResourceType<ContainerCharges>({
  type: "container_charges",
  serializerName: "V2::ContainerChargesSerializer",
  serialize: serializeContainerCharges,
  relationships: {},
});
