import { z } from "@hono/zod-openapi";

/** Shipping line attributes (docs/api.md §Shipping line resource, sample A.7), with our `supported`. */
export const ShippingLineAttributes = z.object({
  scac: z.string(),
  name: z.string(),
  provided_data: z.record(z.string(), z.union([z.boolean(), z.string()])).openapi({
    description:
      "For each container field (`ssl_lfd`, `seal_number`, `weight_in_lbs`, `equipment_*`, `pod_*`, `empty_terminated_at`, `final_destination_full_out_at`), whether this line's source here supplies it, with a `<field>_notes` string.",
  }),
  short_name: z.string(),
  alternative_scacs: z.array(z.string()),
  bol_prefix: z.string().nullable(),
  tracking_url: z.string().nullable(),
  contact_url: z.string().nullable(),
  bill_of_lading_tracking_support: z.boolean(),
  booking_number_tracking_support: z.boolean(),
  container_number_tracking_support: z.boolean(),
  supported: z.boolean().openapi({ description: "Whether tracking requests for this SCAC are accepted here." }),
});

/** A shipping line's attributes as its serializer writes them (`serializeShippingLine`). */
export type ShippingLineAttributes = z.infer<typeof ShippingLineAttributes>;
