import { describe, expect, it } from "vitest";
import { hasUnpairedSurrogate, jsonPointer, unpairedSurrogateErrors } from "../../src/lib/validation";

// Issue 23 §6: a JSON body can spell a lone UTF-16 surrogate with a \uXXXX escape; no string holding one is accepted.

const pointers = (body: unknown) => unpairedSurrogateErrors(body).map((e) => e.source?.pointer);

describe("hasUnpairedSurrogate", () => {
  it.each([
    ["x\uD800y", true],
    ["x\uDC00y", true],
    ["\uDFFF\uD800", true],
    ["PO-1\uD83D", true],
    ["x\uD83D\uDEA2y", false],
    ["plain ASCII", false],
    ["é 中 مرحبا", false],
    ["", false],
  ])("%j → %s", (value, expected) => {
    expect(hasUnpairedSurrogate(value)).toBe(expected);
  });

  it("what JSON.parse makes of the escapes", () => {
    expect(hasUnpairedSurrogate(JSON.parse('"x\\ud800y"'))).toBe(true);
    expect(hasUnpairedSurrogate(JSON.parse('"x\\ud83d\\udea2y"'))).toBe(false);
  });
});

describe("unpairedSurrogateErrors", () => {
  it("names every bad string by its RFC 6901 pointer, in document order, with the field in the detail", () => {
    const body = JSON.parse(
      '{"data":{"attributes":{"company_name":"x\\ud800","ref_numbers":["ok","\\udc00"],"a/b~c":"\\ud800"}}}',
    );
    expect(unpairedSurrogateErrors(body)).toEqual([
      {
        detail: "Company name must not contain an unpaired surrogate (U+D800–U+DFFF without its pair).",
        source: { pointer: "/data/attributes/company_name" },
        code: "unpaired_surrogate",
      },
      expect.objectContaining({ source: { pointer: "/data/attributes/ref_numbers/1" } }),
      expect.objectContaining({ source: { pointer: "/data/attributes/a~1b~0c" } }),
    ]);
  });

  it("a bad member name is reported once, at its own pointer", () => {
    const errors = unpairedSurrogateErrors(JSON.parse('{"data":{"x\\ud800":"\\ud800"}}'));
    expect(errors).toEqual([
      expect.objectContaining({
        detail: expect.stringMatching(/^A member name /),
        source: { pointer: "/data/x\uD800" },
      }),
    ]);
  });

  it("well-formed bodies and non-strings give nothing; a bare string body is the whole document", () => {
    expect(unpairedSurrogateErrors({ a: [1, true, null, { b: "🚢" }], c: "" })).toEqual([]);
    expect(unpairedSurrogateErrors(null)).toEqual([]);
    expect(pointers("\uD800")).toEqual([""]);
  });

  it("a body nested a million levels deep is walked without recursion", () => {
    const depth = 1_000_000;
    const body = JSON.parse(`${"[".repeat(depth)}"\\ud800"${"]".repeat(depth)}`);
    const [error, ...rest] = unpairedSurrogateErrors(body);
    expect(rest).toEqual([]);
    expect(error?.source?.pointer).toBe("/0".repeat(depth));
  });

  it("reports at most 100 errors for one body", () => {
    expect(unpairedSurrogateErrors(Array.from({ length: 5000 }, () => "\uD800"))).toHaveLength(100);
  });
});

describe("jsonPointer", () => {
  it("escapes ~ and / (RFC 6901) and makes the whole document the empty pointer", () => {
    expect(jsonPointer(["data", "attributes", "a/b~c", 0])).toBe("/data/attributes/a~1b~0c/0");
    expect(jsonPointer([])).toBe("");
  });
});
