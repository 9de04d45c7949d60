import { describe, expect, it } from "vitest";
import { classifyNumber, matchBlPrefix } from "../../src/infer/classify";
import { withCheckDigit } from "../../src/infer/iso6346";
import {
  NEEDS_CONFIRMATION_THRESHOLD,
  OUTSIDE_REGISTRY_OWNER_FACTOR,
  OWNER_PREFIX_CONFIDENCE,
  ownerPrefixEvidence,
  predictCarrier,
} from "../../src/infer/predict";
import { CONTAINER_OWNERS, CONTAINER_PREFIXES } from "../../src/reference/generated/container-prefixes";
import { SHIPPING_LINES } from "../../src/reference/generated/shipping-lines";
import { findShippingLine } from "../../src/reference/shipping-lines";

// The reference tables behind infer_number (issue 5): built once at module load and shared by every call, and the
// owner SCACs of container-prefixes.csv that carriers.csv does not list (kept as candidates, never tracked).

const predict = (n: string) => predictCarrier(classifyNumber(n));

describe("reference tables are module constants, not rebuilt per call", () => {
  it("two BL classifications with the same prefix share one frozen SCAC list", () => {
    const a = classifyNumber("MEDUAB123456").blPrefix;
    const b = classifyNumber("medu-zz999999").blPrefix;
    expect(a?.scacs).toEqual(["MSCU"]);
    expect(b?.scacs).toBe(a?.scacs);
    expect(matchBlPrefix("MEDU123456")?.scacs).toBe(a?.scacs);
    expect(Object.isFrozen(a?.scacs)).toBe(true);
  });

  it("the owner-prefix evidence of a prefix is one frozen object across calls", () => {
    const first = ownerPrefixEvidence("MSKU");
    expect(first).toEqual([{ scac: "MAEU", name: "Maersk", p: OWNER_PREFIX_CONFIDENCE }]);
    expect(ownerPrefixEvidence("MSKU")).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    // Lessors and unknown prefixes share one empty list too.
    expect(ownerPrefixEvidence("TCLU")).toEqual([]);
    expect(ownerPrefixEvidence("TCLU")).toBe(ownerPrefixEvidence("QQQU"));
  });

  it("predictions do not hand out the tables: mutating a result leaves the next one intact", () => {
    const p = predict(withCheckDigit("MSKU123456"));
    p.candidates.length = 0;
    (p.selected as { confidence: number }).confidence = 0;
    expect(predict(withCheckDigit("MSKU765432")).candidates).toEqual([
      { scac: "MAEU", name: "Maersk", confidence: 0.96 },
    ]);
  });
});

describe("owners outside the carrier registry (container-prefixes.csv SCACs not in carriers.csv)", () => {
  const lineCodes = new Set(SHIPPING_LINES.flatMap((l) => [l.scac, ...l.alternativeScacs]));

  it("keeps every mapped SCAC: each is a registry line or a compiled owner (none dropped)", () => {
    const owners = new Set(CONTAINER_OWNERS.map((o) => o.scac));
    const mapped = new Set(CONTAINER_PREFIXES.flatMap((p) => p.mappedScacs));
    const outside = [...mapped].filter((s) => !lineCodes.has(s));
    expect(outside.sort()).toEqual([...owners].sort());
    expect(owners.size).toBe(42);
  });

  it("compiles each owner with a name, its prefixes and trackingSupported false, and none is a shipping line", () => {
    for (const owner of CONTAINER_OWNERS) {
      expect(owner.name.trim(), owner.scac).not.toBe("");
      expect(owner.trackingSupported).toBe(false);
      expect(findShippingLine(owner.scac), owner.scac).toBeNull();
      expect(owner.prefixes.length, owner.scac).toBeGreaterThan(0);
      for (const prefix of owner.prefixes) {
        expect(CONTAINER_PREFIXES.find((p) => p.prefix === prefix)?.mappedScacs, prefix).toContain(owner.scac);
      }
    }
    expect(CONTAINER_OWNERS.find((o) => o.scac === "ADMU")).toEqual({
      scac: "ADMU",
      name: "Admiral Container Lines",
      prefixes: ["ADMU", "BLSU"],
      trackingSupported: false,
    });
    // owner_names "STC / Stolt Tank Containers" on every row: the longer of the equally frequent names.
    expect(CONTAINER_OWNERS.find((o) => o.scac === "SNTU")?.name).toBe("Stolt Tank Containers");
    // "Avana Global FZCO (BALAJI)" on three rows beats "Balaji Shipping Lines FZCO" on one.
    expect(CONTAINER_OWNERS.find((o) => o.scac === "BLJU")?.name).toBe("Avana Global FZCO (BALAJI)");
  });

  it("an owner's prefix lists the owner at 0.96 × 0.5 = 0.48: a candidate, never more than no_prediction", () => {
    expect(OUTSIDE_REGISTRY_OWNER_FACTOR).toBe(0.5);
    const p = predict(withCheckDigit("BLSU123456"));
    expect(p.candidates).toEqual([{ scac: "ADMU", name: "Admiral Container Lines", confidence: 0.48 }]);
    expect(p.selected).toEqual(p.candidates[0]);
    expect(p.decision).toBe("no_prediction");
    for (const owner of CONTAINER_OWNERS) {
      const top = predict(withCheckDigit(`${owner.prefixes[0]}000001`)).selected;
      expect(top?.scac, owner.scac).toBe(owner.scac);
      expect(top?.confidence ?? 1, owner.scac).toBeLessThan(NEEDS_CONFIRMATION_THRESHOLD);
    }
  });

  it("history of a registry line outranks an outside owner's prefix", () => {
    const p = predictCarrier(classifyNumber(withCheckDigit("ADMU123456")), {
      exactNumber: [],
      ownerPrefix: [{ scac: "MAEU", successes: 1 }],
    });
    // MAEU: prefix history 0.75; ADMU: 0.48 × (1 − 0.75) = 0.12.
    expect(p.candidates).toEqual([
      { scac: "MAEU", name: "Maersk", confidence: 0.75 },
      { scac: "ADMU", name: "Admiral Container Lines", confidence: 0.12 },
    ]);
    expect(p.decision).toBe("needs_confirmation");
  });

  it("registry lines keep their full owner-prefix confidence", () => {
    expect(predict(withCheckDigit("MSKU123456")).selected?.confidence).toBe(0.96);
    for (const record of CONTAINER_PREFIXES) {
      if (record.mappedScacs.length !== 1 || !lineCodes.has(record.mappedScacs[0] as string)) continue;
      expect(ownerPrefixEvidence(record.prefix)[0]?.p, record.prefix).toBe(OWNER_PREFIX_CONFIDENCE);
    }
  });
});
