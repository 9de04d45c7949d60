import { z } from "@hono/zod-openapi";

/**
 * Terminal attributes (docs/api.md §Terminal resource, sample A.6), with our `latitude`/`longitude` and
 * `provided_data`.
 */
export const TerminalAttributes = z.object({
  id: z.string(),
  name: z.string(),
  nickname: z.string().nullable(),
  firms_code: z.string().nullable(),
  smdg_code: z.string().nullable(),
  bic_facility_code: z.string().nullable(),
  provided_data: z.record(z.string(), z.union([z.boolean(), z.string()])).openapi({
    description:
      "For each field a terminal poll observes (`pickup_lfd`, `pod_full_out_at`, `available_for_pickup`, fees, holds, appointment, yard location, chassis), whether this deployment serves it at this terminal (true where one of its terminal sources covers the facility), each with a `<field>_notes` string; rail ramps also flag `empty_terminated_at`.",
  }),
  street: z.string().nullable(),
  city: z.string().nullable(),
  state: z.string().nullable(),
  state_abbr: z.string().nullable(),
  zip: z.string().nullable(),
  country: z.string().nullable().openapi({ description: "Country name in English", example: "United States" }),
  country_code: z.string().nullable(),
  time_zone: z.string().nullable().openapi({ description: "IANA time zone", example: "America/Los_Angeles" }),
  latitude: z.string().nullable().openapi({ description: "Decimal degrees (WGS 84)", example: "33.731389" }),
  longitude: z.string().nullable().openapi({ description: "Decimal degrees (WGS 84)", example: "-118.248611" }),
  facility_type: z.string().nullable(),
});

/** A terminal's attributes as its serializer writes them (`serializeTerminal`). */
export type TerminalAttributes = z.infer<typeof TerminalAttributes>;
