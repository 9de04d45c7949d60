import { SIZE_TYPES } from "./generated/size-types.ts";
import type { EquipmentHeight, EquipmentType } from "./types.ts";

/** The equipment fields of SPEC.md §2.1 that an ISO 6346 size-type code determines. */
export interface EquipmentFields {
  equipmentType: EquipmentType | null;
  /** Nominal length in feet: 10, 20, 40 or 45. */
  equipmentLength: number | null;
  equipmentHeight: EquipmentHeight | null;
}

const bySizeType = new Map(SIZE_TYPES.map((r) => [r.code, r]));

/**
 * Equipment type, length and height for an ISO 6346 size-type code (ISO 6346:1995 size and type tables, as
 * compiled from ../shared/data/iso6346-size-types.csv columns `t49_equipment_*`): `22G1` → 20 ft standard dry,
 * `45G1` → 40 ft high_cube dry, `22R1` → 20 ft standard reefer. A field is null where the code has no value in
 * the SPEC.md §2.1 enum (a 53 ft `P5G1` has no length). Case-insensitive, surrounding blanks ignored.
 * @returns null for a code not in the table (including blank or null input).
 */
export function equipmentFromSizeType(code: string | null | undefined): EquipmentFields | null {
  if (!code) return null;
  const record = bySizeType.get(code.trim().toUpperCase());
  if (!record) return null;
  return { equipmentType: record.type, equipmentLength: record.length, equipmentHeight: record.height };
}

/** Every size-type code in the table, sorted. */
export function knownSizeTypeCodes(): string[] {
  return SIZE_TYPES.map((r) => r.code);
}
