import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { api, apiJson, createAccount, type TestAccount } from "../helpers/api";
import { type Doc, type One, trackSandboxShipment } from "../helpers/tracking";

// PATCH /containers/{id} (docs/api.md §Container endpoints): replaces the container's `ref_numbers` with the shipment
// edit's rules (≤ 50 items of ≤ 255 characters, free text); strict body; answers the container as GET does.

async function tracked() {
  const account = await createAccount();
  const sandbox = await trackSandboxShipment(account);
  const containerId = sandbox.containerIds[0] ?? "";
  return { account, containerId, ...sandbox };
}

function patch(account: TestAccount | null, id: string, body: unknown, headers?: Record<string, string>) {
  return apiJson<One & Doc>(`/containers/${id}`, { method: "PATCH", key: account?.key ?? null, body, headers });
}

function body(attributes: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return { data: { type: "container", ...extra, attributes } };
}

async function stored(id: string) {
  return env.DB.prepare("SELECT ref_numbers, updated_at FROM containers WHERE id = ?1")
    .bind(id)
    .first<{ ref_numbers: string; updated_at: string }>();
}

describe("PATCH /containers/{id}", () => {
  it("replaces ref_numbers, bumps updated_at and answers the container document GET answers", async () => {
    const { account, containerId } = await tracked();
    await env.DB.prepare("UPDATE containers SET ref_numbers = '[\"OLD\"]', updated_at = ?2 WHERE id = ?1")
      .bind(containerId, "2020-01-01T00:00:00Z")
      .run();
    const { res, json } = await patch(account, containerId, body({ ref_numbers: ["PO-1", "PO-2"] }));
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toContain("application/vnd.api+json");
    expect(json.data).toMatchObject({ id: containerId, type: "container" });
    expect(json.data.attributes.ref_numbers).toEqual(["PO-1", "PO-2"]);
    const get = await apiJson<One>(`/containers/${containerId}`, { key: account.key });
    expect(json.data).toEqual(get.json.data);
    const row = await stored(containerId);
    expect(JSON.parse(row?.ref_numbers ?? "null")).toEqual(["PO-1", "PO-2"]);
    expect(row?.updated_at).not.toBe("2020-01-01T00:00:00Z");
  });

  it("an empty list clears; no ref_numbers changes nothing; data.id equal to the path and no type are accepted", async () => {
    const { account, containerId } = await tracked();
    await patch(account, containerId, body({ ref_numbers: ["A"] }));
    const nothing = await patch(account, containerId, { data: { id: containerId, attributes: {} } });
    expect(nothing.res.status).toBe(200);
    expect(nothing.json.data.attributes.ref_numbers).toEqual(["A"]);
    const cleared = await patch(account, containerId, body({ ref_numbers: [] }));
    expect(cleared.res.status).toBe(200);
    expect(cleared.json.data.attributes.ref_numbers).toEqual([]);
  });

  it("accepts application/vnd.api+json and the limits themselves (50 items of 255 characters)", async () => {
    const { account, containerId } = await tracked();
    const refs = Array.from({ length: 50 }, (_, i) => `${i}`.padEnd(255, "x"));
    const { res, json } = await patch(account, containerId, body({ ref_numbers: refs }), {
      "Content-Type": "application/vnd.api+json",
    });
    expect(res.status).toBe(200);
    expect(json.data.attributes.ref_numbers).toEqual(refs);
  });

  it("writes no webhook notification, as the shipment edit writes none", async () => {
    const { account, containerId } = await tracked();
    const hook = await api("/webhooks", {
      key: account.key,
      body: {
        data: {
          type: "webhook",
          attributes: { url: "https://hooks.example.com/edits", events: ["container.updated"] },
        },
      },
    });
    expect(hook.status).toBe(201);
    const count = () =>
      env.DB.prepare("SELECT COUNT(*) AS n FROM webhook_notifications WHERE account_id = ?1")
        .bind(account.accountId)
        .first<{ n: number }>();
    const before = (await count())?.n;
    expect((await patch(account, containerId, body({ ref_numbers: ["PO-9"] }))).res.status).toBe(200);
    expect((await count())?.n).toBe(before);
  });
});

describe("PATCH /containers/{id}: errors change nothing", () => {
  it("too many items, too long, not strings, not a list, an unknown attribute: 422 with the pointer", async () => {
    const { account, containerId } = await tracked();
    const cases: [Record<string, unknown>, string, string?][] = [
      [{ ref_numbers: Array.from({ length: 51 }, (_, i) => `R${i}`) }, "/data/attributes/ref_numbers"],
      [{ ref_numbers: ["y".repeat(256)] }, "/data/attributes/ref_numbers/0"],
      [{ ref_numbers: ["ok", 1] }, "/data/attributes/ref_numbers/1"],
      [{ ref_numbers: "PO-1" }, "/data/attributes/ref_numbers"],
      [{ ref_numbers: ["a\u0000b"] }, "/data/attributes/ref_numbers/0", "control_character"],
      [{ ref_numbers: ["x\uD800y"] }, "/data/attributes/ref_numbers/0", "unpaired_surrogate"],
      [{ seal_number: "S1" }, "/data/attributes/seal_number", "unknown_attribute"],
    ];
    for (const [attributes, pointer, code] of cases) {
      const { res, json } = await patch(account, containerId, body(attributes));
      expect(res.status, pointer).toBe(422);
      expect(json.errors?.[0]?.source, pointer).toEqual({ pointer });
      if (code) expect(json.errors?.[0]?.code, pointer).toBe(code);
    }
    expect(JSON.parse((await stored(containerId))?.ref_numbers ?? "null")).toEqual([]);
  });

  it("a wrong type, another id, a missing data member or no body is a 422; malformed JSON 400", async () => {
    const { account, containerId } = await tracked();
    const wrongType = await patch(account, containerId, { data: { type: "shipment", attributes: {} } });
    expect(wrongType.res.status).toBe(422);
    expect(wrongType.json.errors?.[0]?.source).toEqual({ pointer: "/data/type" });
    const otherId = await patch(account, containerId, body({ ref_numbers: ["X"] }, { id: crypto.randomUUID() }));
    expect(otherId.res.status).toBe(422);
    expect(otherId.json.errors?.[0]).toMatchObject({ source: { pointer: "/data/id" }, code: "invalid" });
    const noData = await patch(account, containerId, { attributes: { ref_numbers: [] } });
    expect(noData.res.status).toBe(422);
    const noBody = await apiJson<Doc>(`/containers/${containerId}`, { method: "PATCH", key: account.key });
    expect(noBody.res.status).toBe(422);
    const malformed = await patch(account, containerId, "{not json");
    expect(malformed.res.status).toBe(400);
    expect(JSON.parse((await stored(containerId))?.ref_numbers ?? "null")).toEqual([]);
  });

  it("an unknown container is a 404; PATCH /containers without an id is a JSON:API 405 with Allow", async () => {
    const account = await createAccount();
    const { res, json } = await patch(account, crypto.randomUUID(), body({ ref_numbers: ["x"] }));
    expect(res.status).toBe(404);
    expect(json.errors?.[0]).toMatchObject({ status: "404", title: "Not Found" });
    const bare = await apiJson<Doc>("/containers", { method: "PATCH", key: account.key, body: body({}) });
    // The reference's literal `PATCH /containers` names no container (docs/api.md §Container endpoints): the path
    // exists for GET, so this is the project's 405 with `Allow`, not an edit of anything.
    expect(bare.res.status).toBe(405);
    expect(bare.res.headers.get("Content-Type")).toContain("application/vnd.api+json");
    expect(bare.res.headers.get("Allow")?.split(", ")).toContain("GET");
    expect(bare.res.headers.get("Allow")?.split(", ")).not.toContain("PATCH");
    expect(bare.json.errors?.[0]?.status).toBe("405");
  });
});

describe("PATCH /containers/{id}: tenant isolation", () => {
  it("no key → 401; another account's container → 404 and nothing changes", async () => {
    const a = await tracked();
    expect((await patch(null, a.containerId, body({ ref_numbers: ["x"] }))).res.status).toBe(401);
    const b = await createAccount("Other");
    const { res, json } = await patch(b, a.containerId, body({ ref_numbers: ["B-REF"] }, { id: a.containerId }));
    expect(res.status).toBe(404);
    expect(json.errors?.[0]).toMatchObject({ status: "404", detail: "Couldn't find Container" });
    expect(JSON.parse((await stored(a.containerId))?.ref_numbers ?? "null")).toEqual([]);
  });
});

describe("OpenAPI", () => {
  it("documents PATCH /containers/{id} with its body and errors", async () => {
    const doc = (await (await api("/openapi.json")).json()) as {
      paths: Record<string, Record<string, { requestBody?: { required?: boolean }; responses: object }>>;
    };
    const op = doc.paths["/containers/{id}"]?.patch;
    expect(op?.requestBody?.required).toBe(true);
    expect(Object.keys(op?.responses ?? {}).sort()).toEqual(["200", "400", "401", "404", "413", "415", "422", "429"]);
  });
});
