import { SIZE_TYPES } from "./generated/size-types.ts";
import type { EquipmentHeight, EquipmentType } from "./types.ts";

/** The equipment fields of docs/api.md §Container resource that an ISO 6346 size-type code determines. */
export interface EquipmentFields {
  equipmentType: EquipmentType | null;
  /** Nominal length in feet: 10, 20, 40 or 45. */
  equipmentLength: number | null;
  equipmentHeight: EquipmentHeight | null;
}

const bySizeType = new Map(SIZE_TYPES.map((r) => [r.code, r]));

/**
 * Equipment type, length and height for an ISO 6346 size-type code (ISO 6346:1995 size and type tables, as
 * compiled from data/iso6346-size-types.csv columns `t49_equipment_*`): `22G1` → 20 ft standard dry,
 * `45G1` → 40 ft high_cube dry, `22R1` → 20 ft standard reefer. A field is null where the code has no value in
 * the docs/api.md §Container resource enum (a 53 ft `P5G1` has no length). Case-insensitive, surrounding blanks
 * ignored.
 * @returns null for a code not in the table (including blank or null input).
 */
export function equipmentFromSizeType(code: string | null | undefined): EquipmentFields | null {
  if (!code) return null;
  const record = bySizeType.get(code.trim().toUpperCase());
  if (!record) return null;
  return { equipmentType: record.type, equipmentLength: record.length, equipmentHeight: record.height };
}

/**
 * ISO 6346 length codes (first character) with a length in the docs/api.md §Container resource sense, in feet: 10, 20,
 * 40, and 45 (`L`). Other lengths (30 ft, 48 ft `M`, 53 ft `P`) have none. Source: ISO 6346:1995 size code table
 * (length).
 */
const LENGTH_BY_CODE: Readonly<Record<string, number>> = { "1": 10, "2": 20, "4": 40, L: 45 };

/**
 * ISO 6346 height codes (second character) by `equipment_height`: 8 ft and 8 ft 6 in (`0`, `2`, and the wider `C`,
 * `D`) are standard; 9 ft 6 in and over (`5`, `6`, `E`, `F`) are high cube. 9 ft (`4`), half height and the widest
 * boxes (`L`–`P`) have none. Source: ISO 6346:1995 size code table (height and width).
 */
const HEIGHT_BY_CODE: Readonly<Record<string, EquipmentHeight>> = {
  "0": "standard",
  "2": "standard",
  C: "standard",
  D: "standard",
  "5": "high_cube",
  "6": "high_cube",
  E: "high_cube",
  F: "high_cube",
};

/**
 * ISO 6346 type group letters (third character) by `equipment_type`: general purpose and ventilated are dry,
 * thermal and insulated reefer, then open top, flat (platform) rack, bulk, tank. Source: ISO 6346:1995 type group
 * codes, mapped to the docs/api.md §Container resource enum.
 */
const TYPE_BY_GROUP: Readonly<Record<string, EquipmentType>> = {
  G: "dry",
  V: "dry",
  R: "reefer",
  H: "reefer",
  U: "open top",
  P: "flat rack",
  B: "bulk",
  T: "tank",
};

/**
 * Equipment type, length and height of any four-character ISO 6346 size-type code, read from its characters: length
 * code, height code, type group letter. It gives what {@link equipmentFromSizeType} gives for every code of the table
 * (test/reference/equipment.unit.test.ts), and also reads the group codes carriers send that the table does not list
 * (`22GP`, `45RT`, `42UT`). A field is null where its character has no value in the docs/api.md §Container resource
 * enum. Case-insensitive, surrounding blanks ignored.
 * @returns all three fields null for a code that is not four characters (including blank or null input).
 */
export function decodeSizeType(code: string | null | undefined): EquipmentFields {
  const c = code?.trim().toUpperCase() ?? "";
  if (c.length !== 4) return { equipmentType: null, equipmentLength: null, equipmentHeight: null };
  return {
    equipmentType: TYPE_BY_GROUP[c.charAt(2)] ?? null,
    equipmentLength: LENGTH_BY_CODE[c.charAt(0)] ?? null,
    equipmentHeight: HEIGHT_BY_CODE[c.charAt(1)] ?? null,
  };
}

/** Every size-type code in the table, sorted. */
export function knownSizeTypeCodes(): string[] {
  return SIZE_TYPES.map((r) => r.code);
}
