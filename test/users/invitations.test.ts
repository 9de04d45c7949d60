import { env } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { setInvitationTransport } from "../../src/users/invitation-mail";
import { localTransport, received } from "../helpers/alert-receivers";
import { api, apiJson, createAccount } from "../helpers/api";
import { createWebUser, WEB_ORIGIN, web } from "../helpers/web-session";

type Doc = { data: { id: string; attributes: Record<string, unknown> } };
type ErrorDoc = { errors: { code?: string; detail: string; source?: { pointer?: string } }[] };

afterEach(() => setInvitationTransport(null));

function inviteBody(email: string, role = "member") {
  return { data: { type: "invitation", attributes: { email, role } } };
}

/** Points invitation mail at the local SMTP receiver. */
function toLocalSmtp(): void {
  setInvitationTransport({ smtp: localTransport().smtp ?? null, linksToConsole: false });
}

/** Records console links instead of sending. */
function toConsole(): string[] {
  const lines: string[] = [];
  setInvitationTransport({ smtp: null, linksToConsole: true, log: (line) => lines.push(line) });
  return lines;
}

function tokenIn(text: string): string {
  const match = /\/invitations\/accept\?token=([0-9A-Za-z]{43})/.exec(text);
  if (!match?.[1]) throw new Error(`no invitation link in: ${text}`);
  return match[1];
}

async function invitationCount(accountId: string): Promise<number> {
  const row = await env.DB.prepare("SELECT COUNT(*) AS n FROM invitations WHERE account_id = ?1")
    .bind(accountId)
    .first<{ n: number }>();
  return row?.n ?? 0;
}

describe("POST /v2/invitations", () => {
  it("e-mails a one-time link through the SMTP relay and stores only the token's hash", async () => {
    toLocalSmtp();
    const account = await createAccount("Harbour Freight <b>");
    const email = `ops-${account.accountId.slice(-8)}@example.test`;
    const { res, json } = await apiJson<Doc>("/invitations", {
      key: account.key,
      body: inviteBody(` ${email.toUpperCase()} `, "viewer"),
    });
    expect(res.status).toBe(201);
    expect(json.data.attributes).toMatchObject({ email, role: "viewer", status: "pending", invited_by_user_id: null });
    expect(JSON.stringify(json)).not.toMatch(/token/);
    const mail = (await received()).find((m) => m.channel === "smtp" && m.to === email);
    expect(mail?.subject).toBe("Join Harbour Freight <b> on Container tracking");
    const token = tokenIn(mail?.body ?? "");
    expect(mail?.body).toContain(`${WEB_ORIGIN}/invitations/accept?token=${token}`);
    expect(mail?.html).toContain("Harbour Freight &#60;b&#62;");
    const row = await env.DB.prepare("SELECT token_hash, expires_at, created_at FROM invitations WHERE id = ?1")
      .bind(json.data.id)
      .first<{ token_hash: string; expires_at: string; created_at: string }>();
    expect(row?.token_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(row?.token_hash).not.toContain(token);
    expect(Date.parse(row?.expires_at ?? "") - Date.parse(row?.created_at ?? "")).toBe(7 * 24 * 3600_000);
  });

  it("logs the link to the console locally when no relay is configured", async () => {
    const lines = toConsole();
    const account = await createAccount();
    const res = await api("/invitations", { key: account.key, body: inviteBody("console@example.test") });
    expect(res.status).toBe(201);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain("console@example.test");
    tokenIn(lines[0] ?? "");
  });

  it("answers 503 and keeps nothing when the e-mail cannot be sent", async () => {
    setInvitationTransport({ smtp: null, linksToConsole: false });
    const account = await createAccount();
    const { res, json } = await apiJson<ErrorDoc>("/invitations", {
      key: account.key,
      body: inviteBody("nowhere@example.test"),
    });
    expect(res.status).toBe(503);
    expect(json.errors[0]?.detail).toMatch(/could not be sent/);
    expect(await invitationCount(account.accountId)).toBe(0);
  });

  it("refuses an address that already is a user (422 taken), and bad input, creating nothing", async () => {
    toConsole();
    const account = await createAccount();
    const member = await createWebUser(account.accountId, "member");
    const other = await createAccount();
    const theirs = await createWebUser(other.accountId, "admin");
    for (const email of [member.email, theirs.email.toUpperCase()]) {
      const { res, json } = await apiJson<ErrorDoc>("/invitations", { key: account.key, body: inviteBody(email) });
      expect(res.status).toBe(422);
      expect(json.errors[0]).toMatchObject({ code: "taken", source: { pointer: "/data/attributes/email" } });
    }
    for (const body of [
      inviteBody("not-an-address"),
      inviteBody("a@b.test", "owner"),
      { data: { type: "invitation", attributes: { email: "a@b.test" } } },
      { data: { type: "user", attributes: { email: "a@b.test", role: "member" } } },
    ]) {
      expect((await api("/invitations", { key: account.key, body })).status).toBe(422);
    }
    expect(await invitationCount(account.accountId)).toBe(0);
    expect((await api("/invitations", { body: inviteBody("a@b.test") })).status).toBe(401);
  });

  it("refuses a new invitation at 100 pending ones (422 limit)", async () => {
    toConsole();
    const account = await createAccount();
    const now = new Date().toISOString().replace(/\.\d{3}Z$/, "Z");
    const later = new Date(Date.now() + 3600_000).toISOString().replace(/\.\d{3}Z$/, "Z");
    await env.DB.batch(
      Array.from({ length: 100 }, (_, i) =>
        env.DB.prepare(
          `INSERT INTO invitations (id, account_id, email, role, token_hash, created_at, expires_at)
           VALUES (?1, ?2, ?3, 'member', ?4, ?5, ?6)`,
        ).bind(crypto.randomUUID(), account.accountId, `p${i}@example.test`, crypto.randomUUID(), now, later),
      ),
    );
    const { res, json } = await apiJson<ErrorDoc>("/invitations", {
      key: account.key,
      body: inviteBody("one@more.test"),
    });
    expect(res.status).toBe(422);
    expect(json.errors[0]?.code).toBe("limit");
    expect(await invitationCount(account.accountId)).toBe(100);
  });

  it("replaces a pending invitation of the same address", async () => {
    toConsole();
    const account = await createAccount();
    const first = await apiJson<Doc>("/invitations", { key: account.key, body: inviteBody("twice@example.test") });
    await api("/invitations", { key: account.key, body: inviteBody("twice@example.test", "admin") });
    const got = await apiJson<Doc>(`/invitations/${first.json.data.id}`, { key: account.key });
    expect(got.json.data.attributes.status).toBe("revoked");
    const pending = await apiJson<{ data: Doc["data"][] }>("/invitations?filter[status]=pending", { key: account.key });
    expect(pending.json.data.map((d) => d.attributes.role)).toEqual(["admin"]);
  });
});

describe("GET and DELETE /v2/invitations", () => {
  it("lists, filters, revokes; another account's invitation is 404", async () => {
    const lines = toConsole();
    const account = await createAccount();
    const other = await createAccount();
    const { json } = await apiJson<Doc>("/invitations", { key: account.key, body: inviteBody("rev@example.test") });
    const list = await apiJson<{ data: Doc["data"][]; meta: { total: number } }>("/invitations", { key: account.key });
    expect(list.json.meta.total).toBe(1);
    expect((await api("/invitations?filter[status]=bogus", { key: account.key })).status).toBe(400);
    expect((await api(`/invitations/${json.data.id}`, { key: other.key })).status).toBe(404);
    expect((await api(`/invitations/${json.data.id}`, { key: other.key, method: "DELETE" })).status).toBe(404);
    expect((await api(`/invitations/${json.data.id}`, { key: account.key, method: "DELETE" })).status).toBe(200);
    const got = await apiJson<Doc>(`/invitations/${json.data.id}`, { key: account.key });
    expect(got.json.data.attributes.status).toBe("revoked");
    const page = await web(`/invitations/accept?token=${tokenIn(lines[0] ?? "")}`);
    expect(page.status).toBe(400);
    expect(await page.text()).toContain("withdrawn");
  });
});

describe("/invitations/accept", () => {
  it("shows the invitation, and accepting creates a signed-in user and uses the link up", async () => {
    const lines = toConsole();
    const account = await createAccount("Pier 9 Logistics");
    const { json } = await apiJson<Doc>("/invitations", { key: account.key, body: inviteBody("new@example.test") });
    const token = tokenIn(lines[0] ?? "");
    const page = await web(`/invitations/accept?token=${token}`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-security-policy")).toContain("script-src 'self'");
    const html = await page.text();
    expect(html).toMatch(/^<!DOCTYPE html>/);
    expect(html).toContain("Pier 9 Logistics");
    expect(html).toContain("new@example.test");
    expect(html).toContain("Accept and sign in");
    // The GET changed nothing.
    expect((await apiJson<Doc>(`/invitations/${json.data.id}`, { key: account.key })).json.data.attributes.status).toBe(
      "pending",
    );

    const accept = await web("/invitations/accept", {
      form: { token, name: '<script>alert(1)</script>"><img src=x onerror=alert(1)>' },
    });
    expect(accept.status).toBe(303);
    expect(accept.headers.get("location")).toBe("/app/containers");
    const cookie = accept.headers.get("set-cookie") ?? "";
    expect(cookie).toMatch(/^__Host-session=[0-9A-Za-z]{43};/);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/Secure/);
    expect(cookie).toMatch(/SameSite=Lax/);
    const signedIn = await web("/app", { headers: { Cookie: cookie.split(";")[0] ?? "" } });
    expect(signedIn.headers.get("location")).toBe("/app/containers");

    const users = await apiJson<{ data: Doc["data"][] }>("/users", { key: account.key });
    expect(users.json.data.map((u) => u.attributes)).toEqual([
      expect.objectContaining({
        email: "new@example.test",
        role: "member",
        name: '<script>alert(1)</script>"><img src=x onerror=alert(1)>',
        last_signed_in_at: expect.any(String),
      }),
    ]);
    expect((await apiJson<Doc>(`/invitations/${json.data.id}`, { key: account.key })).json.data.attributes.status).toBe(
      "accepted",
    );
    const again = await web("/invitations/accept", { form: { token } });
    expect(again.status).toBe(400);
    expect(again.headers.get("content-type")).toMatch(/text\/html/);
    expect(await again.text()).toContain("already used");
    expect((await api(`/invitations/${json.data.id}`, { key: account.key, method: "DELETE" })).status).toBe(422);
  });

  it("refuses a cross-site POST, an unknown token and an expired one, creating no user", async () => {
    const lines = toConsole();
    const account = await createAccount();
    const { json } = await apiJson<Doc>("/invitations", { key: account.key, body: inviteBody("late@example.test") });
    const token = tokenIn(lines[0] ?? "");
    const cross = await web("/invitations/accept", {
      form: { token },
      headers: { "Sec-Fetch-Site": "cross-site", Origin: "https://evil.test" },
    });
    expect(cross.status).toBe(403);
    expect((await web("/invitations/accept?token=nope")).status).toBe(400);
    expect((await web(`/invitations/accept?token=${"A".repeat(43)}`, { method: "GET" })).status).toBe(400);
    await env.DB.prepare("UPDATE invitations SET expires_at = '2020-01-01T00:00:00Z' WHERE id = ?1")
      .bind(json.data.id)
      .run();
    const expired = await web("/invitations/accept", { form: { token } });
    expect(expired.status).toBe(400);
    expect(await expired.text()).toContain("expired");
    const users = await apiJson<{ data: unknown[] }>("/users", { key: account.key });
    expect(users.json.data).toEqual([]);
  });

  it("starts a fresh session: a cookie the browser already had is ended, never reused (no fixation)", async () => {
    const lines = toConsole();
    const account = await createAccount();
    const before = await createWebUser(account.accountId, "admin");
    await api("/invitations", { key: account.key, body: inviteBody("fresh@example.test") });
    const accept = await web("/invitations/accept", {
      form: { token: tokenIn(lines[0] ?? "") },
      headers: { Cookie: before.cookie },
    });
    expect(accept.status).toBe(303);
    const cookie = (accept.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
    expect(cookie).toMatch(/^__Host-session=/);
    expect(cookie).not.toBe(before.cookie);
    expect((await web("/app", { user: before })).headers.get("location")).toMatch(/^\/sign-in/);
    const signedIn = await web("/app", { headers: { Cookie: cookie } });
    expect(signedIn.headers.get("location")).toBe("/app/containers");
  });

  it("restores a removed user of the account with the new role", async () => {
    const lines = toConsole();
    const account = await createAccount();
    await createWebUser(account.accountId, "admin");
    const gone = await createWebUser(account.accountId, "admin");
    expect((await api(`/users/${gone.userId}`, { key: account.key, method: "DELETE" })).status).toBe(200);
    expect((await api("/invitations", { key: account.key, body: inviteBody(gone.email, "viewer") })).status).toBe(201);
    const accept = await web("/invitations/accept", { form: { token: tokenIn(lines[0] ?? "") } });
    expect(accept.status).toBe(303);
    const user = await apiJson<Doc>(`/users/${gone.userId}`, { key: account.key });
    expect(user.json.data.attributes).toMatchObject({ role: "viewer", disabled_at: null });
  });
});
