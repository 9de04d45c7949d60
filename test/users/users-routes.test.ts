import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { api, apiJson, createAccount } from "../helpers/api";
import { createWebUser, web } from "../helpers/web-session";

type Doc = { data: { id: string; attributes: Record<string, unknown> } };
type ListDoc = { data: { id: string; attributes: Record<string, unknown> }[]; meta: { total: number } };

function roleBody(id: string, role: string) {
  return { data: { type: "user", id, attributes: { role } } };
}

async function roleOf(userId: string): Promise<string | undefined> {
  return (await env.DB.prepare("SELECT role FROM users WHERE id = ?1").bind(userId).first<{ role: string }>())?.role;
}

describe("GET /v2/users", () => {
  it("lists the account's active users, oldest first, with paging", async () => {
    const account = await createAccount();
    const admin = await createWebUser(account.accountId, "admin");
    const viewer = await createWebUser(account.accountId, "viewer");
    const { res, json } = await apiJson<ListDoc>("/users?page[size]=1", { key: account.key });
    expect(res.status).toBe(200);
    expect(json.meta.total).toBe(2);
    expect(json.data).toHaveLength(1);
    expect(json.data[0]?.id).toBe(admin.userId);
    expect(json.data[0]?.attributes).toMatchObject({ email: admin.email, role: "admin", disabled_at: null });
    expect(Object.keys(json.data[0]?.attributes ?? {}).sort()).toEqual(
      ["created_at", "disabled_at", "email", "last_signed_in_at", "name", "role"].sort(),
    );
    const page2 = await apiJson<ListDoc>("/users?page[size]=1&page[number]=2", { key: account.key });
    expect(page2.json.data[0]?.id).toBe(viewer.userId);
  });

  it("needs a key, and never shows another account's users", async () => {
    expect((await api("/users")).status).toBe(401);
    expect((await api("/users", { key: "svc_test_notakeyatall" })).status).toBe(401);
    const a = await createAccount();
    const b = await createAccount();
    await createWebUser(b.accountId, "admin");
    const { json } = await apiJson<ListDoc>("/users", { key: a.key });
    expect(json.data).toEqual([]);
  });

  it("refuses a filter it does not have", async () => {
    const a = await createAccount();
    expect((await api("/users?filter[role]=admin", { key: a.key })).status).toBe(400);
  });
});

describe("GET and PATCH /v2/users/{id}", () => {
  it("changes a role and a name", async () => {
    const account = await createAccount();
    await createWebUser(account.accountId, "admin");
    const member = await createWebUser(account.accountId, "member");
    const { res, json } = await apiJson<Doc>(`/users/${member.userId}`, {
      key: account.key,
      method: "PATCH",
      body: { data: { type: "user", attributes: { role: "viewer", name: "  Dana Dispatch " } } },
    });
    expect(res.status).toBe(200);
    expect(json.data.attributes).toMatchObject({ role: "viewer", name: "Dana Dispatch" });
    const got = await apiJson<Doc>(`/users/${member.userId}`, { key: account.key });
    expect(got.json.data.attributes.role).toBe("viewer");
  });

  it("refuses to demote the last admin (422 last_admin) and changes nothing", async () => {
    const account = await createAccount();
    const admin = await createWebUser(account.accountId, "admin");
    await createWebUser(account.accountId, "member");
    const { res, json } = await apiJson<{ errors: { code: string; source: { pointer: string } }[] }>(
      `/users/${admin.userId}`,
      { key: account.key, method: "PATCH", body: roleBody(admin.userId, "member") },
    );
    expect(res.status).toBe(422);
    expect(json.errors[0]).toMatchObject({ code: "last_admin", source: { pointer: "/data/attributes/role" } });
    expect(await roleOf(admin.userId)).toBe("admin");
  });

  it("lets an admin be demoted while another admin remains", async () => {
    const account = await createAccount();
    const first = await createWebUser(account.accountId, "admin");
    const second = await createWebUser(account.accountId, "admin");
    const res = await api(`/users/${first.userId}`, {
      key: account.key,
      method: "PATCH",
      body: roleBody(first.userId, "viewer"),
    });
    expect(res.status).toBe(200);
    const again = await api(`/users/${second.userId}`, {
      key: account.key,
      method: "PATCH",
      body: roleBody(second.userId, "viewer"),
    });
    expect(again.status).toBe(422);
    expect(await roleOf(second.userId)).toBe("admin");
  });

  it("two admins demoting each other at once: exactly one succeeds, an admin remains", async () => {
    const account = await createAccount();
    const first = await createWebUser(account.accountId, "admin");
    const second = await createWebUser(account.accountId, "admin");
    const results = await Promise.all(
      [first, second].map((u) =>
        api(`/users/${u.userId}`, { key: account.key, method: "PATCH", body: roleBody(u.userId, "member") }),
      ),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 422]);
    expect([await roleOf(first.userId), await roleOf(second.userId)].sort()).toEqual(["admin", "member"]);
  });

  it("answers bad bodies with 422 and changes nothing", async () => {
    const account = await createAccount();
    const member = await createWebUser(account.accountId, "member");
    for (const body of [
      roleBody(member.userId, "owner"),
      { data: { type: "user", attributes: { email: "x@y.test" } } },
      { data: { type: "user", attributes: { name: "a\u0000b" } } },
      { data: { type: "user", id: "another-id", attributes: { role: "viewer" } } },
    ]) {
      const res = await api(`/users/${member.userId}`, { key: account.key, method: "PATCH", body });
      expect(res.status).toBe(422);
    }
    expect(await roleOf(member.userId)).toBe("member");
  });

  it("answers 404 for another account's user, for GET, PATCH and DELETE, and changes nothing", async () => {
    const a = await createAccount();
    const b = await createAccount();
    const theirs = await createWebUser(b.accountId, "member");
    expect((await api(`/users/${theirs.userId}`, { key: a.key })).status).toBe(404);
    const patch = await api(`/users/${theirs.userId}`, {
      key: a.key,
      method: "PATCH",
      body: roleBody(theirs.userId, "admin"),
    });
    expect(patch.status).toBe(404);
    expect((await api(`/users/${theirs.userId}`, { key: a.key, method: "DELETE" })).status).toBe(404);
    expect(await roleOf(theirs.userId)).toBe("member");
    expect((await web("/app", { user: theirs })).headers.get("location")).toBe("/app/containers");
  });
});

describe("DELETE /v2/users/{id}", () => {
  it("removes a user: disabled, every session ended, gone from the list", async () => {
    const account = await createAccount();
    await createWebUser(account.accountId, "admin");
    const member = await createWebUser(account.accountId, "member");
    expect((await web("/app", { user: member })).headers.get("location")).toBe("/app/containers");
    const res = await api(`/users/${member.userId}`, { key: account.key, method: "DELETE" });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe("");
    const session = await env.DB.prepare("SELECT revoked_at FROM web_sessions WHERE id = ?1")
      .bind(member.sessionId)
      .first<{ revoked_at: string | null }>();
    expect(session?.revoked_at).not.toBeNull();
    expect((await web("/app", { user: member })).headers.get("location")).toMatch(/^\/sign-in/);
    const got = await apiJson<Doc>(`/users/${member.userId}`, { key: account.key });
    expect(got.json.data.attributes.disabled_at).toEqual(expect.any(String));
    const list = await apiJson<ListDoc>("/users", { key: account.key });
    expect(list.json.data.map((u) => u.id)).not.toContain(member.userId);
    // Removing again changes nothing; changing a removed user is refused.
    expect((await api(`/users/${member.userId}`, { key: account.key, method: "DELETE" })).status).toBe(200);
    const patch = await apiJson<{ errors: { code: string }[] }>(`/users/${member.userId}`, {
      key: account.key,
      method: "PATCH",
      body: roleBody(member.userId, "admin"),
    });
    expect(patch.res.status).toBe(422);
    expect(patch.json.errors[0]?.code).toBe("removed");
  });

  it("refuses to remove the last admin (422) and keeps their session", async () => {
    const account = await createAccount();
    const admin = await createWebUser(account.accountId, "admin");
    const res = await apiJson<{ errors: { code: string }[] }>(`/users/${admin.userId}`, {
      key: account.key,
      method: "DELETE",
    });
    expect(res.res.status).toBe(422);
    expect(res.json.errors[0]?.code).toBe("last_admin");
    expect((await web("/app", { user: admin })).headers.get("location")).toBe("/app/containers");
  });

  it("answers 404 for an unknown id", async () => {
    const account = await createAccount();
    expect((await api("/users/0190f5c2-7f1e-7c3a-9a8e-3b2d1c4e5f60", { key: account.key })).status).toBe(404);
    expect((await api(`/users/${"x".repeat(65)}`, { key: account.key, method: "DELETE" })).status).toBe(404);
  });
});
