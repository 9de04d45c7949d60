import type { Database } from "../db/client";
import type { Clock } from "../lib/clock";
import { isAccruing } from "./calculator";
import { chargeLineWire } from "./serializer";
import { getContainerCharges, portfolioCharges } from "./service";

/** One box of a demurrage report, in the REST wire names (docs/api.md §Charges). */
export interface DemurrageReportBox {
  container_id: string;
  container_number: string;
  as_of: string;
  status: string | null;
  demurrage: Record<string, unknown> | null;
  detention: Record<string, unknown> | null;
  terminal_storage: Record<string, unknown> | null;
}

/** What `get_demurrage_report` answers: one box (with ledgers) or the portfolio's boxes needing attention. */
export interface DemurrageReport {
  scope: "container" | "portfolio";
  boxes: DemurrageReportBox[];
  totals: { currency_code: string; amount_to_date: string; amount_if_out_tomorrow: string; boxes: number }[];
  accruing: number;
  at_risk: number;
}

/** The most boxes a portfolio report lists (the most expensive first); the totals cover all of them. */
const MAX_REPORT_BOXES = 50;

/**
 * The charges of one container (`containerId`; ledgers included) or of the account's portfolio (null: the boxes
 * accruing or at risk within `withinDays`, most expensive first, at most 50 listed), as `GET /containers/{id}/charges`
 * and `GET /charges` compute them, for the MCP `get_demurrage_report` tool.
 * @throws ApiError 404 for an unknown or another account's container; 400 for a bad date.
 */
export async function demurrageReportOf(
  deps: { db: Database; clock: Clock; accountId: string },
  containerId: string | null,
  asOfDate: string | null,
  withinDays: number,
): Promise<DemurrageReport> {
  const asOf = { nowMs: deps.clock.now(), date: asOfDate };
  if (containerId) {
    const c = await getContainerCharges(deps.db, deps.accountId, containerId, asOf, null);
    const lines = [c.charges.demurrage, c.charges.detention, c.charges.terminalStorage];
    return {
      scope: "container",
      boxes: [
        {
          container_id: c.containerId,
          container_number: c.containerNumber,
          as_of: c.asOfDate,
          status: null,
          demurrage: chargeLineWire(c.charges.demurrage),
          detention: chargeLineWire(c.charges.detention),
          terminal_storage: chargeLineWire(c.charges.terminalStorage),
        },
      ],
      totals: [],
      accruing: lines.some(isAccruing) ? 1 : 0,
      at_risk: 0,
    };
  }
  const { rows, totals } = await portfolioCharges(deps.db, deps.accountId, asOf, {
    status: "attention",
    withinDays,
    sort: "-amount",
  });
  return {
    scope: "portfolio",
    boxes: rows.slice(0, MAX_REPORT_BOXES).map((r) => ({
      container_id: r.containerId,
      container_number: r.containerNumber,
      as_of: r.asOfDate,
      status: r.status,
      demurrage: chargeLineWire(r.charges.demurrage, false),
      detention: chargeLineWire(r.charges.detention, false),
      terminal_storage: chargeLineWire(r.charges.terminalStorage, false),
    })),
    totals: totals.currencies,
    accruing: totals.accruing,
    at_risk: totals.at_risk,
  };
}
