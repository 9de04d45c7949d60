import { describe, expect, it } from "vitest";
import { ValidationInput } from "../../src/custom-fields/schemas";
import { checkValue, displayValue } from "../../src/custom-fields/value-types";
import { ApiError } from "../../src/lib/errors";

// The typing and display of custom field values (docs/api.md §Custom fields), without a database.

const def = (
  dataType: string,
  extra: Partial<{ referenceType: string; validation: Record<string, unknown> }> = {},
) => ({
  dataType,
  referenceType: extra.referenceType ?? null,
  validation: extra.validation ?? null,
});
const options = [
  { value: "EXW", label: "Ex Works" },
  { value: "FOB", label: "Free On Board" },
];

function refused(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
  throw new Error("not refused");
}

describe("checkValue", () => {
  it("puts dates and date-times in stored form and refuses impossible ones", () => {
    expect(checkValue("2024-02-29", def("date"), [])).toBe("2024-02-29");
    expect(checkValue("2026-05-01T23:30:00-02:00", def("date"), [])).toBe("2026-05-01");
    expect(checkValue("2026-05-01T23:30:00-02:00", def("datetime"), [])).toBe("2026-05-02T01:30:00Z");
    expect(checkValue("2026-05-01 08:00:00.123Z", def("datetime"), [])).toBe("2026-05-01T08:00:00Z");
    for (const bad of ["2025-02-29", "2026-13-01", "01/05/2026", "2026-05-01T24:00:00Z"]) {
      expect(refused(() => checkValue(bad, def(bad.includes("T") ? "datetime" : "date"), [])).status, bad).toBe(422);
    }
  });

  it("numbers: finite, under 10^12, six decimals", () => {
    expect(checkValue(0.1234567, def("number"), [])).toBe(0.123457);
    expect(checkValue(-999_999_999_999, def("number"), [])).toBe(-999_999_999_999);
    expect(refused(() => checkValue(1e12, def("number"), [])).errors[0]?.source).toEqual({
      pointer: "/data/attributes/value",
    });
    expect(refused(() => checkValue(Number.NaN, def("number"), [])).status).toBe(422);
  });

  it("options: enum one value, enum_multi distinct values with per-item pointers", () => {
    expect(checkValue("FOB", def("enum"), options)).toBe("FOB");
    expect(checkValue([], def("enum_multi"), options)).toEqual([]);
    expect(refused(() => checkValue(["EXW", "CIF"], def("enum_multi"), options)).errors[0]?.source).toEqual({
      pointer: "/data/attributes/value/1",
    });
    expect(refused(() => checkValue("exw", def("enum"), options)).errors[0]?.detail).toContain("options: EXW, FOB");
  });

  it("text: max_length, pattern, required; a reference must be exactly {type, id} of the reference_type", () => {
    const rules = def("short_text", { validation: { max_length: 3, pattern: "^[A-Z]+$", required: true } });
    expect(checkValue("ABC", rules, [])).toBe("ABC");
    expect(refused(() => checkValue("ABCD", rules, [])).errors[0]?.detail).toContain("maximum is 3");
    expect(refused(() => checkValue("ab", rules, [])).errors[0]?.detail).toContain("pattern");
    expect(refused(() => checkValue(null, rules, [])).errors[0]?.code).toBe("blank");
    expect(checkValue(null, def("short_text"), [])).toBeNull();
    const ref = def("reference", { referenceType: "shipment" });
    expect(checkValue({ type: "shipment", id: "s1" }, ref, [])).toEqual({ type: "shipment", id: "s1" });
    expect(refused(() => checkValue({ type: "shipment", id: "s1", x: 1 }, ref, [])).status).toBe(422);
    expect(refused(() => checkValue(["shipment", "s1"], ref, [])).status).toBe(422);
  });
});

describe("displayValue", () => {
  it("formats each type", () => {
    expect(displayValue(true, "boolean", [])).toBe("Yes");
    expect(displayValue("2026-05-01T12:30:00Z", "datetime", [])).toBe("2026-05-01 12:30:00");
    expect(displayValue(["FOB", "EXW", "GONE"], "enum_multi", options)).toBe("Free On Board, Ex Works, GONE");
    expect(displayValue(12.5, "number", [])).toBe("12.5");
    expect(displayValue(null, "short_text", [])).toBeNull();
  });
});

describe("validation.pattern", () => {
  it("refuses invalid expressions and those that can take exponential time", () => {
    expect(ValidationInput.safeParse({ pattern: "^[A-Z]{3}-\\d+$" }).success).toBe(true);
    for (const pattern of ["(", "(a+)+$", "(\\w*)*", "(x{2,}){3}", "(a)\\1"]) {
      expect(ValidationInput.safeParse({ pattern }).success, pattern).toBe(false);
    }
  });
});
