import { PORTS } from "./generated/ports.ts";
import { TERMINALS } from "./generated/terminals.ts";

/** SQL string literal: NULL or the value in single quotes with quotes doubled. */
function lit(value: string | null | undefined): string {
  return value === null || value === undefined ? "NULL" : `'${value.replaceAll("'", "''")}'`;
}

/**
 * Idempotent upserts of the reference data (ports, terminals) compiled from ../shared/data. Used by the test
 * setup (through D1 `batch`) and by `npm start` (written to a file for `wrangler d1 execute`). Literal SQL
 * because `wrangler d1 execute --file` takes no bound parameters; every value is escaped by `lit`.
 */
export function referenceSeedStatements(): string[] {
  const statements: string[] = [];
  for (const p of PORTS) {
    statements.push(
      `INSERT INTO ports (id, code, name, city, state_abbr, country_code, latitude, longitude, time_zone) VALUES (${[
        p.id,
        p.code,
        p.name,
        p.city,
        p.stateAbbr,
        p.countryCode,
        p.latitude,
        p.longitude,
        p.timeZone,
      ]
        .map(lit)
        .join(
          ", ",
        )}) ON CONFLICT(id) DO UPDATE SET code = excluded.code, name = excluded.name, city = excluded.city, state_abbr = excluded.state_abbr, country_code = excluded.country_code, latitude = excluded.latitude, longitude = excluded.longitude, time_zone = excluded.time_zone;`,
    );
  }
  for (const t of TERMINALS) {
    statements.push(
      `INSERT INTO terminals (id, name, nickname, firms_code, bic_facility_code, port_id, city, state_abbr, country_code, time_zone, facility_type) VALUES (${[
        t.id,
        t.name,
        t.nickname,
        t.firmsCode,
        t.bicFacilityCode,
        t.portId,
        t.city,
        t.stateAbbr,
        t.countryCode,
        t.timeZone,
        t.facilityType,
      ]
        .map(lit)
        .join(
          ", ",
        )}) ON CONFLICT(id) DO UPDATE SET name = excluded.name, nickname = excluded.nickname, firms_code = excluded.firms_code, bic_facility_code = excluded.bic_facility_code, port_id = excluded.port_id, city = excluded.city, state_abbr = excluded.state_abbr, country_code = excluded.country_code, time_zone = excluded.time_zone, facility_type = excluded.facility_type;`,
    );
  }
  return statements;
}

/** Applies the reference seed to a D1 database in one batch (tests, and any Worker-side bootstrap). */
export async function seedReferenceData(d1: D1Database): Promise<void> {
  await d1.batch(referenceSeedStatements().map((sql) => d1.prepare(sql)));
}
