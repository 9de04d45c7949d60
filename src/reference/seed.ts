import { PORTS } from "./generated/ports.ts";
import { TERMINALS } from "./generated/terminals.ts";

/** SQL string literal: NULL or the value in single quotes with quotes doubled. */
function lit(value: string | null | undefined): string {
  return value === null || value === undefined ? "NULL" : `'${value.replaceAll("'", "''")}'`;
}

/** Rows per INSERT: about 1 700 ports and 1 300 terminals in 31 statements (D1 takes up to 100 KB of SQL each). */
const ROWS_PER_STATEMENT = 100;

const PORT_COLUMNS = [
  "id",
  "code",
  "name",
  "city",
  "state_abbr",
  "country_code",
  "latitude",
  "longitude",
  "time_zone",
] as const;
const TERMINAL_COLUMNS = [
  "id",
  "name",
  "nickname",
  "firms_code",
  "smdg_code",
  "bic_facility_code",
  "port_id",
  "street",
  "city",
  "state",
  "state_abbr",
  "zip",
  "country",
  "country_code",
  "time_zone",
  "latitude",
  "longitude",
  "valid_to",
  "facility_type",
] as const;

/**
 * Multi-row upserts of `rows` into `table`: a row is inserted when its id is new, updated in place when a column
 * differs, and left alone when nothing changed (the `WHERE` of the upsert), so a second seed writes nothing.
 */
function upserts(table: string, columns: readonly string[], rows: (string | null)[][]): string[] {
  const assignments = columns
    .filter((c) => c !== "id")
    .map((c) => `${c} = excluded.${c}`)
    .join(", ");
  const changed = columns
    .filter((c) => c !== "id")
    .map((c) => `${table}.${c} IS NOT excluded.${c}`)
    .join(" OR ");
  const statements: string[] = [];
  for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT) {
    const values = rows
      .slice(i, i + ROWS_PER_STATEMENT)
      .map((r) => `(${r.map(lit).join(", ")})`)
      .join(",\n");
    statements.push(
      `INSERT INTO ${table} (${columns.join(", ")}) VALUES\n${values}\nON CONFLICT(id) DO UPDATE SET ${assignments} WHERE ${changed};`,
    );
  }
  return statements;
}

/**
 * Idempotent upserts of the reference data (ports, terminals) compiled by `npm run data` into
 * src/reference/generated. Used by the test setup (through D1 `batch`), by `npm start` and `npm run seed [--remote]`
 * (written to a file for `wrangler d1 execute`). Literal SQL because `wrangler d1 execute --file` takes no bound
 * parameters; every value is escaped by `lit`. Ports come first: terminals reference them. Ids never change, so a
 * changed source updates rows in place; rows no longer in the data are left (ids stay resolvable).
 */
export function referenceSeedStatements(): string[] {
  return [
    ...upserts(
      "ports",
      PORT_COLUMNS,
      PORTS.map((p) => [p.id, p.code, p.name, p.city, p.stateAbbr, p.countryCode, p.latitude, p.longitude, p.timeZone]),
    ),
    ...upserts(
      "terminals",
      TERMINAL_COLUMNS,
      TERMINALS.map((t) => [
        t.id,
        t.name,
        t.nickname,
        t.firmsCode,
        t.smdgCode,
        t.bicFacilityCode,
        t.portId,
        t.street,
        t.city,
        t.state,
        t.stateAbbr,
        t.zip,
        t.country,
        t.countryCode,
        t.timeZone,
        t.latitude,
        t.longitude,
        t.validTo,
        t.facilityType,
      ]),
    ),
  ];
}

/** How many rows the reference seed holds: one per compiled port and terminal. */
export function referenceSeedRowCounts(): { ports: number; terminals: number } {
  return { ports: PORTS.length, terminals: TERMINALS.length };
}

/** Applies the reference seed to a D1 database in one batch (tests, and any Worker-side bootstrap). */
export async function seedReferenceData(d1: D1Database): Promise<void> {
  await d1.batch(referenceSeedStatements().map((sql) => d1.prepare(sql)));
}
