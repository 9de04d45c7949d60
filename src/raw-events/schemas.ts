import { z } from "@hono/zod-openapi";
import { resourceSchema } from "../lib/openapi";

const ts = () => z.string().nullable().openapi({ format: "date-time", example: "2025-11-12T03:23:00Z" });
const day = () => z.string().nullable().openapi({ format: "date", example: "2025-11-12" });

/** Raw event attributes (docs/api.md §Raw event resource, sample A.4). */
export const RawEventAttributes = z
  .object({
    event: z.string().nullable().openapi({
      example: "full_in",
      description:
        "Normalised name, one of the reference's 28 (docs/api.md §Raw event names), or null when the row has none there (e.g. a berthing); `original_event` keeps the carrier's words.",
    }),
    original_event: z.string().nullable().openapi({ example: "Truck Arrival in" }),
    timestamp: ts(),
    estimated: z.boolean(),
    actual_on: day().openapi({ deprecated: true }),
    estimated_on: day().openapi({ deprecated: true }),
    actual_at: ts().openapi({ deprecated: true, description: "`timestamp` of an actual row, else null." }),
    estimated_at: ts().openapi({ deprecated: true, description: "`timestamp` of an estimated row, else null." }),
    will_occur_at: ts().openapi({ description: "`timestamp` of an estimated row (when it is expected), else null." }),
    timezone: z.string().nullable(),
    created_at: z.string().openapi({ format: "date-time" }),
    location_name: z.string().nullable(),
    location_locode: z.string().nullable(),
    vessel_name: z.string().nullable(),
    vessel_imo: z.string().nullable(),
    voyage_number: z.string().nullable(),
    index: z.number().int().openapi({ description: "0-based carrier order." }),
    invalidated_at: ts(),
    data_source: z.string().openapi({ example: "shipping_line" }),
    data_provider_name: z
      .string()
      .nullable()
      .openapi({ example: "Hapag-Lloyd", description: "Who reported the row: the shipping line's name." }),
    data_provider_code: z.string().nullable().openapi({
      example: "HLCU",
      description: "Who reported the row: the shipping line's SCAC (`TEST` for the sandbox).",
    }),
  })
  .openapi("RawEventAttributes");

export const RawEventResourceSchema = resourceSchema("raw_event", RawEventAttributes, "RawEvent");

/**
 * `{data: raw_event[], included?}`: no links and no meta, as the reference serves it
 * (docs/api.md §Container endpoints).
 */
export const RawEventListDocument = z
  .object({ data: z.array(RawEventResourceSchema), included: z.array(z.unknown()).optional() })
  .openapi("RawEventList");
