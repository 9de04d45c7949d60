import { z } from "@hono/zod-openapi";

/** One recorded position of a vessel (docs/api.md §Vessel resource `positions`). */
export const VesselPositionSchema = z
  .object({
    latitude: z.number().openapi({ description: "Decimal degrees (WGS 84)", example: 36.543893 }),
    longitude: z.number().openapi({ example: -75.035903 }),
    heading: z.number().nullable().openapi({ description: "Degrees from true north, or null", example: 270 }),
    timestamp: z
      .string()
      .openapi({ description: "When the position was fixed (UTC, ISO 8601)", example: "2026-02-28T22:01:24Z" }),
    estimated: z.boolean().openapi({ description: "false: an AIS (or simulated) fix, not a prediction" }),
  })
  .openapi("VesselPosition");

/**
 * Vessel attributes (docs/api.md §Vessel resource): the reference's eight, numbers as JSON numbers; `positions` only
 * when asked with `show_positions` (key absent otherwise).
 */
export const VesselAttributes = z.object({
  name: z.string().nullable().openapi({ example: "SEASPAN SAIGON" }),
  imo: z.string().nullable().openapi({ description: "IMO number (7 digits)", example: "9301809" }),
  mmsi: z.string().nullable().openapi({ description: "MMSI (9 digits)", example: "563281100" }),
  latitude: z
    .number()
    .nullable()
    .openapi({ description: "Current position (AIS), decimal degrees", example: 36.543893 }),
  longitude: z.number().nullable().openapi({ example: -75.035903 }),
  nautical_speed_knots: z.number().nullable().openapi({ description: "Speed over ground, knots", example: 13 }),
  navigational_heading_degrees: z.number().nullable().openapi({ description: "0 = N, 90 = E", example: 270 }),
  position_timestamp: z
    .string()
    .nullable()
    .openapi({ description: "When the position was fixed", example: "2026-02-28T22:01:24Z" }),
  positions: z.array(VesselPositionSchema).optional().openapi({ description: "Only with `show_positions`" }),
});

/** The query of `GET /v2/vessels/{id}` (docs/api.md §Vessel resource). */
export const vesselQuery = {
  show_positions: z.string().optional().openapi({
    description: "`true` adds `positions` (the last 7 days) without giving bounds; `false` leaves them out.",
  }),
  "show_positions[from_timestamp]": z.string().optional().openapi({
    description: "ISO 8601 start of the position history (default 7 days before now); asks for `positions`.",
    example: "2026-02-21T00:00:00Z",
  }),
  "show_positions[to_timestamp]": z.string().optional().openapi({
    description: "ISO 8601 end of the position history (default now); asks for `positions`.",
    example: "2026-02-28T00:00:00Z",
  }),
};
