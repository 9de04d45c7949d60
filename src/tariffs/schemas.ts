import { z } from "@hono/zod-openapi";
import { CLOCK_STARTS, TARIFF_KINDS } from "../charges/tariff-match";
import { resourceSchema } from "../lib/openapi";
import { freeText } from "../lib/validation";

/** SCAC: 2 to 4 letters (NMFTA); sent in any case, kept upper-case. */
const Scac = z
  .string()
  .transform((s) => s.toUpperCase())
  .pipe(z.string().regex(/^[A-Z]{2,4}$/, { error: "must be a SCAC: 2 to 4 letters" }));
/** UN/LOCODE: 2-letter country and 3 letters or digits 2-9 (UNECE Recommendation 16). */
const Locode = z
  .string()
  .transform((s) => s.toUpperCase())
  .pipe(z.string().regex(/^[A-Z]{2}[A-Z2-9]{3}$/, { error: "must be a UN/LOCODE such as USLAX" }));

/** A rate tier on the wire (issue 27 wire names): chargeable days `from_day`..`to_day` (null: open-ended). */
export const TierInput = z
  .strictObject({
    from_day: z.number().int().min(1).max(3650),
    to_day: z.number().int().min(1).max(3650).nullable(),
    rate_per_day: z
      .string()
      .regex(/^\d{1,12}(\.\d{1,4})?$/, { error: 'must be a non-negative decimal string such as "150.00"' }),
    currency_code: z.string().regex(/^[A-Z]{3}$/, { error: "must be an ISO 4217 code such as USD" }),
  })
  .openapi("TariffTier");

const scopeAndTerms = {
  name: freeText(255).nullable().optional(),
  scac: Scac.nullable().optional(),
  port_code: Locode.nullable().optional(),
  terminal_id: z.string().max(64).nullable().optional(),
  equipment_length: z.number().int().min(10).max(60).nullable().optional(),
  equipment_type: z.enum(["dry", "reefer", "open top", "flat rack", "bulk", "tank"]).nullable().optional(),
  free_days: z.number().int().min(0).max(365),
  free_days_basis: z.enum(["calendar", "business"]).optional(),
  clock_starts_at: z.enum(CLOCK_STARTS),
  tiers: z.array(TierInput).min(1).max(20),
};

/** Attributes of a tariff in a create body; scope fields left out match every box. */
export const TariffAttributesInput = z.strictObject({ kind: z.enum(TARIFF_KINDS), ...scopeAndTerms });
/** Attributes of a tariff in an update body: any of the create attributes; the result is checked whole. */
export const TariffPatchInput = TariffAttributesInput.partial();

/** Body of `POST /tariffs`. */
export const CreateTariffBody = z
  .strictObject({ data: z.strictObject({ type: z.literal("tariff"), attributes: TariffAttributesInput }) })
  .openapi("CreateTariffBody");
/** Body of `PATCH /tariffs/{id}`. */
export const UpdateTariffBody = z
  .strictObject({
    data: z.strictObject({ type: z.literal("tariff"), id: z.string().optional(), attributes: TariffPatchInput }),
  })
  .openapi("UpdateTariffBody");

/** A tariff's attributes as served. */
export const TariffAttributes = z.object({
  name: z.string().nullable(),
  kind: z.enum(TARIFF_KINDS),
  scac: z.string().nullable(),
  port_code: z.string().nullable(),
  terminal_id: z.string().nullable(),
  equipment_length: z.number().int().nullable(),
  equipment_type: z.string().nullable(),
  free_days: z.number().int(),
  free_days_basis: z.enum(["calendar", "business"]),
  clock_starts_at: z.enum(CLOCK_STARTS),
  tiers: z.array(TierInput),
  created_at: z.string(),
  updated_at: z.string(),
});
/** JSON:API `tariff` resource. */
export const TariffSchema = resourceSchema("tariff", TariffAttributes, "Tariff");
