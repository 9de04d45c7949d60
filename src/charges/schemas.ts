import { z } from "@hono/zod-openapi";
import { TARIFF_KINDS } from "./tariff-match";

const LocalDate = z.string().openapi({ example: "2026-11-23", description: "A local date at the POD (YYYY-MM-DD)." });
const Money = z
  .string()
  .openapi({ example: "150.00", description: "Decimal string with the currency's minor digits." });

/** One day of a charge's ledger. */
export const LedgerDaySchema = z
  .object({
    date: LocalDate,
    state: z.enum(["free", "chargeable", "not_chargeable"]),
    reason: z.string().openapi({ example: "chargeable day 1 (tier days 1-3: 100.00 USD/day)" }),
    amount: Money,
  })
  .openapi("ChargeLedgerDay");

/** One kind of charge of a box (`demurrage`, `detention`, `terminal_storage` of `container_charges`). */
export const ChargeLineSchema = z
  .object({
    kind: z.enum(TARIFF_KINDS),
    basis: z.enum(["terminal_lfd", "tariff"]).openapi({
      description: "`terminal_lfd`: the terminal's reported LFD ends free time; `tariff`: the tariff's free days do.",
    }),
    tariff_id: z.string(),
    tariff_explanation: z.array(z.string()),
    clock_started_at: z.string().nullable(),
    last_free_day: LocalDate.nullable(),
    free_time_ends_at: z.string().nullable(),
    stopped_at: z.string().nullable(),
    chargeable_days: z.number().int(),
    amount_to_date: Money,
    amount_if_out_tomorrow: Money.nullable(),
    amount_if_out_on: Money.nullable(),
    currency_code: z.string().openapi({ example: "USD" }),
    ledger: z.array(LedgerDaySchema).optional(),
  })
  .openapi("ChargeLine");

const chargeAttributes = {
  as_of: LocalDate,
  container_number: z.string(),
  demurrage: ChargeLineSchema.nullable(),
  detention: ChargeLineSchema.nullable(),
  terminal_storage: ChargeLineSchema.nullable(),
};

/** The `container_charges` document of `GET /containers/{id}/charges`. */
export const ContainerChargesDocument = z
  .object({
    data: z.object({
      id: z.string(),
      type: z.literal("container_charges"),
      attributes: z.object(chargeAttributes),
      relationships: z.record(z.string(), z.object({ data: z.unknown() })),
    }),
    links: z.object({ self: z.string() }),
  })
  .openapi("ContainerChargesDocument");

/** The portfolio list of `GET /charges`. */
export const PortfolioDocument = z
  .object({
    data: z.array(
      z.object({
        id: z.string(),
        type: z.literal("container_charges"),
        attributes: z.object({
          ...chargeAttributes,
          status: z.enum(["accruing", "at_risk", "free", "not_started", "stopped"]),
          free_time_ends_at: z.string().nullable(),
        }),
      }),
    ),
    links: z.record(z.string(), z.string().nullable()),
    meta: z.object({
      total: z.number().int(),
      accruing: z.number().int(),
      at_risk: z.number().int(),
      totals: z.array(
        z.object({
          currency_code: z.string(),
          amount_to_date: Money,
          amount_if_out_tomorrow: Money,
          boxes: z.number().int(),
        }),
      ),
    }),
  })
  .openapi("ChargesPortfolio");
