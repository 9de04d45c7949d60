import type { Tariff } from "../charges/tariff-match";
import type { tariffs } from "../db/schema";
import { registerResourceType } from "../lib/jsonapi/include-registry";
import type { ResourceObject } from "../lib/jsonapi/types";

/** A `tariffs` row as drizzle returns it. */
export type TariffRow = typeof tariffs.$inferSelect;

/** Serialises a tariff (issue 27 §1 wire names; docs/api.md §Tariffs). */
export function serializeTariff(row: TariffRow): ResourceObject {
  return {
    id: row.id,
    type: "tariff",
    attributes: {
      name: row.name,
      kind: row.kind,
      scac: row.scac,
      port_code: row.portCode,
      terminal_id: row.terminalId,
      equipment_length: row.equipmentLength,
      equipment_type: row.equipmentType,
      free_days: row.freeDays,
      free_days_basis: row.freeDaysBasis,
      clock_starts_at: row.clockStartsAt,
      tiers: row.tiers,
      created_at: row.createdAt,
      updated_at: row.updatedAt,
    },
  };
}

/** The calculator's view of a stored tariff (src/charges/tariff-match.ts). */
export function tariffOfRow(row: TariffRow): Tariff {
  return {
    id: row.id,
    name: row.name,
    kind: row.kind as Tariff["kind"],
    scac: row.scac,
    portCode: row.portCode,
    terminalId: row.terminalId,
    equipmentLength: row.equipmentLength,
    equipmentType: row.equipmentType,
    freeDays: row.freeDays,
    freeDaysBasis: row.freeDaysBasis as Tariff["freeDaysBasis"],
    clockStartsAt: row.clockStartsAt as Tariff["clockStartsAt"],
    tiers: row.tiers.map((t) => ({
      fromDay: t.from_day,
      toDay: t.to_day,
      ratePerDay: t.rate_per_day,
      currencyCode: t.currency_code,
    })),
    updatedAt: row.updatedAt,
  };
}

/** JSON:API type `tariff` (no relationships; `terminal_id` is an attribute, as the wire names say). */
export const tariffResource = registerResourceType<TariffRow>({
  type: "tariff",
  serializerName: "V2::TariffSerializer",
  serialize: serializeTariff,
  relationships: {},
});
