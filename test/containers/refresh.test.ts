import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { newId } from "../../src/lib/ids";
import { BUCKET_MESSAGES } from "../../src/ratelimit/buckets";
import { api, apiJson, createAccount, type TestAccount } from "../helpers/api";
import { type Doc, type One, trackSandboxShipment } from "../helpers/tracking";

// PATCH /containers/{id}/refresh (docs/api.md §Container endpoints, docs/decisions.md §Containers): asks the box's
// Tracker for a poll now and answers plain JSON naming the sources queued; own bucket of 10 per minute. The sandbox
// boxes are shared by every account of this file (one Tracker per box), so assertions are about each account's own
// rows.

async function tracked() {
  const account = await createAccount();
  const sandbox = await trackSandboxShipment(account);
  return { account, ...sandbox, containerId: sandbox.containerIds[0] ?? "" };
}

async function refresh(account: TestAccount | null, containerId: string, init: { body?: unknown } = {}) {
  return apiJson<Doc & { message?: string }>(`/containers/${containerId}/refresh`, {
    method: "PATCH",
    key: account?.key ?? null,
    body: init.body,
  });
}

/** A shipment and container written directly whose box no Tracker follows (never looked up). */
async function insertUntrackedContainer(accountId: string): Promise<string> {
  const shipmentId = newId();
  const containerId = newId();
  const now = "2025-01-01T00:00:00Z";
  await env.DB.batch([
    env.DB.prepare(
      `INSERT INTO shipments (id, account_id, bill_of_lading_number, normalized_number, shipping_line_scac, created_at, updated_at)
       VALUES (?1, ?2, 'UNTRACKED-BL', 'UNTRACKED-BL', 'TEST', ?3, ?3)`,
    ).bind(shipmentId, accountId, now),
    env.DB.prepare(
      `INSERT INTO containers (id, account_id, shipment_id, number, scac, created_at, updated_at)
       VALUES (?1, ?2, ?3, 'TSTU9999995', 'TEST', ?4, ?4)`,
    ).bind(containerId, accountId, shipmentId, now),
  ]);
  return containerId;
}

describe("PATCH /containers/{id}/refresh", () => {
  it("queues a poll of the shipping line and the terminal and says so in plain JSON", async () => {
    const { account, containerId } = await tracked();
    const { res, json } = await refresh(account, containerId);
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toMatch(/^application\/json/);
    expect(res.headers.get("X-Request-Id")).toBeTruthy();
    expect(json).toEqual({ message: "Started refresh for Shipping line, Terminal" });
  });

  it("a body (the SDK sends none; some clients send {}) is not needed and does no harm", async () => {
    const { account, containerId } = await tracked();
    const { res, json } = await refresh(account, containerId, { body: {} });
    expect(res.status).toBe(200);
    expect(json.message).toBe("Started refresh for Shipping line, Terminal");
  });

  it("the 11th refresh within a minute is a 429 from the refresh bucket; other endpoints still answer", async () => {
    const { account, containerId } = await tracked();
    for (let i = 0; i < 10; i++) {
      const { res } = await refresh(account, containerId);
      expect(res.status, `refresh ${i + 1}`).toBe(200);
    }
    const { res, json } = await refresh(account, containerId);
    expect(res.status).toBe(429);
    expect(Number(res.headers.get("Retry-After"))).toBeGreaterThanOrEqual(1);
    expect(json).toEqual({
      errors: [{ status: "429", title: "Too Many Requests", detail: BUCKET_MESSAGES.refresh_container }],
    });
    // The default bucket is another window.
    expect((await apiJson(`/containers/${containerId}`, { key: account.key })).res.status).toBe(200);
  });
});

describe("PATCH /containers/{id}/refresh: errors", () => {
  it("a stopped shipment's container is a 422 tracking_stopped; after resuming it refreshes again", async () => {
    const { account, containerId, shipment } = await tracked();
    const stop = await apiJson<One>(`/shipments/${shipment.id}/stop_tracking`, { method: "PATCH", key: account.key });
    expect(stop.res.status).toBe(200);
    const { res, json } = await refresh(account, containerId);
    expect(res.status).toBe(422);
    expect(res.headers.get("Content-Type")).toContain("application/vnd.api+json");
    expect(json.errors).toHaveLength(1);
    expect(json.errors?.[0]).toMatchObject({ status: "422", title: "Unprocessable Entity", code: "tracking_stopped" });
    expect(json.errors?.[0]?.detail).toMatch(/stopped/);
    const resume = await apiJson<One>(`/shipments/${shipment.id}/resume_tracking`, {
      method: "PATCH",
      key: account.key,
    });
    expect(resume.res.status).toBe(200);
    expect((await refresh(account, containerId)).res.status).toBe(200);
  });

  it("a container whose box no Tracker follows is a 422 tracking_stopped", async () => {
    const account = await createAccount();
    const containerId = await insertUntrackedContainer(account.accountId);
    const { res, json } = await refresh(account, containerId);
    expect(res.status).toBe(422);
    expect(json.errors?.[0]?.code).toBe("tracking_stopped");
  });

  it("an unknown container is a 404", async () => {
    const account = await createAccount();
    const { res, json } = await refresh(account, crypto.randomUUID());
    expect(res.status).toBe(404);
    expect(json.errors?.[0]).toMatchObject({ status: "404", title: "Not Found" });
  });

  it("a body that is not JSON is refused (415)", async () => {
    const { account, containerId } = await tracked();
    const res = await api(`/containers/${containerId}/refresh`, {
      method: "PATCH",
      key: account.key,
      body: "refresh please",
      headers: { "Content-Type": "text/plain" },
    });
    expect(res.status).toBe(415);
  });
});

describe("PATCH /containers/{id}/refresh: security", () => {
  it("no key → 401", async () => {
    const { containerId } = await tracked();
    const { res } = await refresh(null, containerId);
    expect(res.status).toBe(401);
  });

  it("another account's container → 404, and the owner's bucket and shipment are untouched", async () => {
    const a = await tracked();
    const b = await createAccount();
    for (let i = 0; i < 3; i++) {
      const { res, json } = await refresh(b, a.containerId);
      expect(res.status).toBe(404);
      expect(JSON.stringify(json)).not.toContain("Started");
    }
    // A's refresh bucket is still full: all ten go through.
    for (let i = 0; i < 10; i++) expect((await refresh(a.account, a.containerId)).res.status).toBe(200);
    const { json } = await apiJson<One>(`/shipments/${a.shipment.id}`, { key: a.account.key });
    expect(json.data.attributes.line_tracking_stopped_at).toBeNull();
  });
});

describe("OpenAPI", () => {
  it("documents the refresh with its id parameter, plain JSON answer and errors", async () => {
    const doc = (await (await api("/openapi.json")).json()) as {
      paths: Record<
        string,
        Record<string, { parameters?: { name: string }[]; responses: Record<string, { content?: object }> }>
      >;
    };
    const op = doc.paths["/containers/{id}/refresh"]?.patch;
    expect(op?.parameters?.map((p) => p.name)).toEqual(["id"]);
    expect(Object.keys(op?.responses ?? {}).sort()).toEqual(["200", "400", "401", "404", "422", "429"]);
    expect(Object.keys(op?.responses["200"]?.content ?? {})).toEqual(["application/json"]);
  });
});
