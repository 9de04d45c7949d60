import { z } from "@hono/zod-openapi";

/** Port attributes (docs/api.md §Port resource, sample A.5): UN/LOCODE, coordinates as strings, IANA time zone. */
export const PortAttributes = z.object({
  id: z.string(),
  name: z.string(),
  code: z.string().openapi({ description: "UN/LOCODE", example: "USLAX" }),
  state_abbr: z.string().nullable(),
  city: z.string().nullable(),
  country_code: z.string(),
  latitude: z
    .string()
    .nullable()
    .openapi({ description: "Decimal degrees (WGS 84), as a string", example: "31.230416" }),
  longitude: z
    .string()
    .nullable()
    .openapi({ description: "Decimal degrees (WGS 84), as a string", example: "121.473701" }),
  time_zone: z.string().nullable().openapi({ description: "IANA time zone", example: "Asia/Shanghai" }),
});

/** A port's attributes as its serializer writes them (`serializePort`). */
export type PortAttributes = z.infer<typeof PortAttributes>;
