import { describe, expect, it } from "vitest";
import { findMetroArea } from "../../src/reference/metro-areas";
import { api, apiJson, BASE, createAccount } from "../helpers/api";
import type { Doc, One } from "../helpers/tracking";

// GET /metro_areas/{id} (docs/api.md §Metro area resource): by UUID or UN/LOCODE, the reference's shape: `id` repeated
// inside attributes, coordinates as strings, `time_zone`, `links.self`. Shared reference data: any account sees it.

describe("GET /metro_areas/{id}", () => {
  it("by UN/LOCODE: the reference's shape and links.self as asked", async () => {
    const account = await createAccount();
    const { res, json } = await apiJson<One>("/metro_areas/USEWI", { key: account.key });
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toContain("application/vnd.api+json");
    const id = findMetroArea("USEWI")?.id;
    expect(json.data).toEqual({
      id,
      type: "metro_area",
      attributes: {
        id,
        name: "Elwood",
        code: "USEWI",
        state_abbr: "IL",
        country_code: "US",
        time_zone: "America/Chicago",
        latitude: expect.stringMatching(/^41\.40/),
        longitude: expect.stringMatching(/^-88\.11/),
      },
    });
    expect(json.links?.self).toBe(`${BASE}/metro_areas/USEWI`);
    expect(Object.keys(json).sort()).toEqual(["data", "links"]);
  });

  it("by id (any case) and by lower-case code: the same resource", async () => {
    const account = await createAccount();
    const byCode = await apiJson<One>("/metro_areas/CATOR", { key: account.key });
    const byId = await apiJson<One>(`/metro_areas/${byCode.json.data.id.toUpperCase()}`, { key: account.key });
    const lower = await apiJson<One>("/metro_areas/cator", { key: account.key });
    expect(byId.res.status).toBe(200);
    expect(byId.json.data).toEqual(byCode.json.data);
    expect(lower.json.data).toEqual(byCode.json.data);
    expect(byCode.json.data.attributes).toMatchObject({ name: "Toronto", state_abbr: "ON", country_code: "CA" });
  });

  it("an unknown code or id, or anything else, is a JSON:API 404", async () => {
    const account = await createAccount();
    for (const id of ["USXXX", "USLAX", crypto.randomUUID(), "not-an-id", "x".repeat(64)]) {
      const { res, json } = await apiJson<Doc>(`/metro_areas/${id}`, { key: account.key });
      expect(res.status, id).toBe(404);
      expect(res.headers.get("Content-Type"), id).toContain("application/vnd.api+json");
      expect(json.errors?.[0], id).toMatchObject({ status: "404", title: "Not Found" });
    }
  });

  it("no key is a 401; an unknown query parameter a 400; the same answer for every account", async () => {
    expect((await api("/metro_areas/USEWI", { key: null })).status).toBe(401);
    const a = await createAccount();
    const b = await createAccount("Other");
    const bad = await apiJson<Doc>("/metro_areas/USEWI?include=ports", { key: a.key });
    expect(bad.res.status).toBe(400);
    const fromA = await apiJson<One>("/metro_areas/USCHI", { key: a.key });
    const fromB = await apiJson<One>("/metro_areas/USCHI", { key: b.key });
    expect(fromB.json.data).toEqual(fromA.json.data);
  });
});
