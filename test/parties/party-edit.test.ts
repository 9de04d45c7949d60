import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { api, apiJson, createAccount, type TestAccount } from "../helpers/api";
import type { Doc, One } from "../helpers/tracking";

// PATCH /parties/{id} (docs/api.md §Party endpoints): renames a party with POST /parties' rules: blank → 422 at
// /data/attributes/company_name "Company name can't be blank"; a name another party of the account has (any case) →
// 422 at /data/attributes/customer "'<name>' already exists in Account", as the reference words both.

async function party(account: TestAccount, name: string): Promise<string> {
  const { res, json } = await apiJson<One>("/parties", {
    key: account.key,
    body: { data: { type: "party", attributes: { company_name: name } } },
  });
  expect(res.status).toBe(201);
  return json.data.id;
}

function patch(account: TestAccount | null, id: string, body: unknown) {
  return apiJson<One & Doc>(`/parties/${id}`, { method: "PATCH", key: account?.key ?? null, body });
}

const rename = (company_name: unknown, type: string | undefined = "party") => ({
  data: { ...(type ? { type } : {}), attributes: { company_name } },
});

async function nameOf(id: string) {
  const row = await env.DB.prepare("SELECT company_name FROM parties WHERE id = ?1").bind(id).first<{
    company_name: string;
  }>();
  return row?.company_name;
}

describe("PATCH /parties/{id}", () => {
  it("renames the party (trimmed) and answers {data, links.self} as GET does", async () => {
    const account = await createAccount();
    const id = await party(account, "Acme Imports");
    const { res, json } = await patch(account, id, rename("  Acme Imports West  "));
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toContain("application/vnd.api+json");
    expect(json.data).toMatchObject({ id, type: "party", attributes: { company_name: "Acme Imports West" } });
    expect(json.links?.self).toBe(`https://api.test/v2/parties/${id}`);
    const get = await apiJson<One>(`/parties/${id}`, { key: account.key });
    expect(get.json.data).toEqual(json.data);
    expect(await nameOf(id)).toBe("Acme Imports West");
  });

  it("accepts a body without type, and the party's own name in another case", async () => {
    const account = await createAccount();
    const id = await party(account, "Blue Harbor");
    const noType = await patch(account, id, rename("Blue Harbor Ltd", undefined));
    expect(noType.res.status).toBe(200);
    const ownName = await patch(account, id, rename("BLUE HARBOR LTD"));
    expect(ownName.res.status).toBe(200);
    expect(await nameOf(id)).toBe("BLUE HARBOR LTD");
  });
});

describe("PATCH /parties/{id}: errors change nothing", () => {
  it("a blank name is the reference's 422 at company_name", async () => {
    const account = await createAccount();
    const id = await party(account, "Keep Me");
    for (const name of ["", "   "]) {
      const { res, json } = await patch(account, id, rename(name));
      expect(res.status).toBe(422);
      expect(json.errors).toEqual([
        expect.objectContaining({
          status: "422",
          title: "Unprocessable Entity",
          source: { pointer: "/data/attributes/company_name" },
          detail: "Company name can't be blank",
        }),
      ]);
    }
    expect(await nameOf(id)).toBe("Keep Me");
  });

  it("another party's name (any case) is the reference's 422 at /data/attributes/customer; POST says the same", async () => {
    const account = await createAccount();
    await party(account, "Taken Co");
    const id = await party(account, "Mine Co");
    const { res, json } = await patch(account, id, rename("taken co"));
    expect(res.status).toBe(422);
    expect(json.errors).toEqual([
      expect.objectContaining({
        status: "422",
        source: { pointer: "/data/attributes/customer" },
        detail: "'taken co' already exists in Account",
      }),
    ]);
    expect(await nameOf(id)).toBe("Mine Co");
    const post = await apiJson<Doc>("/parties", {
      key: account.key,
      body: { data: { type: "party", attributes: { company_name: "TAKEN CO" } } },
    });
    expect(post.res.status).toBe(422);
    expect(post.json.errors?.[0]).toMatchObject({
      source: { pointer: "/data/attributes/customer" },
      detail: "'TAKEN CO' already exists in Account",
    });
  });

  it("a wrong type, unknown attributes, a non-string, too long, control characters, unpaired surrogates: 422", async () => {
    const account = await createAccount();
    const id = await party(account, "Strict Ltd");
    const cases: [unknown, string, string?][] = [
      [{ data: { type: "shipment", attributes: { company_name: "X" } } }, "/data/type"],
      [{ data: { type: "party", attributes: { company_name: "X", role: "shipper" } } }, "/data/attributes/role"],
      [rename(42), "/data/attributes/company_name"],
      [rename("n".repeat(256)), "/data/attributes/company_name"],
      [rename("a\nb"), "/data/attributes/company_name", "control_character"],
      [rename("x\uD800y"), "/data/attributes/company_name", "unpaired_surrogate"],
      [{ data: { type: "party" } }, "/data/attributes", "blank"],
    ];
    for (const [body, pointer, code] of cases) {
      const { res, json } = await patch(account, id, body);
      expect(res.status, pointer).toBe(422);
      expect(json.errors?.[0]?.source, pointer).toEqual({ pointer });
      if (code) expect(json.errors?.[0]?.code, pointer).toBe(code);
    }
    expect(await nameOf(id)).toBe("Strict Ltd");
  });

  it("an unknown party is a 404", async () => {
    const account = await createAccount();
    const { res, json } = await patch(account, crypto.randomUUID(), rename("Nobody"));
    expect(res.status).toBe(404);
    expect(json.errors?.[0]).toMatchObject({ status: "404", detail: "Couldn't find Party" });
  });
});

describe("PATCH /parties/{id}: tenant isolation", () => {
  it("no key → 401; another account's party → 404 and nothing changes; names are unique per account only", async () => {
    const a = await createAccount();
    const b = await createAccount("Other");
    const aParty = await party(a, "Shared Name");
    expect((await patch(null, aParty, rename("x"))).res.status).toBe(401);
    const foreign = await patch(b, aParty, rename("Stolen"));
    expect(foreign.res.status).toBe(404);
    expect(foreign.json.errors?.[0]).toMatchObject({ status: "404", detail: "Couldn't find Party" });
    expect(await nameOf(aParty)).toBe("Shared Name");
    // Account B may use the name account A has: uniqueness is per account.
    const bParty = await party(b, "B Name");
    const same = await patch(b, bParty, rename("Shared Name"));
    expect(same.res.status).toBe(200);
  });
});

describe("OpenAPI", () => {
  it("documents PATCH /parties/{id} with its body and errors", async () => {
    const doc = (await (await api("/openapi.json")).json()) as {
      paths: Record<string, Record<string, { requestBody?: { required?: boolean }; responses: object }>>;
    };
    const op = doc.paths["/parties/{id}"]?.patch;
    expect(op?.requestBody?.required).toBe(true);
    expect(Object.keys(op?.responses ?? {}).sort()).toEqual(["200", "400", "401", "404", "413", "415", "422", "429"]);
  });
});
