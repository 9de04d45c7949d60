import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import type { DemurrageReport, DemurrageReportBox } from "../../charges/report";
import { orNull } from "../../lib/nullable";
import {
  containerIdArg,
  type McpDeps,
  READ_ONLY,
  registerTrackingTool,
  resolveContainerId,
  withNotFound,
} from "./common";

/**
 * `get_demurrage_report` (docs/mcp.md §Tools; issue 27 §1): demurrage, detention and terminal storage from the
 * account's tariffs, for one container (with its day-by-day ledger) or the portfolio (boxes accruing or at risk), the
 * same figures as `GET /v2/containers/{id}/charges` and `GET /v2/charges` (src/charges/report.ts).
 */

const Line = orNull(z.record(z.string(), z.unknown()));
const Box = z.object({
  container_id: z.string(),
  container_number: z.string(),
  as_of: z.string().describe("Local date at the POD the figures are for."),
  status: orNull(z.string()).describe("Portfolio only: accruing, at_risk, free, not_started or stopped."),
  demurrage: Line,
  detention: Line,
  terminal_storage: Line,
});

function lineText(kind: string, line: Record<string, unknown> | null): string | null {
  if (!line) return null;
  const lfd = line.last_free_day ? `LFD ${line.last_free_day} (${line.basis})` : "clock not started";
  const tomorrow = line.amount_if_out_tomorrow === null ? "" : `, ${line.amount_if_out_tomorrow} if out tomorrow`;
  return `  ${kind}: ${lfd}; ${line.chargeable_days} chargeable day(s), ${line.amount_to_date} ${line.currency_code} to date${tomorrow}`;
}

function boxText(b: DemurrageReportBox): string {
  const head = `- ${b.container_number}${b.status ? ` [${b.status}]` : ""} as of ${b.as_of}`;
  const lines = [
    lineText("demurrage", b.demurrage),
    lineText("detention", b.detention),
    lineText("terminal storage", b.terminal_storage),
  ].filter((l): l is string => l !== null);
  return [head, ...(lines.length > 0 ? lines : ["  no tariff of the account applies"])].join("\n");
}

function reportText(r: DemurrageReport): string {
  if (r.scope === "portfolio" && r.boxes.length === 0) {
    return "No box is accruing charges or at risk (or the account has no tariffs: add them with POST /v2/tariffs).";
  }
  const totals = r.totals.map((t) => `${t.amount_to_date} ${t.currency_code} to date over ${t.boxes} box(es)`);
  return [
    r.scope === "portfolio" ? `${r.accruing} box(es) accruing, ${r.at_risk} at risk. ${totals.join("; ")}` : "",
    ...r.boxes.map(boxText),
  ]
    .filter((l) => l !== "")
    .join("\n");
}

/** Registers `get_demurrage_report`. */
export function registerChargeTools(server: McpServer, deps: McpDeps): void {
  registerTrackingTool(server, deps, {
    name: "get_demurrage_report",
    title: "Demurrage and detention report",
    description:
      "What boxes cost under the account's tariffs: with `id`, one container's demurrage/detention/terminal storage (basis: the terminal's LFD or the tariff's free time; free time end; chargeable days; amount to date and if out tomorrow; a day-by-day ledger marking days free, chargeable or not chargeable because the box could not be picked up). Without `id`, the portfolio: boxes accruing now or whose free time ends within `within_days`, most expensive first, with totals per currency.",
    input: {
      id: containerIdArg.optional(),
      as_of: z
        .string()
        .regex(/^\d{4}-\d{2}-\d{2}$/, "a date YYYY-MM-DD")
        .optional()
        .describe("Local date at the POD to compute for (default: now)."),
      within_days: z.number().int().min(0).max(60).optional().describe("At-risk horizon in days (default 3)."),
    },
    output: {
      scope: z.enum(["container", "portfolio"]),
      boxes: z.array(Box),
      totals: z.array(
        z.object({
          currency_code: z.string(),
          amount_to_date: z.string(),
          amount_if_out_tomorrow: z.string(),
          boxes: z.number(),
        }),
      ),
      accruing: z.number(),
      at_risk: z.number(),
    },
    annotations: READ_ONLY,
    async run(args, { api }) {
      const id = args.id ? await resolveContainerId(api, args.id) : null;
      const report = id
        ? await withNotFound("container", id, () => api.demurrageReport(id, args.as_of ?? null, args.within_days))
        : await api.demurrageReport(null, args.as_of ?? null, args.within_days);
      return { structured: report, text: reportText(report) };
    },
  });
}
