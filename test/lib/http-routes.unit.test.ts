import { z } from "@hono/zod-openapi";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { ApiError } from "../../src/lib/errors";
import { allowedMethods, checkQueryParameters, declaredQueryParameters } from "../../src/lib/http-routes";
import { hasControlCharacter } from "../../src/lib/validation";

/** The 400 `checkQueryParameters` throws for `query` against `declared`, or undefined when it accepts. */
function refusal(query: string, declared: string[]): ApiError | undefined {
  try {
    checkQueryParameters(new URLSearchParams(query), new Set(declared));
    return undefined;
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
}

describe("checkQueryParameters", () => {
  it("accepts declared parameters, empty values and no parameters at all", () => {
    expect(refusal("", [])).toBeUndefined();
    expect(refusal("page[size]=5&include=", ["page[size]", "include"])).toBeUndefined();
    expect(refusal("page%5Bsize%5D=5", ["page[size]"])).toBeUndefined();
  });

  it("names each unknown parameter once, in order, and says what the endpoint takes", () => {
    const err = refusal("foo=1&filter[x]=2&foo=3&sort=a&fields[container]=n", ["include", "filter[number]"]);
    expect(err?.status).toBe(400);
    expect(err?.errors.map((e) => [e.source?.parameter, e.code])).toEqual([
      ["foo", "unknown_parameter"],
      ["filter[x]", "unknown_parameter"],
      ["sort", "unknown_parameter"],
      ["fields[container]", "unknown_parameter"],
    ]);
    expect(err?.errors[0]?.detail).toBe(
      "foo is not a query parameter of this endpoint. Parameters: include, filter[number].",
    );
    expect(err?.errors[1]?.detail).toBe("filter[x] is not a filter of this endpoint. Filters: filter[number].");
    expect(err?.errors[2]?.detail).toContain("fixed order");
    expect(err?.errors[3]?.detail).toContain("sparse fieldsets");
    expect(refusal("x=1", [])?.errors[0]?.detail).toBe("x: this endpoint takes no query parameters.");
    expect(refusal("filter[a]=1", ["page[size]"])?.errors[0]?.detail).toBe("filter[a]: this endpoint has no filters.");
  });

  it("refuses a declared parameter given twice, once", () => {
    const err = refusal("page[size]=1&page[size]=2&page[size]=3", ["page[size]"]);
    expect(err?.errors.map((e) => [e.source?.parameter, e.code])).toEqual([["page[size]", "duplicate_parameter"]]);
  });
});

describe("declaredQueryParameters", () => {
  it("keys each route by method and Hono path under the base path, with its query schema's names", () => {
    const declared = declaredQueryParameters(
      [
        { method: "get", path: "/containers", request: { query: z.object({ include: z.string().optional() }) } },
        { method: "get", path: "/containers/{id}/route", request: {} },
        { method: "patch", path: "/containers/{id}/refresh" },
        { method: "get", path: "/odd", request: { query: z.string() } },
      ],
      "/v2",
    );
    expect([...declared.keys()]).toEqual([
      "GET /v2/containers",
      "GET /v2/containers/:id/route",
      "PATCH /v2/containers/:id/refresh",
      "GET /v2/odd",
    ]);
    expect([...(declared.get("GET /v2/containers") ?? [])]).toEqual(["include"]);
    expect([...(declared.get("PATCH /v2/containers/:id/refresh") ?? ["?"])]).toEqual([]);
    // A query schema that is not an object is not checked.
    expect(declared.get("GET /v2/odd")).toBeUndefined();
  });
});

describe("allowedMethods", () => {
  const app = new Hono();
  app.use("*", async (_c, next) => next());
  app.get("/things", (c) => c.text("list"));
  app.post("/things", (c) => c.text("create"));
  app.patch("/things/:id", (c) => c.text("patch"));
  app.delete("/things/:id", (c) => c.text("delete"));

  it("lists the methods of the routes matching the path, HEAD with GET, then OPTIONS; middleware is no method", () => {
    expect(allowedMethods(app.router, "/things")).toEqual(["GET", "HEAD", "POST", "OPTIONS"]);
    expect(allowedMethods(app.router, "/things/42")).toEqual(["PATCH", "DELETE", "OPTIONS"]);
    expect(allowedMethods(app.router, "/nothing")).toEqual([]);
  });
});

describe("hasControlCharacter", () => {
  it("is true for U+0000–U+001F and U+007F only", () => {
    for (let code = 0; code < 0x20; code++) expect(hasControlCharacter(`a${String.fromCharCode(code)}b`)).toBe(true);
    expect(hasControlCharacter("\u007f")).toBe(true);
    for (const text of ["", "PO-123", " spaced ", "é 🚢 مرحبا", "\u0080\u009f", "~"]) {
      expect(hasControlCharacter(text), text).toBe(false);
    }
  });
});
