import { and, inArray, isNull, or, type SQL, sql } from "drizzle-orm";
import type { Database } from "../db/client";
import { ports, terminals } from "../db/schema";
import { registerResourceType } from "../lib/jsonapi/include-registry";
import type { Resource } from "../lib/jsonapi/types";
import type { PortAttributes } from "./schemas";

/**
 * The terminals listed under ports: those of `portIds` still valid today (SMDG `Valid to` absent or not past, by the
 * database's UTC date). An expired terminal keeps resolving by id and code (issue 12), it is only not listed.
 */
function listedTerminalsOf(portIds: string[]): SQL | undefined {
  return and(
    inArray(terminals.portId, portIds),
    or(isNull(terminals.validTo), sql`${terminals.validTo} >= date('now')`),
  );
}

/** A `ports` row as drizzle returns it. */
export type PortRow = typeof ports.$inferSelect;

/** A port plus the ids of its terminals (for `relationships.terminals`). */
export type PortView = PortRow & { terminalIds?: string[] };

/**
 * Serialises a port (docs/api.md §Port resource, sample A.5): `id` repeated in attributes, lat/long as strings,
 * `time_zone`.
 */
export function serializePort(row: PortView): Resource<PortAttributes> {
  const resource: Resource<PortAttributes> = {
    id: row.id,
    type: "port",
    attributes: {
      id: row.id,
      name: row.name,
      code: row.code,
      state_abbr: row.stateAbbr,
      city: row.city,
      country_code: row.countryCode,
      latitude: row.latitude,
      longitude: row.longitude,
      time_zone: row.timeZone,
    },
  };
  if (row.terminalIds) {
    resource.relationships = { terminals: { data: row.terminalIds.map((id) => ({ id, type: "terminal" })) } };
  }
  return resource;
}

/**
 * JSON:API type `port`; includable: `terminals`. Read by id (`loadPortsByIds`) for the ports that shipments, events
 * and terminals name.
 */
export const portResource = registerResourceType<PortView>({
  type: "port",
  serializerName: "V2::PortSerializer",
  hydrate: async (ctx, rows) => {
    if (rows.length === 0) return rows;
    const found = await ctx.db
      .select({ id: terminals.id, portId: terminals.portId })
      .from(terminals)
      .where(listedTerminalsOf(rows.map((r) => r.id)));
    return rows.map((r) => ({ ...r, terminalIds: found.filter((t) => t.portId === r.id).map((t) => t.id) }));
  },
  serialize: serializePort,
  relationships: {
    terminals: {
      target: "terminal",
      load: async (ctx, parents) => {
        if (parents.length === 0) return [];
        return ctx.db
          .select()
          .from(terminals)
          .where(listedTerminalsOf(parents.map((p) => p.id)));
      },
    },
  },
  loadByIds: (ctx, ids) => loadPortsByIds(ctx.db, ids),
});

/** Ports by id (reference data: not account-scoped). */
export async function loadPortsByIds(db: Database, ids: readonly (string | null)[]): Promise<PortRow[]> {
  const unique = [...new Set(ids.filter((id): id is string => !!id))];
  if (unique.length === 0) return [];
  return db.select().from(ports).where(inArray(ports.id, unique));
}
