import { index, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/**
 * Ports by UN/LOCODE (JSON:API type `port`). Seeded from src/reference/generated/ports.ts (npm `sea-ports`,
 * terminals.csv, DCSA's UN/LOCODE sample, SMDG; scripts/lib/locations.mjs) with ids derived from the LOCODE, so every
 * environment gives a port the same id. A retired code (CNSGH) is not a row: src/reference/locations.ts maps it.
 * `latitude`/`longitude` are strings, as the reference service serialises them (docs/api.md §Port resource).
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
 * Terminals and other facilities (JSON:API type `terminal`, docs/api.md §Terminal resource), seeded from
 * src/reference/generated/terminals.ts (SMDG Terminal Code List merged with terminals.csv). `provided_data` is the JSON
 * object of capability flags; `latitude`/`longitude` decimal strings like the port's; `valid_to` the SMDG end of
 * validity (YYYY-MM-DD): an expired terminal still resolves by id but is not listed under its port.
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
    latitude: text("latitude"),
    longitude: text("longitude"),
    validTo: text("valid_to"),
    facilityType: text("facility_type"),
    providedData: text("provided_data", { mode: "json" }).$type<Record<string, boolean | string>>(),
  },
  (t) => [index("terminals_firms_idx").on(t.firmsCode), index("terminals_port_idx").on(t.portId)],
);
