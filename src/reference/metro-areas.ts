import { METRO_AREAS } from "./generated/metro-areas.ts";
import type { MetroAreaRecord } from "./types.ts";

const byCode = new Map<string, MetroAreaRecord>();
const byId = new Map<string, MetroAreaRecord>();
for (const m of METRO_AREAS) {
  byCode.set(m.code, m);
  byId.set(m.id, m);
}

/**
 * The metro area a path id names (`GET /metro_areas/{id}`, docs/api.md §Metro area resource): its UN/LOCODE (`USEWI`)
 * or its UUID, either in any case; null for anything else. Metro areas are shared reference data compiled into the
 * Worker (src/reference/generated/metro-areas.ts), not a table: there is nothing per account about them.
 */
export function findMetroArea(idOrCode: string): MetroAreaRecord | null {
  const key = idOrCode.trim();
  return byCode.get(key.toUpperCase()) ?? byId.get(key.toLowerCase()) ?? null;
}

/** Metro areas by id, in the order asked, unknown ids left out (for includes; reference data, not account-scoped). */
export function metroAreasByIds(ids: readonly (string | null)[]): MetroAreaRecord[] {
  return ids.flatMap((id) => {
    const found = id ? byId.get(id) : undefined;
    return found ? [found] : [];
  });
}
