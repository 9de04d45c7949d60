import { describe, expect, it } from "vitest";
import { classifyNumber } from "../../src/infer/classify";
import { withCheckDigit } from "../../src/infer/iso6346";
import {
  AUTO_SELECT_THRESHOLD,
  decide,
  exactHistoryConfidence,
  NEEDS_CONFIRMATION_THRESHOLD,
  predictCarrier,
  prefixHistoryConfidence,
} from "../../src/infer/predict";

const predict = (n: string, history?: Parameters<typeof predictCarrier>[1]) =>
  predictCarrier(classifyNumber(n), history);

describe("predictCarrier from the reference tables", () => {
  it("carrier-owned container prefix → that carrier at 0.96 (auto_select)", () => {
    const p = predict(withCheckDigit("MSKU123456"));
    expect(p.candidates).toEqual([{ scac: "MAEU", name: "Maersk", confidence: 0.96 }]);
    expect(p.selected).toEqual(p.candidates[0]);
    expect(p.decision).toBe("auto_select");
  });

  it("an invalid container number still gets a prediction", () => {
    const k = classifyNumber("MSCU1234567");
    expect(k.validation.isValid).toBe(false);
    expect(predictCarrier(k).selected?.scac).toBe("MSCU");
  });

  it("lessor prefix → no carrier", () => {
    const p = predict(withCheckDigit("TCLU123456"));
    expect(p).toEqual({ decision: "no_prediction", selected: null, candidates: [] });
  });

  it("prefix claimed by two carriers splits the confidence", () => {
    const p = predict(withCheckDigit("APLU123456"));
    expect(p.candidates.map((c) => [c.scac, c.confidence])).toEqual([
      ["APLU", 0.48],
      ["CMDU", 0.48],
    ]);
    expect(p.decision).toBe("no_prediction");
    expect(p.selected?.scac).toBe("APLU");
  });

  it("BL prefix that differs from the SCAC: MEDU → MSCU", () => {
    const p = predict("MEDUAB123456");
    expect(p.candidates).toEqual([{ scac: "MSCU", name: "Mediterranean Shipping Company", confidence: 0.97 }]);
    expect(p.decision).toBe("auto_select");
  });

  it("BL prefix EISU → Evergreen (EGLV)", () => {
    expect(predict("EISU084900042045").selected?.scac).toBe("EGLV");
  });

  it("bare digits → booking with no prediction", () => {
    const k = classifyNumber("987654321");
    expect(k.numberType).toBe("booking");
    expect(predictCarrier(k)).toEqual({ decision: "no_prediction", selected: null, candidates: [] });
  });
});

describe("predictCarrier with history", () => {
  it("owner-prefix history outranks the owner-prefix table", () => {
    const p = predict(withCheckDigit("MSKU123456"), { exactNumber: [], ownerPrefix: [{ scac: "MSCU", successes: 2 }] });
    expect(p.candidates.map((c) => [c.scac, c.confidence])).toEqual([
      ["MSCU", 0.88],
      ["MAEU", 0.12],
    ]);
    expect(p.decision).toBe("needs_confirmation");
  });

  it("history for a lessor prefix gives a carrier", () => {
    const p = predict(withCheckDigit("TCLU123456"), { exactNumber: [], ownerPrefix: [{ scac: "HLCU", successes: 1 }] });
    expect(p.selected).toEqual({ scac: "HLCU", name: "Hapag-Lloyd", confidence: 0.75 });
    expect(p.decision).toBe("needs_confirmation");
  });

  it("exact-number history is stronger than prefix history and outranks a BL prefix", () => {
    expect(exactHistoryConfidence(1)).toBeGreaterThan(prefixHistoryConfidence(1));
    const p = predict("MEDUAB123456", { exactNumber: [{ scac: "MAEU", successes: 1 }], ownerPrefix: [] });
    expect(p.selected).toEqual({ scac: "MAEU", name: "Maersk", confidence: 0.96 });
    expect(p.candidates[1]).toEqual({ scac: "MSCU", name: "Mediterranean Shipping Company", confidence: 0.04 });
  });

  it("a booking tracked before predicts its line; alternative SCACs map to the line", () => {
    const p = predict("987654321", { exactNumber: [{ scac: "MEDU", successes: 2 }], ownerPrefix: [] });
    expect(p.selected).toEqual({ scac: "MSCU", name: "Mediterranean Shipping Company", confidence: 0.98 });
    expect(p.decision).toBe("auto_select");
  });

  it("split history shares the confidence; agreeing evidence combines (noisy-OR)", () => {
    const split = predict("987654321", {
      exactNumber: [
        { scac: "HLCU", successes: 3 },
        { scac: "ONEY", successes: 1 },
      ],
      ownerPrefix: [],
    });
    expect(split.candidates.map((c) => c.scac)).toEqual(["HLCU", "ONEY"]);
    expect(split.candidates[0]?.confidence).toBe(0.75);
    expect(split.decision).toBe("needs_confirmation");
    const agree = predict(withCheckDigit("MSKU123456"), {
      exactNumber: [],
      ownerPrefix: [{ scac: "MAEU", successes: 1 }],
    });
    expect(agree.selected?.confidence).toBe(0.99);
  });

  it("confidences grow with agreeing successes and stay below 1", () => {
    for (let n = 1; n < 20; n++) {
      expect(prefixHistoryConfidence(n + 1)).toBeGreaterThanOrEqual(prefixHistoryConfidence(n));
      expect(exactHistoryConfidence(n + 1)).toBeGreaterThanOrEqual(exactHistoryConfidence(n));
      expect(exactHistoryConfidence(n)).toBeLessThan(1);
    }
    expect(prefixHistoryConfidence(3)).toBeLessThan(AUTO_SELECT_THRESHOLD);
    expect(prefixHistoryConfidence(4)).toBeGreaterThanOrEqual(AUTO_SELECT_THRESHOLD);
  });
});

describe("decision thresholds (docs/api.md §Infer number)", () => {
  it("edges at exactly 0.95 and 0.70", () => {
    expect(AUTO_SELECT_THRESHOLD).toBe(0.95);
    expect(NEEDS_CONFIRMATION_THRESHOLD).toBe(0.7);
    expect(decide(1)).toBe("auto_select");
    expect(decide(0.95)).toBe("auto_select");
    expect(decide(0.9499)).toBe("needs_confirmation");
    expect(decide(0.94)).toBe("needs_confirmation");
    expect(decide(0.7)).toBe("needs_confirmation");
    expect(decide(0.6999)).toBe("no_prediction");
    expect(decide(0.69)).toBe("no_prediction");
    expect(decide(0)).toBe("no_prediction");
    expect(decide(null)).toBe("no_prediction");
  });

  it("is decided on the rounded confidence that is shown", () => {
    // 3 of 4 exact successes: 0.995 · 3/4 = 0.746 → 0.75, needs_confirmation; 1 of 4 → 0.25.
    const p = predict("987654321", {
      exactNumber: [
        { scac: "HLCU", successes: 3 },
        { scac: "ONEY", successes: 1 },
      ],
      ownerPrefix: [],
    });
    expect(p.decision).toBe(decide(p.selected?.confidence ?? null));
  });
});
