import { describe, expect, it } from "vitest";
import { classifyNumber, InvalidReferenceNumber, normalizeNumber } from "../../src/infer/classify";
import { CONTAINER_NUMBER_PATTERN, withCheckDigit } from "../../src/infer/iso6346";
import { REAL_CONTAINER_NUMBERS } from "../fixtures/real-container-numbers";

/** Spaced form of a number: `CSQU 305438 3`-style. */
function spaced(n: string): string {
  return n.length === 11 ? `${n.slice(0, 4)} ${n.slice(4, 10)} ${n.slice(10)}` : n.split("").join(" ");
}

describe("classifyNumber on the real container numbers", () => {
  for (const row of REAL_CONTAINER_NUMBERS) {
    const normal = normalizeNumber(row.containerNumber);
    for (const [form, input] of [
      ["raw", row.containerNumber],
      ["spaced", spaced(normal)],
      ["lower-case", `  ${row.containerNumber.toLowerCase()} `],
    ] as const) {
      it(`${row.containerNumber} (${form})`, () => {
        const k = classifyNumber(input);
        expect(k.normalized).toBe(normal);
        if (CONTAINER_NUMBER_PATTERN.test(normal)) {
          expect(k.numberType).toBe("container");
          expect(k.validation.type).toBe("container");
          expect(k.validation.checkDigitPassed).toBe(row.validCheckDigit);
          expect(k.validation.isValid).toBe(row.validCheckDigit);
          expect(k.validation.reason).toBe(row.validCheckDigit ? null : "Invalid check digit");
          expect(k.ownerPrefix).toBe(normal.slice(0, 4));
        } else {
          expect(row.validCheckDigit).toBe(false);
          expect(k.numberType).not.toBe("container");
          expect(k.validation.type).toBe("shipment");
        }
      });
    }
  }

  it("covers every row, valid and invalid", () => {
    expect(REAL_CONTAINER_NUMBERS).toHaveLength(73);
  });
});

describe("classifyNumber table", () => {
  const cases: [string, string, "container" | "bill_of_lading" | "booking", boolean | null][] = [
    ["WHLU1234560", "WHLU1234560", "container", true],
    ["whlu-123456-0", "WHLU1234560", "container", true],
    ["MSCU1234567", "MSCU1234567", "container", false],
    [withCheckDigit("TSTJ100000"), withCheckDigit("TSTJ100000"), "container", true],
    [withCheckDigit("TSTZ100000"), withCheckDigit("TSTZ100000"), "container", true],
    ["MAEU123456789", "MAEU123456789", "bill_of_lading", true],
    ["MEDU-AB1234", "MEDUAB1234", "bill_of_lading", true],
    ["EGLV084900042045", "EGLV084900042045", "bill_of_lading", true],
    ["EISU08490004", "EISU08490004", "bill_of_lading", true],
    ["TEST-TR-SUCCEEDED", "TESTTRSUCCEEDED", "bill_of_lading", true],
    ["MAEU12345", "MAEU12345", "booking", null],
    ["987654321", "987654321", "booking", null],
    ["ZZZZ12345678", "ZZZZ12345678", "booking", null],
    ["AB/123", "AB/123", "booking", false],
  ];
  for (const [input, normalized, type, valid] of cases) {
    it(`${input} → ${type}`, () => {
      const k = classifyNumber(input);
      expect(k.normalized).toBe(normalized);
      expect(k.numberType).toBe(type);
      expect(k.validation.isValid).toBe(valid);
      expect(k.validation.type).toBe(type === "container" ? "container" : "shipment");
      if (type !== "container") expect(k.validation.checkDigitPassed).toBeNull();
    });
  }

  it("records the BL prefix and the lines using it (alternative SCAC MEDU → MSCU)", () => {
    expect(classifyNumber("MEDUAB1234").blPrefix).toEqual({ prefix: "MEDU", scacs: ["MSCU"] });
    expect(classifyNumber("EGLV084900042045").blPrefix).toEqual({ prefix: "EGLV", scacs: ["EGLV"] });
  });

  it("rejects garbage", () => {
    for (const garbage of ["", "   ", "---", "- - -", "!!!", "A".repeat(41), `${"1".repeat(20)} ${"2".repeat(21)}`]) {
      expect(() => classifyNumber(garbage), JSON.stringify(garbage)).toThrow(InvalidReferenceNumber);
    }
    expect(classifyNumber("A".repeat(40)).numberType).toBe("booking");
  });
});
