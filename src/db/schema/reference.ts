import { index, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/**
 * Ports by UN/LOCODE (JSON:API type `port`). Seeded from ../shared/data (terminals.csv and DCSA's UN/LOCODE
 * sample) with ids derived from the LOCODE, so every environment gives a port the same id.
 * `latitude`/`longitude` are strings, as the reference service serialises them (R §1.6).
 */
export const ports = sqliteTable(
  "ports",
  {
    id: text("id").primaryKey(),
    code: text("code").notNull(),
    name: text("name").notNull(),
    city: text("city"),
    stateAbbr: text("state_abbr"),
    countryCode: text("country_code").notNull(),
    latitude: text("latitude"),
    longitude: text("longitude"),
    timeZone: text("time_zone"),
  },
  (t) => [uniqueIndex("ports_code_idx").on(t.code)],
);

/**
 * Terminals and other facilities (JSON:API type `terminal`), keyed by FIRMS code where one exists
 * (R §1.4). `provided_data` is the JSON object of capability flags.
 */
export const terminals = sqliteTable(
  "terminals",
  {
    id: text("id").primaryKey(),
    name: text("name").notNull(),
    nickname: text("nickname"),
    firmsCode: text("firms_code"),
    smdgCode: text("smdg_code"),
    bicFacilityCode: text("bic_facility_code"),
    portId: text("port_id").references(() => ports.id),
    street: text("street"),
    city: text("city"),
    state: text("state"),
    stateAbbr: text("state_abbr"),
    zip: text("zip"),
    country: text("country"),
    countryCode: text("country_code"),
    timeZone: text("time_zone"),
    facilityType: text("facility_type"),
    providedData: text("provided_data", { mode: "json" }).$type<Record<string, boolean | string>>(),
  },
  (t) => [index("terminals_firms_idx").on(t.firmsCode), index("terminals_port_idx").on(t.portId)],
);
