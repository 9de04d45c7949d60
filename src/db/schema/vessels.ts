import { index, primaryKey, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/**
 * Vessels we know (JSON:API type `vessel`, docs/api.md §Vessel resource): shared reference data, never per account.
 * `id` is `vesselIdForImo(imo)` (src/vessels/identity.ts), so events, routes and this table name a vessel the same
 * way. `mmsi` (9 digits) is what AIS reports carry; learnt from AIS static data or the simulator, null until then.
 * The latest position (`latitude`/`longitude` WGS84 degrees, speed over ground in knots, heading in degrees from
 * true north, `position_timestamp` UTC ISO seconds) is copied here from the newest report so a vessel reads in one
 * row; the history is `vessel_positions`.
 */
export const vessels = sqliteTable(
  "vessels",
  {
    id: text("id").primaryKey(),
    imo: text("imo").notNull(),
    mmsi: text("mmsi"),
    name: text("name"),
    latitude: real("latitude"),
    longitude: real("longitude"),
    nauticalSpeedKnots: real("nautical_speed_knots"),
    navigationalHeadingDegrees: real("navigational_heading_degrees"),
    positionTimestamp: text("position_timestamp"),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [uniqueIndex("vessels_imo_idx").on(t.imo), index("vessels_mmsi_idx").on(t.mmsi)],
);

/**
 * A vessel's recorded positions (docs/api.md §Vessel resource `positions`): a bounded, thinned history, one row per
 * vessel and `timestamp` (UTC ISO seconds). `source` is `ais` or `simulator`. Rows older than the retention are
 * deleted by the position store (src/vessels/position-store.ts); never per account.
 */
export const vesselPositions = sqliteTable(
  "vessel_positions",
  {
    vesselId: text("vessel_id")
      .notNull()
      .references(() => vessels.id),
    timestamp: text("timestamp").notNull(),
    latitude: real("latitude").notNull(),
    longitude: real("longitude").notNull(),
    speedKnots: real("speed_knots"),
    headingDegrees: real("heading_degrees"),
    source: text("source").notNull(),
  },
  (t) => [primaryKey({ columns: [t.vesselId, t.timestamp] }), index("vessel_positions_timestamp_idx").on(t.timestamp)],
);
