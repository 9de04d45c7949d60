import { z } from "@hono/zod-openapi";

/**
 * Metro area attributes (docs/api.md §Metro area resource): as the reference's real objects carry them, `id` repeated
 * inside attributes and coordinates as decimal strings (its OpenAPI says numbers; its webhooks send strings).
 */
export const MetroAreaAttributes = z.object({
  id: z.string(),
  name: z.string().openapi({ example: "Elwood" }),
  code: z.string().openapi({ description: "UN/LOCODE", example: "USEWI" }),
  state_abbr: z.string().nullable().openapi({ description: "ISO 3166-2 subdivision code", example: "IL" }),
  country_code: z.string().openapi({ description: "ISO 3166-1 alpha-2", example: "US" }),
  time_zone: z.string().openapi({ description: "IANA time zone", example: "America/Chicago" }),
  latitude: z
    .string()
    .nullable()
    .openapi({ description: "Decimal degrees (WGS 84), as a string", example: "41.40392" }),
  longitude: z
    .string()
    .nullable()
    .openapi({ description: "Decimal degrees (WGS 84), as a string", example: "-88.11172" }),
});

/** A metro area's attributes as its serializer writes them (`serializeMetroArea`). */
export type MetroAreaAttributes = z.infer<typeof MetroAreaAttributes>;
