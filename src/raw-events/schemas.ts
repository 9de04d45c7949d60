import { z } from "@hono/zod-openapi";
import { resourceSchema } from "../lib/openapi";

const ts = () => z.string().nullable().openapi({ format: "date-time", example: "2025-11-12T03:23:00Z" });
const day = () => z.string().nullable().openapi({ format: "date", example: "2025-11-12" });

/** Raw event attributes (R §1.10, sample A.4). */
export const RawEventAttributes = z
  .object({
    event: z.string().nullable().openapi({ example: "full_in", description: "Normalised name (R §2.5)." }),
    original_event: z.string().nullable().openapi({ example: "Truck Arrival in" }),
    timestamp: ts(),
    estimated: z.boolean(),
    actual_on: day().openapi({ deprecated: true }),
    estimated_on: day().openapi({ deprecated: true }),
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
  })
  .openapi("RawEventAttributes");

export const RawEventResourceSchema = resourceSchema("raw_event", RawEventAttributes, "RawEvent");

/** `{data: raw_event[], included?}`: no links and no meta, as the reference serves it (R §3.5). */
export const RawEventListDocument = z
  .object({ data: z.array(RawEventResourceSchema), included: z.array(z.unknown()).optional() })
  .openapi("RawEventList");
