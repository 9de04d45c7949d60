import { inArray } from "drizzle-orm";
import type { Database } from "../db/client";
import { terminals } from "../db/schema";
import { registerResourceType } from "../lib/jsonapi/include-registry";
import type { Resource } from "../lib/jsonapi/types";
import { providedDataOf } from "./provided-data";
import type { TerminalAttributes } from "./schemas";

/** A `terminals` row as drizzle returns it. */
export type TerminalRow = typeof terminals.$inferSelect;

/**
 * Serialises a terminal as the reference service does (docs/api.md §Terminal resource, sample A.6): `id` repeated in
 * attributes. Ours in addition: `latitude`/`longitude` (decimal strings, as on ports) from the SMDG Terminal Code List.
 * `provided_data` says what we serve there (`providedDataOf`: a configured terminal API's own flags, issue 14), unless
 * the reference data gives the terminal its own.
 */
export function serializeTerminal(row: TerminalRow): Resource<TerminalAttributes> {
  return {
    id: row.id,
    type: "terminal",
    attributes: {
      id: row.id,
      nickname: row.nickname,
      name: row.name,
      firms_code: row.firmsCode,
      smdg_code: row.smdgCode,
      bic_facility_code: row.bicFacilityCode,
      provided_data: row.providedData ?? providedDataOf(row),
      street: row.street,
      city: row.city,
      state: row.state,
      state_abbr: row.stateAbbr,
      zip: row.zip,
      country: row.country,
      country_code: row.countryCode,
      time_zone: row.timeZone,
      latitude: row.latitude,
      longitude: row.longitude,
      facility_type: row.facilityType,
    },
    relationships: { port: { data: row.portId ? { id: row.portId, type: "port" } : null } },
  };
}

/** Terminals by id (reference data: not account-scoped). */
export async function loadTerminalsByIds(db: Database, ids: readonly (string | null)[]): Promise<TerminalRow[]> {
  const unique = [...new Set(ids.filter((id): id is string => !!id))];
  if (unique.length === 0) return [];
  return db.select().from(terminals).where(inArray(terminals.id, unique));
}

/**
 * JSON:API type `terminal`; includable: `port`. Read by id (`loadTerminalsByIds`, or as a query that joins another
 * read's round trip) for the terminals that containers, shipments and events name.
 */
export const terminalResource = registerResourceType<TerminalRow>({
  type: "terminal",
  serializerName: "V2::TerminalSerializer",
  serialize: serializeTerminal,
  relationships: {
    port: { target: "port", idOf: (t) => t.portId },
  },
  loadByIds: (ctx, ids) => loadTerminalsByIds(ctx.db, ids),
  byIdsQueries: {
    size: 1,
    queries: (ctx, terminalIds) => [ctx.db.select().from(terminals).where(inArray(terminals.id, terminalIds))],
    rows: ([rows = []]) => rows,
  },
});
