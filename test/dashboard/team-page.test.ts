import { env } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { setInvitationTransport } from "../../src/users/invitation-mail";
import { api, apiJson, createAccount } from "../helpers/api";
import { createWebUser, type TestWebUser, web } from "../helpers/web-session";

afterEach(() => setInvitationTransport(null));

const PAGE = "/app/settings/team";

/** The page's HTML for `user` (expects 200). */
async function page(user: TestWebUser, path = PAGE): Promise<string> {
  const res = await web(path, { user });
  expect(res.status).toBe(200);
  return res.text();
}

/** The CSRF token of the user's session, read from the rendered page's hidden `_csrf` input. */
async function csrfOf(user: TestWebUser): Promise<string> {
  const html = await page(user);
  const token = /name="_csrf" value="([^"]+)"/.exec(html)?.[1];
  if (!token) throw new Error("no _csrf field on the page");
  return token;
}

function consoleLinks(): string[] {
  const lines: string[] = [];
  setInvitationTransport({ smtp: null, linksToConsole: true, log: (line) => lines.push(line) });
  return lines;
}

async function roleOf(userId: string) {
  return (await env.DB.prepare("SELECT role, disabled_at FROM users WHERE id = ?1").bind(userId).first()) as {
    role: string;
    disabled_at: string | null;
  };
}

describe("/app/settings/team", () => {
  it("shows an admin the members with role selects, the invite form and pending invitations", async () => {
    consoleLinks();
    const account = await createAccount();
    const admin = await createWebUser(account.accountId, "admin");
    const member = await createWebUser(account.accountId, "member");
    await api("/invitations", {
      key: account.key,
      body: { data: { type: "invitation", attributes: { email: "pending@example.test", role: "viewer" } } },
    });
    const html = await page(admin);
    expect(html).toMatch(/^<!DOCTYPE html>/);
    expect(html).toContain("<caption>Team members</caption>");
    expect(html).toContain(member.email);
    expect(html).toContain(`id="role-${member.userId}" name="role" aria-label="Role of ${member.email}"`);
    expect(html).toContain(`action="${PAGE}/users/${member.userId}/remove"`);
    expect(html).toContain('<label for="invite-email">E-mail address</label>');
    expect(html).toContain("pending@example.test");
    expect(html).toContain("Send invitation");
    expect(html.match(/<h1>/g)).toHaveLength(1);
  });

  it("shows a viewer the list read-only, and refuses their POSTs with 403, changing nothing", async () => {
    const account = await createAccount();
    const admin = await createWebUser(account.accountId, "admin");
    const viewer = await createWebUser(account.accountId, "viewer");
    const html = await page(viewer);
    expect(html).toContain(admin.email);
    expect(html).not.toContain("Send invitation");
    expect(html).not.toContain("<select");
    const _csrf = await csrfOf(viewer);
    const res = await web(`${PAGE}/users/${admin.userId}/role`, { user: viewer, form: { _csrf, role: "viewer" } });
    expect(res.status).toBe(403);
    expect(res.headers.get("content-type")).toMatch(/text\/html/);
    expect(await res.text()).toContain("This needs the admin role.");
    const invite = await web(`${PAGE}/invitations`, {
      user: viewer,
      form: { _csrf, email: "x@y.test", role: "admin" },
    });
    expect(invite.status).toBe(403);
    const remove = await web(`${PAGE}/users/${admin.userId}/remove`, { user: viewer, form: { _csrf } });
    expect(remove.status).toBe(403);
    expect(await roleOf(admin.userId)).toEqual({ role: "admin", disabled_at: null });
  });

  it("refuses a POST without the CSRF token (403) and without a session (401)", async () => {
    const account = await createAccount();
    const admin = await createWebUser(account.accountId, "admin");
    const member = await createWebUser(account.accountId, "member");
    const res = await web(`${PAGE}/users/${member.userId}/role`, { user: admin, form: { role: "admin" } });
    expect(res.status).toBe(403);
    const anonymous = await web(`${PAGE}/users/${member.userId}/role`, { form: { role: "admin" } });
    expect(anonymous.status).toBe(401);
    expect((await web(PAGE)).headers.get("location")).toBe(`/sign-in?next=${encodeURIComponent(PAGE)}`);
    expect((await roleOf(member.userId)).role).toBe("member");
  });

  it("changes a role and removes a member, answering 303 with a notice", async () => {
    const account = await createAccount();
    const admin = await createWebUser(account.accountId, "admin");
    const member = await createWebUser(account.accountId, "member");
    const _csrf = await csrfOf(admin);
    const res = await web(`${PAGE}/users/${member.userId}/role`, { user: admin, form: { _csrf, role: "viewer" } });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe(`${PAGE}?notice=role`);
    expect((await roleOf(member.userId)).role).toBe("viewer");
    expect(await page(admin, `${PAGE}?notice=role`)).toContain('<p role="status">Role saved.</p>');
    const removed = await web(`${PAGE}/users/${member.userId}/remove`, { user: admin, form: { _csrf } });
    expect(removed.status).toBe(303);
    expect((await roleOf(member.userId)).disabled_at).not.toBeNull();
    expect((await web("/app", { user: member })).headers.get("location")).toMatch(/^\/sign-in/);
  });

  it("re-renders with the error next to the select when demoting the last admin (422), changing nothing", async () => {
    const account = await createAccount();
    const admin = await createWebUser(account.accountId, "admin");
    const _csrf = await csrfOf(admin);
    const res = await web(`${PAGE}/users/${admin.userId}/role`, { user: admin, form: { _csrf, role: "member" } });
    expect(res.status).toBe(422);
    const html = await res.text();
    expect(html).toContain(`aria-describedby="user-error-${admin.userId}"`);
    expect(html).toMatch(new RegExp(`id="user-error-${admin.userId}"[^>]*>[^<]*without an admin`));
    expect((await roleOf(admin.userId)).role).toBe("admin");
  });

  it("says why a removed user's role cannot change, with no row to show it in", async () => {
    const account = await createAccount();
    const admin = await createWebUser(account.accountId, "admin");
    const member = await createWebUser(account.accountId, "member");
    const _csrf = await csrfOf(admin);
    expect((await web(`${PAGE}/users/${member.userId}/remove`, { user: admin, form: { _csrf } })).status).toBe(303);
    const res = await web(`${PAGE}/users/${member.userId}/role`, { user: admin, form: { _csrf, role: "admin" } });
    expect(res.status).toBe(422);
    expect(await res.text()).toMatch(/<p role="alert">[^<]*removed from the team/);
    expect(await roleOf(member.userId)).toMatchObject({ role: "member" });
  });

  it("invites through the form; a bad address re-renders the form with the error and invites nobody", async () => {
    const links = consoleLinks();
    const account = await createAccount();
    const admin = await createWebUser(account.accountId, "admin");
    const _csrf = await csrfOf(admin);
    const bad = await web(`${PAGE}/invitations`, {
      user: admin,
      form: { _csrf, email: '"><img src=x onerror=alert(1)>', role: "member" },
    });
    expect(bad.status).toBe(422);
    const html = await bad.text();
    expect(html).toContain('aria-describedby="invite-email-error"');
    expect(html).not.toContain("<img src=x");
    expect(html).toContain("&quot;&gt;&lt;img src=x onerror=alert(1)&gt;");
    const taken = await web(`${PAGE}/invitations`, {
      user: admin,
      form: { _csrf, email: admin.email, role: "member" },
    });
    expect(taken.status).toBe(422);
    expect(await taken.text()).toContain("already belongs to a member of the team");
    expect(links).toEqual([]);

    const ok = await web(`${PAGE}/invitations`, {
      user: admin,
      form: { _csrf, email: "New.Hire@Example.test", role: "viewer" },
    });
    expect(ok.status).toBe(303);
    expect(ok.headers.get("location")).toBe(`${PAGE}?notice=invited`);
    expect(links).toHaveLength(1);
    expect(links[0]).toContain("new.hire@example.test");
    const { json } = await apiJson<{ data: { id: string; attributes: Record<string, unknown> }[] }>("/invitations", {
      key: account.key,
    });
    expect(json.data[0]?.attributes).toMatchObject({
      email: "new.hire@example.test",
      invited_by_user_id: admin.userId,
    });
    const withdraw = await web(`${PAGE}/invitations/${json.data[0]?.id}/revoke`, { user: admin, form: { _csrf } });
    expect(withdraw.status).toBe(303);
    expect(await page(admin)).toContain("No pending invitations.");
  });

  it("answers 404 pages for another account's user or invitation ids, changing nothing", async () => {
    consoleLinks();
    const account = await createAccount();
    const admin = await createWebUser(account.accountId, "admin");
    const other = await createAccount();
    const theirs = await createWebUser(other.accountId, "member");
    const invited = await apiJson<{ data: { id: string } }>("/invitations", {
      key: other.key,
      body: { data: { type: "invitation", attributes: { email: "theirs@example.test", role: "member" } } },
    });
    const _csrf = await csrfOf(admin);
    const role = await web(`${PAGE}/users/${theirs.userId}/role`, { user: admin, form: { _csrf, role: "admin" } });
    expect(role.status).toBe(404);
    expect(role.headers.get("content-type")).toMatch(/text\/html/);
    const remove = await web(`${PAGE}/users/${theirs.userId}/remove`, { user: admin, form: { _csrf } });
    expect(remove.status).toBe(404);
    const revoke = await web(`${PAGE}/invitations/${invited.json.data.id}/revoke`, { user: admin, form: { _csrf } });
    expect(revoke.status).toBe(404);
    expect(await roleOf(theirs.userId)).toEqual({ role: "member", disabled_at: null });
    const status = await apiJson<{ data: { attributes: { status: string } } }>(`/invitations/${invited.json.data.id}`, {
      key: other.key,
    });
    expect(status.json.data.attributes.status).toBe("pending");
  });

  it("renders a user's name with markup inert (escaped)", async () => {
    const account = await createAccount();
    const admin = await createWebUser(account.accountId, "admin");
    const member = await createWebUser(account.accountId, "member");
    await env.DB.prepare("UPDATE users SET name = ?1 WHERE id = ?2")
      .bind('<script>alert(1)</script>"><img src=x onerror=alert(1)>', member.userId)
      .run();
    for (const viewer of [admin, await createWebUser(account.accountId, "viewer")]) {
      const html = await page(viewer);
      expect(html).not.toContain("<script>alert(1)</script>");
      expect(html).not.toContain("<img src=x");
      expect(html).toContain("&lt;script&gt;alert(1)&lt;/script&gt;&quot;&gt;&lt;img src=x onerror=alert(1)&gt;");
    }
  });
});
