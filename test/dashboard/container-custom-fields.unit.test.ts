import { describe, expect, it } from "vitest";
import { customFieldFormValue } from "../../src/dashboard/container-custom-fields";

// The value a container page's custom field form sends (src/dashboard/container-custom-fields.tsx), in the JSON form
// of the REST body, for upsertValue to check.

function form(values: string[]) {
  return { get: (name: string) => (name === "value" ? (values[0] ?? null) : null), getAll: () => values };
}

const typed = (dataType: string, values: string[], referenceType: string | null = null) =>
  customFieldFormValue({ dataType, referenceType }, form(values));

describe("customFieldFormValue", () => {
  it("types each kind of input, and an empty one clears the value", () => {
    expect(typed("short_text", ["PO 42"])).toBe("PO 42");
    expect(typed("number", [" 12.5 "])).toBe(12.5);
    expect(typed("date", ["2026-12-01"])).toBe("2026-12-01");
    expect(typed("datetime", ["2026-12-01T08:30"])).toBe("2026-12-01T08:30:00Z");
    expect(typed("datetime", ["2026-12-01T08:30:15"])).toBe("2026-12-01T08:30:15Z");
    expect(typed("boolean", ["true"])).toBe(true);
    expect(typed("boolean", ["false"])).toBe(false);
    expect(typed("enum", ["hot"])).toBe("hot");
    expect(typed("enum_multi", ["a", "b"])).toEqual(["a", "b"]);
    expect(typed("reference", [" abc "], "shipment")).toEqual({ type: "shipment", id: "abc" });
    for (const t of ["short_text", "number", "date", "datetime", "boolean", "enum", "reference", "enum_multi"]) {
      expect(typed(t, [""]), t).toBeNull();
    }
    expect(typed("enum_multi", [])).toBeNull();
  });

  it("passes text that is not of the type on unchanged, for the service to explain", () => {
    expect(typed("number", ["twelve"])).toBe("twelve");
    expect(typed("datetime", ["tomorrow"])).toBe("tomorrow");
    expect(typed("boolean", ["maybe"])).toBe("maybe");
  });
});
