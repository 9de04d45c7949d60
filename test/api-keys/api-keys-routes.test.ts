import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { keyEnvironmentOf } from "../../src/api-keys/service";
import { API_KEY_PATTERN, sha256Hex } from "../../src/lib/crypto";
import { api, apiJson, createAccount } from "../helpers/api";

type Doc = { data: { id: string; attributes: Record<string, unknown> } };
type ListDoc = { data: Doc["data"][]; meta: { total: number } };

function keyBody(name: unknown) {
  return { data: { type: "api_key", attributes: { name } } };
}

describe("POST /v2/api_keys", () => {
  it("answers the new key once; it works, and only its hash and prefix are stored", async () => {
    const account = await createAccount();
    const { res, json } = await apiJson<Doc>("/api_keys", { key: account.key, body: keyBody("ops desk sync") });
    expect(res.status).toBe(201);
    const key = String(json.data.attributes.key);
    expect(key).toMatch(API_KEY_PATTERN);
    expect(key.startsWith("svc_live_")).toBe(true);
    expect(json.data.attributes).toMatchObject({ name: "ops desk sync", prefix: key.slice(0, 13), revoked_at: null });
    const row = await env.DB.prepare("SELECT key_hash, prefix, account_id FROM api_keys WHERE id = ?1")
      .bind(json.data.id)
      .first<{ key_hash: string; prefix: string; account_id: string }>();
    expect(row).toEqual({ key_hash: await sha256Hex(key), prefix: key.slice(0, 13), account_id: account.accountId });
    expect((await api("/users", { key })).status).toBe(200);
    const got = await apiJson<Doc>(`/api_keys/${json.data.id}`, { key: account.key });
    expect(got.json.data.attributes).not.toHaveProperty("key");
    expect(JSON.stringify(got.json)).not.toContain(key);
  });

  it("makes svc_test_ keys when the Worker runs locally", () => {
    expect(keyEnvironmentOf("http://127.0.0.1:8787/v2/api_keys")).toBe("test");
    expect(keyEnvironmentOf("http://localhost:8787/app/settings/api-keys")).toBe("test");
    expect(keyEnvironmentOf("http://[::1]:8787/v2/api_keys")).toBe("test");
    expect(keyEnvironmentOf("https://tracking.example.com/v2/api_keys")).toBe("live");
  });

  it("refuses a blank, long or control-character name, or a wrong type, creating nothing", async () => {
    const account = await createAccount();
    for (const body of [
      keyBody("   "),
      keyBody("x".repeat(101)),
      keyBody("a\nb"),
      keyBody(null),
      { data: { type: "user", attributes: { name: "x" } } },
      { data: { type: "api_key", attributes: { name: "x", key: "svc_test_chosen" } } },
    ]) {
      expect((await api("/api_keys", { key: account.key, body })).status).toBe(422);
    }
    const { json } = await apiJson<ListDoc>("/api_keys", { key: account.key });
    expect(json.meta.total).toBe(1);
    expect((await api("/api_keys", { body: keyBody("x") })).status).toBe(401);
  });
});

describe("GET /v2/api_keys", () => {
  it("lists the account's keys, newest first, never a key or hash, nor another account's", async () => {
    const account = await createAccount();
    const other = await createAccount();
    await api("/api_keys", { key: account.key, body: keyBody("second") });
    const { res, json } = await apiJson<ListDoc>("/api_keys", { key: account.key });
    expect(res.status).toBe(200);
    expect(json.data.map((k) => k.attributes.name)).toEqual(["second", "test"]);
    for (const item of json.data) {
      expect(Object.keys(item.attributes).sort()).toEqual(
        ["created_at", "last_used_at", "name", "prefix", "revoked_at"].sort(),
      );
    }
    expect(JSON.stringify(json)).not.toContain(account.key);
    expect(json.data.map((k) => k.id)).not.toContain(other.apiKeyId);
    expect((await api(`/api_keys/${other.apiKeyId}`, { key: account.key })).status).toBe(404);
  });
});

describe("DELETE /v2/api_keys/{id}", () => {
  it("revokes a key: it stops working at once, even the key that revoked itself", async () => {
    const account = await createAccount();
    const created = await apiJson<Doc>("/api_keys", { key: account.key, body: keyBody("temp") });
    const temp = String(created.json.data.attributes.key);
    expect((await api(`/api_keys/${created.json.data.id}`, { key: account.key, method: "DELETE" })).status).toBe(200);
    expect((await api("/users", { key: temp })).status).toBe(401);
    const got = await apiJson<Doc>(`/api_keys/${created.json.data.id}`, { key: account.key });
    expect(got.json.data.attributes.revoked_at).toEqual(expect.any(String));
    // Revoking again changes nothing.
    expect((await api(`/api_keys/${created.json.data.id}`, { key: account.key, method: "DELETE" })).status).toBe(200);
    const self = await api(`/api_keys/${account.apiKeyId}`, { key: account.key, method: "DELETE" });
    expect(self.status).toBe(200);
    expect((await api("/users", { key: account.key })).status).toBe(401);
  });

  it("answers 404 for another account's key and leaves it working", async () => {
    const account = await createAccount();
    const other = await createAccount();
    expect((await api(`/api_keys/${other.apiKeyId}`, { key: account.key, method: "DELETE" })).status).toBe(404);
    expect((await api("/users", { key: other.key })).status).toBe(200);
  });
});
