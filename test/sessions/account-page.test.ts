import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createSession, SESSION_COOKIE } from "../../src/sessions/session";
import { createAccountWithWebUser, web } from "../helpers/web-session";

describe("GET /app/account", () => {
  it("sends a visitor without a session to sign-in", async () => {
    const res = await web("/app/account");
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe(`/sign-in?next=${encodeURIComponent("/app/account")}`);
  });

  it("lists the user's live sessions (browser text escaped) and offers signing out everywhere", async () => {
    const { user } = await createAccountWithWebUser("viewer");
    const xss = '<script>alert(1)</script>"><img src=x onerror=alert(1)>';
    await createSession(env.DB, { userId: user.userId, accountId: user.accountId }, Date.now(), xss);
    const ended = await createSession(env.DB, { userId: user.userId, accountId: user.accountId }, Date.now(), "gone");
    await env.DB.prepare("UPDATE web_sessions SET revoked_at = '2026-01-01T00:00:00Z' WHERE id = ?1")
      .bind(ended.sessionId)
      .run();
    const { user: stranger } = await createAccountWithWebUser("admin");

    const res = await web("/app/account", { user });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-security-policy")).toContain("default-src 'none'");
    const html = await res.text();
    expect(html).toContain("<h1>Your account</h1>");
    expect(html).toContain(user.email);
    expect(html).toContain("<caption>Active sessions</caption>");
    expect(html).toContain("Yes, this one");
    expect(html).not.toContain("<script>alert(1)</script>");
    expect(html).not.toContain("<img src=x");
    expect(html).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(html).not.toContain(">gone<");
    expect(html).not.toContain(stranger.email);
    expect((html.match(/<tr>/g) ?? []).length).toBe(3);
    expect(html).toContain(`action="/app/account/sessions/${user.sessionId}/end"`);
    expect(html).toContain('<form method="post" action="/sign-out/everywhere">');
    expect(html).toContain('<button type="submit">Sign out everywhere</button>');
    expect(html).toMatch(/<input type="hidden" name="_csrf" value="[0-9A-Za-z]+"/);
  });

  it("is not reachable with another user's revoked session", async () => {
    const { user } = await createAccountWithWebUser("member");
    const other = await createSession(env.DB, { userId: user.userId, accountId: user.accountId }, Date.now(), null);
    await env.DB.prepare("UPDATE web_sessions SET revoked_at = '2026-01-01T00:00:00Z' WHERE id = ?1")
      .bind(other.sessionId)
      .run();
    const res = await web("/app/account", { headers: { Cookie: `${SESSION_COOKIE}=${other.token}` } });
    expect(res.status).toBe(303);
  });
});

describe("POST /app/account/sessions/{id}/end", () => {
  async function csrfOf(sessionId: string): Promise<string> {
    const row = await env.DB.prepare("SELECT csrf_token FROM web_sessions WHERE id = ?1")
      .bind(sessionId)
      .first<{ csrf_token: string }>();
    return row?.csrf_token ?? "";
  }
  const works = async (cookie: string) => (await web("/app/account", { headers: { Cookie: cookie } })).status === 200;

  it("ends another session of the user and comes back; needs the CSRF token", async () => {
    const { user } = await createAccountWithWebUser("viewer");
    const other = await createSession(env.DB, { userId: user.userId, accountId: user.accountId }, Date.now(), "tablet");
    const otherCookie = `${SESSION_COOKIE}=${other.token}`;
    const path = `/app/account/sessions/${other.sessionId}/end`;
    expect((await web(path, { user, form: {} })).status).toBe(403);
    expect(await works(otherCookie)).toBe(true);
    const res = await web(path, { user, form: { _csrf: await csrfOf(user.sessionId) } });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/app/account");
    expect(await works(otherCookie)).toBe(false);
    expect(await works(user.cookie)).toBe(true);
    // Ended already: nothing to end.
    expect((await web(path, { user, form: { _csrf: await csrfOf(user.sessionId) } })).status).toBe(404);
  });

  it("answers 404 for another user's session (of this or another account) or an unknown id, ending nothing", async () => {
    const { user } = await createAccountWithWebUser("admin");
    const { user: stranger } = await createAccountWithWebUser("admin");
    const { createWebUser } = await import("../helpers/web-session");
    const teammate = await createWebUser(user.accountId, "member");
    const csrf = await csrfOf(user.sessionId);
    for (const id of [stranger.sessionId, teammate.sessionId, "00000000-0000-7000-8000-000000000000"]) {
      const res = await web(`/app/account/sessions/${id}/end`, { user, form: { _csrf: csrf } });
      expect(res.status, id).toBe(404);
    }
    expect(await works(stranger.cookie)).toBe(true);
    expect(await works(teammate.cookie)).toBe(true);
  });

  it("signs out when the session ended is this one, and answers 401 without a session", async () => {
    const { user } = await createAccountWithWebUser("member");
    const path = `/app/account/sessions/${user.sessionId}/end`;
    expect((await web(path, { form: { _csrf: "x" } })).status).toBe(401);
    const res = await web(path, { user, form: { _csrf: await csrfOf(user.sessionId) } });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/sign-in");
    expect(res.headers.getSetCookie().some((line) => /^__Host-session=;.*Max-Age=0/.test(line))).toBe(true);
    expect(await works(user.cookie)).toBe(false);
  });
});
