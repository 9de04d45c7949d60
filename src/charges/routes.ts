import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../env";
import { ApiError } from "../lib/errors";
import { loadContext, queryParams } from "../lib/http";
import { listLinksAndMeta, parsePage } from "../lib/jsonapi/pagination";
import { commonErrors, jsonApiContent, listQuery, notFoundResponse, pathIdParam, sendJsonApi } from "../lib/openapi";
import { isLocalDate } from "./local-dates";
import { ContainerChargesDocument, PortfolioDocument } from "./schemas";
import { portfolioCsv, serializeContainerCharges, serializePortfolioRow } from "./serializer";
import { type AsOf, getContainerCharges, type PortfolioQuery, portfolioCharges } from "./service";

const tags = ["Charges"];
const FMC =
  "Each day of the ledger says why it is free, chargeable or not chargeable (the box could not be picked up): the evidence the US FMC's billing rule (46 CFR 541) asks a demurrage or detention invoice to carry (docs/charges.md).";

const dateParam = (description: string) =>
  z.string().optional().openapi({ description, example: "2026-11-24", format: "date" });

const containerChargesRoute = createRoute({
  method: "get",
  path: "/containers/{id}/charges",
  tags,
  summary: "Get a container's demurrage and detention",
  description: `The box's \`demurrage\` (or \`combined\`), \`detention\` and \`terminal_storage\` as of now or \`as_of\`, each null when no tariff of the account applies: the basis (the terminal's LFD, else the tariff's free time, and which tariff and why), free time end, chargeable days, amount to date, if out (or returned) tomorrow and on \`out_on\`, and a day-by-day ledger. ${FMC}`,
  request: {
    params: pathIdParam("Container"),
    query: z.object({
      as_of: dateParam("Compute as of the end of this local date at the POD (default: now)."),
      out_on: dateParam(
        "Also price the box going out (or the empty returned) on this local date (`amount_if_out_on`).",
      ),
    }),
  },
  responses: {
    200: { description: "The container's charges.", content: jsonApiContent(ContainerChargesDocument) },
    ...commonErrors,
    ...notFoundResponse,
  },
});

const portfolioRoute = createRoute({
  method: "get",
  path: "/charges",
  tags,
  summary: "The account's charges portfolio",
  description:
    "Every box with a charge, as of now or `as_of`: `status` `accruing` (a chargeable day today), `at_risk` (free time ends within `filter[within_days]` days, default 3), `free`, `not_started` (the clock has not started) or `stopped`. `filter[status]` selects (`attention`, the default, is accruing or at risk; `any` is every box with a charge); `sort` is `-amount` (default), `amount`, `free_time_ends_at` or `-free_time_ends_at`; `meta.totals` sums every selected box per currency. Rows carry no ledger (get it from `/containers/{id}/charges`). `format=csv` answers the same rows, all of them (no paging), as `text/csv`, one line per box and kind of charge.",
  request: {
    query: z.object({
      ...listQuery,
      as_of: dateParam("Compute as of the end of this local date at each box's POD (default: now)."),
      "filter[status]": z.enum(["attention", "accruing", "at_risk", "any"]).optional(),
      "filter[within_days]": z
        .string()
        .optional()
        .openapi({ description: "At-risk horizon in days (0-60, default 3)." }),
      sort: z.enum(["amount", "-amount", "free_time_ends_at", "-free_time_ends_at"]).optional(),
      format: z.enum(["json", "csv"]).optional().openapi({ description: "`csv` for a CSV export of every row." }),
    }),
  },
  responses: {
    200: {
      description: "A page of boxes with their charges, or the CSV export.",
      content: { ...jsonApiContent(PortfolioDocument), "text/csv": { schema: z.string() } },
    },
    ...commonErrors,
  },
});

/** A date query parameter, or null when absent. @throws ApiError 400 pointing at it when not `YYYY-MM-DD`. */
function parseDate(params: URLSearchParams, name: string): string | null {
  const value = params.get(name);
  if (value === null || value === "") return null;
  if (!isLocalDate(value)) throw ApiError.badParameter(name, `${name} must be a date (YYYY-MM-DD)`);
  return value;
}

function parseWithinDays(params: URLSearchParams): number {
  const raw = params.get("filter[within_days]");
  if (raw === null || raw === "") return 3;
  const n = Number(raw);
  if (!/^\d{1,2}$/.test(raw) || n > 60) {
    throw ApiError.badParameter("filter[within_days]", "filter[within_days] must be a whole number from 0 to 60");
  }
  return n;
}

/**
 * Routes of the charges (issue 27 §1; docs/api.md §Charges, docs/charges.md): one box's `container_charges` and the
 * account's portfolio, as JSON:API or CSV.
 */
export const chargeRoutes = new OpenAPIHono<AppEnv>()
  .openapi(containerChargesRoute, async (c) => {
    const params = queryParams(c);
    const asOf: AsOf = { nowMs: c.var.clock.now(), date: parseDate(params, "as_of") };
    const outOn = parseDate(params, "out_on");
    const { db, accountId } = loadContext(c);
    const charges = await getContainerCharges(db, accountId, c.req.valid("param").id, asOf, outOn);
    return sendJsonApi(c, { data: serializeContainerCharges(charges), links: { self: c.req.url } });
  })
  .openapi(portfolioRoute, async (c) => {
    const params = queryParams(c);
    const q = c.req.valid("query");
    const page = parsePage(params);
    const asOf: AsOf = { nowMs: c.var.clock.now(), date: parseDate(params, "as_of") };
    const query: PortfolioQuery = {
      status: q["filter[status]"] ?? "attention",
      withinDays: parseWithinDays(params),
      sort: q.sort ?? "-amount",
    };
    const { db, accountId } = loadContext(c);
    const { rows, totals } = await portfolioCharges(db, accountId, asOf, query);
    if (q.format === "csv") {
      return c.body(portfolioCsv(rows), 200, {
        "content-type": "text/csv; charset=utf-8",
        "content-disposition": 'attachment; filename="charges.csv"',
      }) as never;
    }
    const pageRows = rows.slice(page.offset, page.offset + page.size);
    const { links, meta } = listLinksAndMeta(c.req.url, page, pageRows.length, rows.length);
    return sendJsonApi(c, {
      data: pageRows.map(serializePortfolioRow),
      links,
      meta: { ...meta, accruing: totals.accruing, at_risk: totals.at_risk, totals: totals.currencies },
    });
  });
