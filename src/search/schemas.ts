import { z } from "@hono/zod-openapi";

/**
 * Attributes of a `search_result` (docs/api.md §Search; the reference's shape, docs/api.md §Search): kind-specific members
 * are null for the other kinds.
 */
export const SearchResultAttributes = z
  .object({
    entity_type: z.enum(["shipment", "cargo", "tracking_request"]),
    number: z.string().openapi({ description: "BL/booking number, container number or request number." }),
    shipment_id: z.string().nullable().openapi({ description: "Containers and tracking requests: their shipment." }),
    scac: z.string().nullable(),
    port_of_lading_name: z.string().nullable().openapi({ description: "Shipments only." }),
    port_of_discharge_name: z.string().nullable().openapi({ description: "Shipments only." }),
    containers_count: z.number().int().nullable().openapi({ description: "Shipments only." }),
    tracking_stopped: z.boolean().nullable().openapi({ description: "Shipments only." }),
    tracking_stopped_reason: z.string().nullable().openapi({ description: "Shipments only." }),
    status: z.string().nullable().openapi({ description: "Tracking requests only." }),
    failed_reason: z.string().nullable().openapi({ description: "Tracking requests only." }),
    ref_numbers: z.array(z.string()),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi("SearchResultAttributes");

/** Attributes of a `search_result`, as serialized. */
export type SearchResultAttributes = z.infer<typeof SearchResultAttributes>;
