import { describe, expect, it } from "vitest";
import { containerPrefixesForScac } from "../../src/reference/container-prefixes";
import { decodeSizeType, equipmentFromSizeType, knownSizeTypeCodes } from "../../src/reference/equipment";
import { CONTAINER_PREFIXES } from "../../src/reference/generated/container-prefixes";

// ISO 6346 size-type codes → docs/api.md §Container resource equipment fields, as compiled from
// data/iso6346-size-types.csv.

describe("equipmentFromSizeType", () => {
  it("reads a 20 ft standard dry box", () => {
    expect(equipmentFromSizeType("22G1")).toEqual({
      equipmentType: "dry",
      equipmentLength: 20,
      equipmentHeight: "standard",
    });
  });

  it("reads a 40 ft high cube dry box", () => {
    expect(equipmentFromSizeType("45G1")).toEqual({
      equipmentType: "dry",
      equipmentLength: 40,
      equipmentHeight: "high_cube",
    });
  });

  it("reads reefers, open tops, flat racks, tanks and 45 ft boxes", () => {
    expect(equipmentFromSizeType("22R1")).toEqual({
      equipmentType: "reefer",
      equipmentLength: 20,
      equipmentHeight: "standard",
    });
    expect(equipmentFromSizeType("45R1")?.equipmentType).toBe("reefer");
    expect(equipmentFromSizeType("42U1")?.equipmentType).toBe("open top");
    expect(equipmentFromSizeType("42P1")?.equipmentType).toBe("flat rack");
    expect(equipmentFromSizeType("22T6")?.equipmentType).toBe("tank");
    expect(equipmentFromSizeType("L5G1")).toEqual({
      equipmentType: "dry",
      equipmentLength: 45,
      equipmentHeight: "high_cube",
    });
  });

  it("folds the CSV's qualified and platform types into the docs/api.md enum", () => {
    expect(equipmentFromSizeType("22V0")?.equipmentType).toBe("dry");
    expect(equipmentFromSizeType("22H1")?.equipmentType).toBe("reefer");
    expect(equipmentFromSizeType("29P0")).toEqual({
      equipmentType: "flat rack",
      equipmentLength: 20,
      equipmentHeight: null,
    });
  });

  it("keeps a length outside the enum as null (53 ft)", () => {
    expect(equipmentFromSizeType("P5G1")).toEqual({
      equipmentType: "dry",
      equipmentLength: null,
      equipmentHeight: "high_cube",
    });
  });

  it("is case-insensitive and ignores surrounding blanks", () => {
    expect(equipmentFromSizeType(" 45g1 ")).toEqual(equipmentFromSizeType("45G1"));
  });

  it("returns null for unknown, blank and missing codes", () => {
    expect(equipmentFromSizeType("99Z9")).toBeNull();
    expect(equipmentFromSizeType("22G")).toBeNull();
    expect(equipmentFromSizeType("")).toBeNull();
    expect(equipmentFromSizeType(null)).toBeNull();
    expect(equipmentFromSizeType(undefined)).toBeNull();
  });

  it("compiles every row of the CSV, sorted by code", () => {
    const codes = knownSizeTypeCodes();
    expect(codes).toHaveLength(44);
    expect([...codes].sort((a, b) => a.localeCompare(b))).toEqual(codes);
  });
});

describe("decodeSizeType", () => {
  it("reads every code of the table as the table does", () => {
    for (const code of knownSizeTypeCodes()) expect(decodeSizeType(code), code).toEqual(equipmentFromSizeType(code));
  });

  it("reads group codes the table does not list from their characters", () => {
    expect(decodeSizeType("22GP")).toEqual({ equipmentType: "dry", equipmentLength: 20, equipmentHeight: "standard" });
    expect(decodeSizeType("45RT")).toEqual({
      equipmentType: "reefer",
      equipmentLength: 40,
      equipmentHeight: "high_cube",
    });
    expect(decodeSizeType("L5GP")).toEqual({ equipmentType: "dry", equipmentLength: 45, equipmentHeight: "high_cube" });
    expect(decodeSizeType(" 12vh ")).toEqual({
      equipmentType: "dry",
      equipmentLength: 10,
      equipmentHeight: "standard",
    });
  });

  it("leaves a field null where its character has no value, and all three for a code that is not four characters", () => {
    expect(decodeSizeType("34SN")).toEqual({ equipmentType: null, equipmentLength: null, equipmentHeight: null });
    const none = { equipmentType: null, equipmentLength: null, equipmentHeight: null };
    expect(decodeSizeType("22G")).toEqual(none);
    expect(decodeSizeType("")).toEqual(none);
    expect(decodeSizeType(null)).toEqual(none);
  });
});

describe("containerPrefixesForScac", () => {
  it("uses the line's own prefixes from carriers.csv", () => {
    const maersk = containerPrefixesForScac("MAEU");
    expect(maersk).toContain("MSKU");
    expect(maersk).toContain("MRKU");
    expect(containerPrefixesForScac("msCU")).toContain("MEDU");
  });

  it("is empty for a line with no known prefixes", () => {
    expect(containerPrefixesForScac("ANNU")).toEqual([]);
    expect(containerPrefixesForScac("NOPE")).toEqual([]);
  });

  it("compiles container-prefixes.csv with mapped SCACs and the conflict flag", () => {
    expect(CONTAINER_PREFIXES).toHaveLength(678);
    expect(CONTAINER_PREFIXES.find((p) => p.prefix === "APLU")).toEqual({
      prefix: "APLU",
      mappedScacs: ["APLU", "CMDU"],
      conflict: true,
    });
    expect(CONTAINER_PREFIXES.find((p) => p.prefix === "ACLU")).toEqual({
      prefix: "ACLU",
      mappedScacs: ["ACLU"],
      conflict: false,
    });
    expect(CONTAINER_PREFIXES.find((p) => p.prefix === "AAAU")?.mappedScacs).toEqual([]);
  });
});
