/** A vessel as events and routes know it: its name and IMO number (7 digits), either possibly unknown. */
export interface VesselRef {
  id: string;
  name: string | null;
  imo: string | null;
}

/**
 * The id of the `vessel` resource of an IMO number: a UUID (version 8, "custom") that spells the 7-digit IMO number
 * in its last group, so REST documents, webhook bodies and routes name a vessel the same way without a vessels
 * table. Null without a valid IMO number.
 */
export function vesselIdForImo(imo: string | null | undefined): string | null {
  if (!imo || !/^\d{7}$/.test(imo)) return null;
  return `7e55e100-0000-8000-8000-${imo.padStart(12, "0")}`;
}

/**
 * The `vessel` linkage of an event row: `{id, type}` for a valid IMO number, else null
 * (docs/api.md §Transport event resource, §Raw event resource).
 */
export function vesselLinkage(row: { vesselImo: string | null }): { id: string; type: "vessel" } | null {
  const id = vesselIdForImo(row.vesselImo);
  return id ? { id, type: "vessel" } : null;
}

/** The distinct vessels of event rows (those with a valid IMO number), for `include=vessel`. */
export function vesselsOfEvents(rows: { vesselName: string | null; vesselImo: string | null }[]): VesselRef[] {
  const byId = new Map<string, VesselRef>();
  for (const row of rows) {
    const id = vesselIdForImo(row.vesselImo);
    if (id && !byId.has(id)) byId.set(id, { id, name: row.vesselName, imo: row.vesselImo });
  }
  return [...byId.values()];
}

const VESSEL_ID = /^7e55e100-0000-8000-8000-00000(\d{7})$/i;

/** The IMO number a vessel id spells ({@link vesselIdForImo}'s inverse), or null for any other id. */
export function imoOfVesselId(id: string): string | null {
  return VESSEL_ID.exec(id)?.[1] ?? null;
}
