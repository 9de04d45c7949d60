import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { API_KEY_PATTERN } from "../../src/lib/crypto";
import { api, createAccount } from "../helpers/api";
import { createWebUser, type TestWebUser, web } from "../helpers/web-session";

const PAGE = "/app/settings/api-keys";

async function csrfOf(user: TestWebUser): Promise<string> {
  const row = await env.DB.prepare("SELECT csrf_token FROM web_sessions WHERE id = ?1")
    .bind(user.sessionId)
    .first<{ csrf_token: string }>();
  if (!row) throw new Error("no session");
  return row.csrf_token;
}

async function keyCount(accountId: string): Promise<number> {
  const row = await env.DB.prepare("SELECT COUNT(*) AS n FROM api_keys WHERE account_id = ?1")
    .bind(accountId)
    .first<{ n: number }>();
  return row?.n ?? 0;
}

describe("/app/settings/api-keys", () => {
  it("shows an admin the keys (prefix, never the key) with revoke buttons and the create form", async () => {
    const account = await createAccount();
    const admin = await createWebUser(account.accountId, "admin");
    const res = await web(PAGE, { user: admin });
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain("<caption>The account&#39;s API keys</caption>");
    expect(html).toContain(account.key.slice(0, 13));
    expect(html).not.toContain(account.key);
    expect(html).toContain(`action="${PAGE}/${account.apiKeyId}/revoke"`);
    expect(html).toContain('<label for="key-name">Key name</label>');
    expect(html).toContain('<script type="module" src="/app/assets/copy-field.js"></script>');
  });

  it("creates a key and shows it once in a read-only field; it works over the API", async () => {
    const account = await createAccount();
    const admin = await createWebUser(account.accountId, "admin");
    const res = await web(PAGE, { user: admin, form: { _csrf: await csrfOf(admin), name: "TMS sync" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const html = await res.text();
    const key = /id="new-key" type="text" readonly="" value="([^"]+)"/.exec(html)?.[1] ?? "";
    expect(key).toMatch(API_KEY_PATTERN);
    expect(html).toContain("It is shown only once");
    expect((await api("/users", { key })).status).toBe(200);
    const again = await (await web(PAGE, { user: admin })).text();
    expect(again).toContain("TMS sync");
    expect(again).not.toContain(key);
  });

  it("re-renders the form with the error for a blank or long name, creating nothing", async () => {
    const account = await createAccount();
    const admin = await createWebUser(account.accountId, "admin");
    const _csrf = await csrfOf(admin);
    for (const name of ["  ", "x".repeat(101), "a\nb"]) {
      const res = await web(PAGE, { user: admin, form: { _csrf, name } });
      expect(res.status).toBe(422);
      expect(await res.text()).toContain('aria-describedby="key-name-error"');
    }
    expect(await keyCount(account.accountId)).toBe(1);
  });

  it("revokes a key: 303 with a notice, and the key stops working", async () => {
    const account = await createAccount();
    const admin = await createWebUser(account.accountId, "admin");
    const res = await web(`${PAGE}/${account.apiKeyId}/revoke`, { user: admin, form: { _csrf: await csrfOf(admin) } });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe(`${PAGE}?notice=revoked`);
    expect((await api("/users", { key: account.key })).status).toBe(401);
    const html = await (await web(`${PAGE}?notice=revoked`, { user: admin })).text();
    expect(html).toContain('<p role="status">Key revoked');
    expect(html).not.toContain(`action="${PAGE}/${account.apiKeyId}/revoke"`);
  });

  it("is for admins only: members and viewers get a 403 page, and their POSTs change nothing", async () => {
    const account = await createAccount();
    for (const role of ["member", "viewer"] as const) {
      const user = await createWebUser(account.accountId, role);
      const res = await web(PAGE, { user });
      expect(res.status).toBe(403);
      expect(res.headers.get("content-type")).toMatch(/text\/html/);
      const _csrf = await csrfOf(user);
      expect((await web(PAGE, { user, form: { _csrf, name: "sneaky" } })).status).toBe(403);
      expect((await web(`${PAGE}/${account.apiKeyId}/revoke`, { user, form: { _csrf } })).status).toBe(403);
    }
    expect(await keyCount(account.accountId)).toBe(1);
    expect((await api("/users", { key: account.key })).status).toBe(200);
  });

  it("refuses a POST without the CSRF token, without a session, and another account's key id (404)", async () => {
    const account = await createAccount();
    const admin = await createWebUser(account.accountId, "admin");
    const other = await createAccount();
    expect((await web(PAGE, { user: admin, form: { name: "no token" } })).status).toBe(403);
    expect((await web(PAGE, { form: { name: "no session" } })).status).toBe(401);
    expect((await web(PAGE)).status).toBe(303);
    const theirs = await web(`${PAGE}/${other.apiKeyId}/revoke`, { user: admin, form: { _csrf: await csrfOf(admin) } });
    expect(theirs.status).toBe(404);
    expect((await api("/users", { key: other.key })).status).toBe(200);
    expect(await keyCount(account.accountId)).toBe(1);
  });

  it("renders a key name with markup inert", async () => {
    const account = await createAccount();
    const admin = await createWebUser(account.accountId, "admin");
    const res = await web(PAGE, {
      user: admin,
      form: { _csrf: await csrfOf(admin), name: '<script>alert(1)</script>"><img src=x onerror=alert(1)>' },
    });
    const html = await res.text();
    expect(html).not.toContain("<script>alert(1)");
    expect(html).not.toContain("<img src=x");
    expect(html).toContain("&lt;script&gt;alert(1)&lt;/script&gt;&quot;&gt;&lt;img src=x onerror=alert(1)&gt;");
  });
});
