import { describe, expect, it } from "vitest";
import { FormErrors, formErrorsOf, formInteger, formList, formString, formStrings } from "../../src/dashboard/forms";
import { ApiError } from "../../src/lib/errors";

// The dashboard's form plumbing (src/dashboard/forms.tsx): posted values to JSON body values, and an ApiError's
// pointers to the fields the page shows them next to.

describe("form values", () => {
  it("reads single, repeated, integer and list fields", () => {
    const form = { a: " x ", many: ["1", "2"], n: "12", bad: "1.5", empty: "", codes: "uslax, USLGB  nlrtm,," };
    expect(formString(form, "a")).toBe("x");
    expect(formString(form, "many")).toBe("2");
    expect(formString(form, "absent")).toBe("");
    expect(formStrings(form, "many")).toEqual(["1", "2"]);
    expect(formStrings(form, "a")).toEqual([" x "]);
    expect(formStrings(form, "absent")).toEqual([]);
    expect(formInteger(form, "n")).toBe(12);
    expect(formInteger(form, "bad")).toBe("1.5");
    expect(formInteger(form, "empty")).toBeNull();
    expect(formList(form, "codes")).toEqual(["uslax", "USLGB", "nlrtm"]);
  });
});

describe("formErrorsOf", () => {
  it("keys each error by its pointer below /data/attributes; others go to the summary only", () => {
    const err = new ApiError(422, [
      { detail: "bad url", source: { pointer: "/data/attributes/url" } },
      { detail: "bad event", source: { pointer: "/data/attributes/events/3" } },
      { detail: "bad tier", source: { pointer: "/data/attributes/tiers/1/from_day" } },
      { detail: "too many", source: { pointer: "/data" } },
      { detail: "no pointer" },
    ]);
    const errors = formErrorsOf(err);
    expect(errors.of("url")).toBe("bad url");
    expect(errors.of("events")).toBe("bad event");
    expect(errors.of("tiers/1/from_day")).toBe("bad tier");
    expect(errors.of("tiers/0/from_day")).toBeNull();
    expect(errors.of("ur")).toBeNull();
    expect(errors.items.map((e) => e.field)).toEqual(["url", "events/3", "tiers/1/from_day", null, null]);
    expect(errors.empty).toBe(false);
    expect(FormErrors.none.empty).toBe(true);
  });

  it("reads the trigger operation's top-level pointers (/url) when the base is empty", () => {
    const err = new ApiError(422, [{ detail: "refused", source: { pointer: "/url" } }]);
    expect(formErrorsOf(err, "").of("url")).toBe("refused");
  });
});
