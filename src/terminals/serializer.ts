import { inArray } from "drizzle-orm";
import { terminals } from "../db/schema";
import type { ResourceType } from "../lib/jsonapi/include";
import type { ResourceObject } from "../lib/jsonapi/types";
import { loadPortsByIds, portResource } from "../ports/serializer";

/** A `terminals` row as drizzle returns it. */
export type TerminalRow = typeof terminals.$inferSelect;

/** Capability flags of a terminal with no known data feed (R §1.4 `provided_data`). */
const NO_PROVIDED_DATA = {
  pickup_lfd: false,
  pickup_lfd_notes: "",
  pod_full_out_at: false,
  available_for_pickup: false,
  available_for_pickup_notes: "",
  fees_at_pod_terminal: false,
  fees_at_pod_terminal_notes: "",
  holds_at_pod_terminal: false,
  holds_at_pod_terminal_notes: "",
  pickup_appointment_at: false,
  pickup_appointment_at_notes: "",
  location_at_pod_terminal: false,
  location_at_pod_terminal_notes: "",
  pod_full_out_chassis_number: false,
  pod_full_out_chassis_number_notes: "",
};

/**
 * Serialises a terminal as the reference service does (R §1.4, sample A.6): `id` repeated in attributes. Ours in
 * addition: `latitude`/`longitude` (decimal strings, as on ports) from the SMDG Terminal Code List.
 */
export function serializeTerminal(row: TerminalRow): ResourceObject {
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
      provided_data: row.providedData ?? NO_PROVIDED_DATA,
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
export async function loadTerminalsByIds(
  db: import("../db/client").Database,
  ids: (string | null)[],
): Promise<TerminalRow[]> {
  const unique = [...new Set(ids.filter((id): id is string => !!id))];
  if (unique.length === 0) return [];
  return db.select().from(terminals).where(inArray(terminals.id, unique));
}

/** JSON:API type `terminal`; includable: `port`. */
export const terminalResource: ResourceType<TerminalRow> = {
  type: "terminal",
  serializerName: "V2::TerminalSerializer",
  serialize: serializeTerminal,
  relationships: {
    port: {
      target: () => portResource,
      load: (ctx, parents) =>
        loadPortsByIds(
          ctx.db,
          parents.map((t) => t.portId),
        ),
    },
  },
};
