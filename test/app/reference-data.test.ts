import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { SHIPPING_LINES } from "../../src/reference/generated/shipping-lines";
import { TERMINALS } from "../../src/reference/generated/terminals";
import { api, apiJson, BASE, createAccount } from "../helpers/api";
import { type Doc, type Many, type One, toMany, toOne } from "../helpers/tracking";

const USLAX_ID = "7f489361-09f1-5853-a300-c72f23604b40";
const FENIX = TERMINALS.find((t) => t.firmsCode === "Y257");

describe("GET /shipping_lines", () => {
  it("lists every line sorted by SCAC, TEST among them, in one default page", async () => {
    const account = await createAccount();
    const { res, json } = await apiJson<Many>("/shipping_lines", { key: account.key });
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toContain("application/vnd.api+json");
    const scacs = json.data.map((l) => String(l.attributes.scac));
    expect(scacs).toHaveLength(SHIPPING_LINES.length);
    expect(scacs).toEqual([...scacs].sort());
    expect(new Set(scacs).size).toBe(scacs.length);
    expect(json.meta?.total).toBe(SHIPPING_LINES.length);
    expect(json.links?.next).toBeUndefined();
    const test = json.data.find((l) => l.attributes.scac === "TEST");
    expect(test?.type).toBe("shipping_line");
    expect(test?.attributes).toMatchObject({
      name: "Test Carrier",
      supported: true,
      bill_of_lading_tracking_support: true,
    });
    const maersk = json.data.find((l) => l.attributes.scac === "MAEU");
    expect(maersk?.attributes).toMatchObject({ name: "Maersk", supported: false, alternative_scacs: [] });
  });

  it("search matches SCAC, alternative SCACs and names, case-insensitively", async () => {
    const account = await createAccount();
    const byName = (await apiJson<Many>("/shipping_lines?search=mediterranean", { key: account.key })).json;
    expect(byName.data.map((l) => l.attributes.scac)).toEqual(["MSCU"]);
    const byAlternative = (await apiJson<Many>("/shipping_lines?search=MEDU", { key: account.key })).json;
    expect(byAlternative.data.map((l) => l.attributes.scac)).toContain("MSCU");
    const none = (await apiJson<Many>("/shipping_lines?search=zzzzzz-no-line", { key: account.key })).json;
    expect(none.data).toEqual([]);
    expect(none.meta?.total).toBe(0);
  });

  it("paginates when asked", async () => {
    const account = await createAccount();
    const { json } = await apiJson<Many>("/shipping_lines?page[size]=5&page[number]=2", { key: account.key });
    expect(json.data.map((l) => l.attributes.scac)).toEqual(SHIPPING_LINES.slice(5, 10).map((l) => l.scac));
    expect(json.links?.prev).toBe(`${BASE}/shipping_lines?page[number]=1&page[size]=5`);
  });
});

describe("GET /shipping_lines/{scac}", () => {
  it("by SCAC", async () => {
    const account = await createAccount();
    const { res, json } = await apiJson<One>("/shipping_lines/MSCU", { key: account.key });
    expect(res.status).toBe(200);
    expect(json.data.attributes).toMatchObject({
      scac: "MSCU",
      name: "Mediterranean Shipping Company",
      short_name: "MSC",
      alternative_scacs: ["MEDU"],
      supported: false,
    });
    expect(json.links).toEqual({ self: `${BASE}/shipping_lines/MSCU` });
  });

  it("by alternative SCAC (and in lower case) answers the line itself", async () => {
    const account = await createAccount();
    const main = (await apiJson<One>("/shipping_lines/MSCU", { key: account.key })).json;
    for (const key of ["MEDU", "medu", "mscu"]) {
      const { res, json } = await apiJson<One>(`/shipping_lines/${key}`, { key: account.key });
      expect(res.status, key).toBe(200);
      expect(json.data).toEqual(main.data);
      expect(json.links?.self).toBe(`${BASE}/shipping_lines/${key}`);
    }
  });

  it("the sandbox carrier", async () => {
    const account = await createAccount();
    const { json } = await apiJson<One>("/shipping_lines/TEST", { key: account.key });
    expect(json.data.attributes).toMatchObject({ scac: "TEST", supported: true });
  });

  it("unknown → 404", async () => {
    const account = await createAccount();
    for (const key of ["ZZZZ", "XXXX", "not-a-scac"]) {
      const { res, json } = await apiJson<Doc>(`/shipping_lines/${key}`, { key: account.key });
      expect(res.status, key).toBe(404);
      expect(json.errors?.[0]).toMatchObject({ status: "404", title: "Not Found" });
    }
  });
});

describe("GET /ports/{id}", () => {
  it("by UN/LOCODE, with its terminals as linkage; links.self keeps what was asked", async () => {
    const account = await createAccount();
    for (const key of ["USLAX", "uslax"]) {
      const { res, json } = await apiJson<One>(`/ports/${key}`, { key: account.key });
      expect(res.status).toBe(200);
      expect(json.links).toEqual({ self: `${BASE}/ports/${key}` });
      expect(json.data.id).toBe(USLAX_ID);
      expect(json.data.type).toBe("port");
      expect(json.data.attributes).toMatchObject({
        id: USLAX_ID,
        code: "USLAX",
        name: "Los Angeles",
        country_code: "US",
        time_zone: "America/Los_Angeles",
      });
      const terminalIds = toMany(json.data, "terminals").map((t) => t.id);
      expect(terminalIds).toContain(FENIX?.id);
      const expected = TERMINALS.filter((t) => t.portId === USLAX_ID).map((t) => t.id);
      expect([...terminalIds].sort()).toEqual([...expected].sort());
    }
  });

  it("CNSHA and CNNGB, the two busiest, answer with coordinates as decimal strings and their IANA zone", async () => {
    const account = await createAccount();
    for (const [code, name] of [
      ["CNSHA", "Shanghai"],
      ["CNNGB", "Ningbo"],
    ]) {
      const { res, json } = await apiJson<One>(`/ports/${code}`, { key: account.key });
      expect(res.status, code).toBe(200);
      expect(json.data.attributes).toMatchObject({ code, name, country_code: "CN", time_zone: "Asia/Shanghai" });
      expect(json.data.attributes.latitude).toMatch(/^\d+\.\d+$/);
      expect(json.data.attributes.longitude).toMatch(/^\d+\.\d+$/);
      expect(toMany(json.data, "terminals").length).toBeGreaterThan(0);
    }
  });

  it("a retired code (CNSGH) answers Shanghai under its current code; links.self keeps what was asked", async () => {
    const account = await createAccount();
    const current = (await apiJson<One>("/ports/CNSHA", { key: account.key })).json;
    const { res, json } = await apiJson<One>("/ports/cnsgh", { key: account.key });
    expect(res.status).toBe(200);
    expect(json.data).toEqual(current.data);
    expect(json.data.attributes.code).toBe("CNSHA");
    expect(json.links).toEqual({ self: `${BASE}/ports/cnsgh` });
  });

  it("by id answers the same port", async () => {
    const account = await createAccount();
    const byCode = (await apiJson<One>("/ports/USLAX", { key: account.key })).json;
    const { res, json } = await apiJson<One>(`/ports/${USLAX_ID}`, { key: account.key });
    expect(res.status).toBe(200);
    expect(json.data).toEqual(byCode.data);
    expect(json.links?.self).toBe(`${BASE}/ports/${USLAX_ID}`);
  });

  it("include=terminals", async () => {
    const account = await createAccount();
    const { json } = await apiJson<One>("/ports/USLAX?include=terminals", { key: account.key });
    const included = json.included ?? [];
    expect(included.length).toBe(toMany(json.data, "terminals").length);
    expect(included.every((r) => r.type === "terminal")).toBe(true);
    expect(included.find((r) => r.id === FENIX?.id)?.attributes.name).toBe("Fenix Marine Services");
  });

  it("a terminal whose SMDG validity has ended is not listed at its port but still resolves by id", async () => {
    const account = await createAccount();
    expect(FENIX).toBeDefined();
    await env.DB.prepare("UPDATE terminals SET valid_to = '2001-01-31' WHERE id = ?1").bind(FENIX?.id).run();
    try {
      const { json } = await apiJson<One>("/ports/USLAX?include=terminals", { key: account.key });
      const listed = toMany(json.data, "terminals").map((r) => r.id);
      expect(listed.length).toBeGreaterThan(0);
      expect(listed).not.toContain(FENIX?.id);
      expect((json.included ?? []).map((r) => r.id)).not.toContain(FENIX?.id);
      const { res, json: one } = await apiJson<One>(`/terminals/${FENIX?.id}`, { key: account.key });
      expect(res.status).toBe(200);
      expect(one.data.attributes.name).toBe("Fenix Marine Services");
    } finally {
      await env.DB.prepare("UPDATE terminals SET valid_to = NULL WHERE id = ?1").bind(FENIX?.id).run();
    }
  });

  it("unknown → 404", async () => {
    const account = await createAccount();
    for (const key of ["ZZZZZ", "00000000-0000-5000-8000-000000000000", "garbage!", "US"]) {
      const { res, json } = await apiJson<Doc>(`/ports/${encodeURIComponent(key)}`, { key: account.key });
      expect(res.status, key).toBe(404);
      expect(json.errors?.[0]).toMatchObject({ status: "404", title: "Not Found" });
    }
  });
});

describe("GET /terminals/{id}", () => {
  it("answers the terminal with its port linkage", async () => {
    const account = await createAccount();
    expect(FENIX).toBeDefined();
    const { res, json } = await apiJson<One>(`/terminals/${FENIX?.id}`, { key: account.key });
    expect(res.status).toBe(200);
    expect(json.links).toEqual({ self: `${BASE}/terminals/${FENIX?.id}` });
    expect(json.data.type).toBe("terminal");
    expect(json.data.attributes).toMatchObject({
      id: FENIX?.id,
      name: "Fenix Marine Services",
      nickname: "FMS",
      firms_code: "Y257",
    });
    expect(typeof json.data.attributes.provided_data).toBe("object");
    expect(toOne(json.data, "port")).toEqual({ id: USLAX_ID, type: "port" });
  });

  it("a terminal of the SMDG list carries its address, codes, zone and coordinates (APM Pier 400, W185)", async () => {
    const account = await createAccount();
    const apm = TERMINALS.find((t) => t.firmsCode === "W185");
    const { res, json } = await apiJson<One>(`/terminals/${apm?.id}?include=port`, { key: account.key });
    expect(res.status).toBe(200);
    expect(json.data.attributes).toMatchObject({
      firms_code: "W185",
      smdg_code: "APMT",
      nickname: "APMT",
      city: "Los Angeles",
      state_abbr: "CA",
      zip: "90731",
      country: "United States",
      country_code: "US",
      time_zone: "America/Los_Angeles",
      facility_type: "ocean_terminal",
    });
    expect(json.data.attributes.street).toContain("Navy Way");
    expect(json.data.attributes.latitude).toMatch(/^33\.\d+$/);
    expect(json.data.attributes.longitude).toMatch(/^-118\.\d+$/);
    expect(json.included?.map((r) => `${r.type}:${r.id}`)).toEqual([`port:${USLAX_ID}`]);
  });

  it("include=port", async () => {
    const account = await createAccount();
    const { json } = await apiJson<One>(`/terminals/${FENIX?.id}?include=port`, { key: account.key });
    expect(json.included?.map((r) => `${r.type}:${r.id}`)).toEqual([`port:${USLAX_ID}`]);
  });

  it("an unknown UUID or garbage → 404", async () => {
    const account = await createAccount();
    for (const id of ["00000000-0000-5000-8000-000000000000", "garbage", "Y257"]) {
      const { res, json } = await apiJson<Doc>(`/terminals/${id}`, { key: account.key });
      expect(res.status, id).toBe(404);
      expect(json.errors?.[0]).toMatchObject({ status: "404", title: "Not Found" });
    }
  });
});

describe("GET /v2/openapi.json and /docs", () => {
  it("the OpenAPI document needs no key and lists every path", async () => {
    const res = await api("/openapi.json");
    expect(res.status).toBe(200);
    const doc = (await res.json()) as {
      openapi: string;
      paths: Record<string, Record<string, unknown>>;
      servers: { url: string }[];
    };
    expect(doc.openapi).toMatch(/^3\./);
    expect(doc.servers[0]?.url).toBe(BASE);
    for (const path of [
      "/tracking_requests",
      "/tracking_requests/{id}",
      "/shipments",
      "/shipments/{id}",
      "/containers",
      "/containers/{id}",
      "/shipping_lines",
      "/shipping_lines/{scac}",
      "/terminals/{id}",
      "/ports/{id}",
      "/parties",
      "/health",
    ]) {
      expect(doc.paths, path).toHaveProperty([path]);
    }
    expect(Object.keys(doc.paths["/tracking_requests"] ?? {}).sort()).toEqual(["get", "post"]);
    expect(Object.keys(doc.paths["/tracking_requests/{id}"] ?? {}).sort()).toEqual(["get", "patch"]);
  });

  it("/docs answers HTML pointing at the OpenAPI document, without a key", async () => {
    const res = await api("https://api.test/docs");
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toMatch(/^text\/html/);
    const html = await res.text();
    expect(html).toMatch(/<html/i);
    expect(html).toContain("/v2/openapi.json");
  });
});
