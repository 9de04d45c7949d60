import { env } from "cloudflare:test";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { newId } from "../../src/lib/ids";
import { setAccountMailTransport } from "../../src/sessions/account-mail";
import { PRE_SESSION_COOKIE, SIGN_IN_REQUESTS_PER_WINDOW } from "../../src/sessions/sign-in-guard";
import { createSignInLink, SIGN_IN_LINKS_PER_ADDRESS_PER_HOUR } from "../../src/sessions/sign-in-links";
import { localTransport, received } from "../helpers/alert-receivers";
import { createAccount } from "../helpers/api";
import { createWebUser, type TestWebUser, WEB_ORIGIN, web } from "../helpers/web-session";

/** A browser's cookies for the Worker's origin: what Set-Cookie put there, sent back as `Cookie`. */
class CookieJar {
  readonly cookies = new Map<string, string>();

  take(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair = ""] = line.split(";");
      const eq = pair.indexOf("=");
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      if (value === "" || /max-age=0/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  }
}

/** A browser: a cookie jar and one client address (each test its own, so the per-address throttle stays apart). */
function browser(ip = `192.0.2.${Math.floor(Math.random() * 250) + 1}`) {
  const jar = new CookieJar();
  return {
    jar,
    ip,
    async get(path: string): Promise<Response> {
      const res = await web(path, { headers: { Cookie: jar.header(), "CF-Connecting-IP": ip } });
      jar.take(res);
      return res;
    },
    async post(path: string, form: Record<string, string>, headers: Record<string, string> = {}): Promise<Response> {
      const res = await web(path, { form, headers: { Cookie: jar.header(), "CF-Connecting-IP": ip, ...headers } });
      jar.take(res);
      return res;
    },
  };
}

/** The value of the hidden `name` input of a page. */
function hidden(html: string, name: string): string | null {
  return new RegExp(`<input type="hidden" name="${name}" value="([^"]*)"`).exec(html)?.[1] ?? null;
}

/** Asks for a sign-in link for `email` through the form, as a browser does: GET the form, POST it. */
async function askForLink(b: ReturnType<typeof browser>, email: string, next?: string): Promise<Response> {
  const form = await b.get(next === undefined ? "/sign-in" : `/sign-in?next=${encodeURIComponent(next)}`);
  const html = await form.text();
  const fields: Record<string, string> = { _csrf: hidden(html, "_csrf") ?? "", email };
  const keptNext = hidden(html, "next");
  if (keptNext !== null) fields.next = keptNext;
  return b.post("/sign-in", fields);
}

/** Waits (up to 10 s) for the sign-in e-mail to `email` and returns the link in it. */
async function linkMailedTo(email: string): Promise<string> {
  for (let i = 0; i < 100; i++) {
    const mail = (await received()).find((m) => m.channel === "smtp" && m.to === email);
    const link = mail && /https?:\/\/\S+\/sign-in\/link\?\S+/.exec(mail.body)?.[0];
    if (link) return link;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`no sign-in e-mail reached ${email}`);
}

/** Signs `b` in by a link URL: opens it, presses "Sign in". */
async function followLink(b: ReturnType<typeof browser>, link: string): Promise<Response> {
  const url = new URL(link);
  const page = await b.get(url.pathname + url.search);
  expect(page.status).toBe(200);
  const html = await page.text();
  const fields: Record<string, string> = { _csrf: hidden(html, "_csrf") ?? "", token: hidden(html, "token") ?? "" };
  const next = hidden(html, "next");
  if (next !== null) fields.next = next;
  return b.post("/sign-in/link", fields);
}

async function linkCount(userId: string): Promise<number> {
  const row = await env.DB.prepare("SELECT COUNT(*) AS n FROM sign_in_links WHERE user_id = ?1")
    .bind(userId)
    .first<{ n: number }>();
  return row?.n ?? 0;
}

/** Whether the jar's session cookie signs in (a dashboard page answers instead of sending to /sign-in). */
async function signedIn(cookie: string): Promise<boolean> {
  const res = await web("/app/account", { headers: { Cookie: cookie } });
  return res.status === 200;
}

async function newUser(role: "admin" | "member" | "viewer" = "member"): Promise<TestWebUser> {
  const { accountId } = await createAccount();
  return createWebUser(accountId, role, `user-${newId().slice(-10)}@example.test`);
}

beforeEach(() => setAccountMailTransport(localTransport().smtp ?? null));
afterEach(() => setAccountMailTransport(undefined));

describe("asking for a sign-in link", () => {
  it("shows a labelled e-mail form with a pre-session CSRF token in a __Host- cookie", async () => {
    const b = browser();
    const res = await b.get("/sign-in");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-security-policy")).toContain("script-src 'self'");
    const html = await res.text();
    expect(html).toContain('<label for="email">E-mail address</label>');
    expect(html).toContain('<button type="submit">Send sign-in link</button>');
    const cookie = res.headers.getSetCookie().find((line) => line.startsWith(`${PRE_SESSION_COOKIE}=`)) ?? "";
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/Secure/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).toMatch(/Path=\//);
    expect(cookie).not.toMatch(/Domain=/i);
    expect(hidden(html, "_csrf")).toBe(b.jar.cookies.get(PRE_SESSION_COOKIE));
  });

  it("answers the same for a known and an unknown address; only the known one gets an e-mail", async () => {
    const user = await newUser();
    const unknown = `nobody-${newId().slice(-10)}@example.test`;
    const a = await askForLink(browser(), unknown);
    const b = await askForLink(browser(), user.email.toUpperCase());
    for (const res of [a, b]) {
      expect(res.status).toBe(303);
      expect(res.headers.get("location")).toBe("/sign-in/sent");
    }
    const link = await linkMailedTo(user.email);
    expect(link).toMatch(new RegExp(`^${WEB_ORIGIN}/sign-in/link\\?token=[0-9A-Za-z]{43}$`));
    expect((await received()).some((m) => m.to === unknown)).toBe(false);
    const sent = await web("/sign-in/sent");
    expect(await sent.text()).toContain("If that address belongs to an account");
  });

  it("refuses a post without the pre-session token, or from another site, and sends nothing", async () => {
    const user = await newUser();
    const b = browser();
    const page = await (await b.get("/sign-in")).text();
    const csrf = hidden(page, "_csrf") ?? "";
    expect((await b.post("/sign-in", { email: user.email })).status).toBe(403);
    expect((await b.post("/sign-in", { email: user.email, _csrf: "x".repeat(43) })).status).toBe(403);
    const crossSite = await b.post(
      "/sign-in",
      { email: user.email, _csrf: csrf },
      { "Sec-Fetch-Site": "cross-site", Origin: "https://evil.test" },
    );
    expect(crossSite.status).toBe(403);
    expect(await crossSite.text()).toContain("This form is out of date");
    // Another browser's token does not fit this browser's cookie.
    const other = browser();
    await other.get("/sign-in");
    expect((await other.post("/sign-in", { email: user.email, _csrf: csrf })).status).toBe(403);
    expect(await linkCount(user.userId)).toBe(0);
  });

  it("re-renders the form with the message next to the field for a bad address", async () => {
    const b = browser();
    const csrf = hidden(await (await b.get("/sign-in")).text(), "_csrf") ?? "";
    const res = await b.post("/sign-in", { _csrf: csrf, email: '"><img src=x onerror=alert(1)>' });
    expect(res.status).toBe(400);
    const html = await res.text();
    expect(html).toContain('aria-describedby="email-error"');
    expect(html).toContain('id="email-error"');
    expect(html).not.toContain("<img src=x");
    expect(html).toContain("&quot;&gt;&lt;img src=x onerror=alert(1)&gt;");
  });

  it("sends a disabled user nothing", async () => {
    const user = await newUser();
    await env.DB.prepare("UPDATE users SET disabled_at = '2026-01-01T00:00:00Z' WHERE id = ?1").bind(user.userId).run();
    const res = await askForLink(browser(), user.email);
    expect(res.headers.get("location")).toBe("/sign-in/sent");
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await linkCount(user.userId)).toBe(0);
  });

  it("sends at most the hourly number of links to one address, answering the same", async () => {
    const user = await newUser();
    for (let i = 0; i < SIGN_IN_LINKS_PER_ADDRESS_PER_HOUR + 2; i++) {
      const res = await askForLink(browser(), user.email);
      expect(res.headers.get("location")).toBe("/sign-in/sent");
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await linkCount(user.userId)).toBe(SIGN_IN_LINKS_PER_ADDRESS_PER_HOUR);
  });

  it("answers 429 with Retry-After to a client address that asks too often", async () => {
    const b = browser("198.51.100.7");
    const csrf = hidden(await (await b.get("/sign-in")).text(), "_csrf") ?? "";
    for (let i = 0; i < SIGN_IN_REQUESTS_PER_WINDOW; i++) {
      const res = await b.post("/sign-in", { _csrf: csrf, email: `flood-${i}@example.test` });
      expect(res.status).toBe(303);
    }
    const refused = await b.post("/sign-in", { _csrf: csrf, email: "flood-last@example.test" });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await refused.text()).toContain("Too many sign-in requests");
    // Another address is not affected.
    const other = browser("198.51.100.8");
    const otherCsrf = hidden(await (await other.get("/sign-in")).text(), "_csrf") ?? "";
    expect((await other.post("/sign-in", { _csrf: otherCsrf, email: "x@example.test" })).status).toBe(303);
  });
});

describe("using a sign-in link", () => {
  it("shows who it signs in without using it, then signs in once with a session cookie and goes to next", async () => {
    const user = await newUser();
    const b = browser();
    await askForLink(b, user.email, "/app/track");
    const link = await linkMailedTo(user.email);
    expect(link).toContain("next=%2Fapp%2Ftrack");
    const url = new URL(link);
    // A mail scanner's prefetch (GET) uses nothing.
    expect((await web(url.pathname + url.search)).status).toBe(200);
    const res = await followLink(b, link);
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/app/track");
    const cookie = res.headers.getSetCookie().find((line) => line.startsWith("__Host-session=")) ?? "";
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/Secure/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).toMatch(/Path=\//);
    expect(await signedIn(b.jar.header())).toBe(true);
    // Once only.
    const again = await followLinkPost(b, url.searchParams.get("token") ?? "");
    expect(again.status).toBe(400);
    expect(await again.text()).toContain("Ask for a new sign-in link");
    expect((await web(url.pathname + url.search)).status).toBe(400);
  });

  it("lets exactly one of two concurrent uses of a link win", async () => {
    const user = await newUser();
    const token = await createSignInLink(env.DB, user.userId, Date.now());
    const [a, b] = [browser(), browser()];
    const csrfA = hidden(await (await a.get("/sign-in")).text(), "_csrf") ?? "";
    const csrfB = hidden(await (await b.get("/sign-in")).text(), "_csrf") ?? "";
    const answers = await Promise.all([
      a.post("/sign-in/link", { _csrf: csrfA, token }),
      b.post("/sign-in/link", { _csrf: csrfB, token }),
    ]);
    expect(answers.map((r) => r.status).sort()).toEqual([303, 400]);
  });

  it("renders an address and a next path with markup in them inert", async () => {
    const { accountId } = await createAccount();
    const user = await createWebUser(accountId, "viewer", `x"><script>alert(1)</script>-${newId().slice(-8)}@e.test`);
    const token = await createSignInLink(env.DB, user.userId, Date.now());
    const next = '/app/x"><img src=x onerror=alert(1)>';
    const html = await (await web(`/sign-in/link?token=${token}&next=${encodeURIComponent(next)}`)).text();
    expect(html).toContain("Sign in as x&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(html).not.toContain("<script>");
    expect(html).not.toContain("<img");
    expect(hidden(html, "next")).toBe("/app/x%22%3E%3Cimg%20src=x%20onerror=alert(1)%3E");
  });

  it("refuses an expired or unknown link with a 400 page", async () => {
    const user = await newUser();
    const token = await createSignInLink(env.DB, user.userId, Date.now() - 16 * 60_000);
    const b = browser();
    expect((await b.get(`/sign-in/link?token=${token}`)).status).toBe(400);
    expect((await followLinkPost(b, token)).status).toBe(400);
    expect((await b.get(`/sign-in/link?token=${"A".repeat(43)}`)).status).toBe(400);
    expect((await b.get("/sign-in/link")).status).toBe(400);
  });

  it("refuses the link of a user disabled after it was sent", async () => {
    const user = await newUser();
    const token = await createSignInLink(env.DB, user.userId, Date.now());
    await env.DB.prepare("UPDATE users SET disabled_at = '2026-01-01T00:00:00Z' WHERE id = ?1").bind(user.userId).run();
    expect((await followLinkPost(browser(), token)).status).toBe(400);
  });

  it("refuses a link posted from another site (login CSRF), keeping the link usable", async () => {
    const user = await newUser();
    const token = await createSignInLink(env.DB, user.userId, Date.now());
    const b = browser();
    const html = await (await b.get(`/sign-in/link?token=${token}`)).text();
    const fields = { _csrf: hidden(html, "_csrf") ?? "", token };
    const crossSite = await b.post("/sign-in/link", fields, { "Sec-Fetch-Site": "cross-site", Origin: "https://x" });
    expect(crossSite.status).toBe(403);
    expect((await b.post("/sign-in/link", { token })).status).toBe(403);
    expect((await b.post("/sign-in/link", fields)).status).toBe(303);
  });

  it.each(["//evil.test/app", "https://evil.test/app", "/\\evil.test", "app/containers"])(
    "does not redirect to next=%s",
    async (next) => {
      const user = await newUser();
      const b = browser();
      const form = await (await b.get(`/sign-in?next=${encodeURIComponent(next)}`)).text();
      expect(hidden(form, "next")).toBeNull();
      const token = await createSignInLink(env.DB, user.userId, Date.now());
      const res = await followLink(b, `${WEB_ORIGIN}/sign-in/link?token=${token}&next=${encodeURIComponent(next)}`);
      expect(res.headers.get("location")).toBe("/app/containers");
      // Posted directly, next is checked again.
      const token2 = await createSignInLink(env.DB, user.userId, Date.now());
      expect((await followLinkPost(b, token2, next)).headers.get("location")).toBe("/app/containers");
    },
  );

  it("goes to a next path with characters a header cannot carry as is, encoded", async () => {
    const user = await newUser();
    const token = await createSignInLink(env.DB, user.userId, Date.now());
    const res = await followLinkPost(browser(), token, "/app/containers?q=Süd");
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/app/containers?q=S%C3%BCd");
  });

  it("starts a new session: a cookie the browser brought is not the session after (no fixation), and it is ended", async () => {
    const victim = await newUser();
    const planted = await newUser();
    const b = browser();
    b.jar.cookies.set("__Host-session", planted.cookie.split("=")[1] ?? "");
    const token = await createSignInLink(env.DB, victim.userId, Date.now());
    const res = await followLinkPost(b, token);
    expect(res.status).toBe(303);
    const after = b.jar.cookies.get("__Host-session");
    expect(after).toBeDefined();
    expect(`__Host-session=${after}`).not.toBe(planted.cookie);
    expect(await signedIn(planted.cookie)).toBe(false);
    const live = await env.DB.prepare(
      "SELECT user_id FROM web_sessions WHERE revoked_at IS NULL AND user_id IN (?1, ?2)",
    )
      .bind(victim.userId, planted.userId)
      .all<{ user_id: string }>();
    expect(new Set(live.results.map((r) => r.user_id))).toEqual(new Set([victim.userId]));
  });
});

/** POSTs the link form directly with this browser's pre-session token (after loading /sign-in for the cookie). */
async function followLinkPost(b: ReturnType<typeof browser>, token: string, next?: string): Promise<Response> {
  const csrf = hidden(await (await b.get("/sign-in")).text(), "_csrf") ?? "";
  return b.post("/sign-in/link", { _csrf: csrf, token, ...(next === undefined ? {} : { next }) });
}

describe("signing out", () => {
  async function csrfOf(user: TestWebUser): Promise<string> {
    const row = await env.DB.prepare("SELECT csrf_token FROM web_sessions WHERE id = ?1")
      .bind(user.sessionId)
      .first<{ csrf_token: string }>();
    return row?.csrf_token ?? "";
  }

  it("needs the session's CSRF token; then ends this session and clears the cookie", async () => {
    const user = await newUser();
    expect((await web("/sign-out", { user, form: {} })).status).toBe(403);
    const crossSite = await web("/sign-out", {
      user,
      form: { _csrf: await csrfOf(user) },
      headers: { "Sec-Fetch-Site": "cross-site", Origin: "https://evil.test" },
    });
    expect(crossSite.status).toBe(403);
    expect(await signedIn(user.cookie)).toBe(true);
    const res = await web("/sign-out", { user, form: { _csrf: await csrfOf(user) } });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/sign-in");
    expect(res.headers.getSetCookie().some((l) => /^__Host-session=;.*Max-Age=0/.test(l))).toBe(true);
    expect(await signedIn(user.cookie)).toBe(false);
  });

  it("answers 401 without a session", async () => {
    const res = await web("/sign-out", { form: { _csrf: "x" } });
    expect(res.status).toBe(401);
    expect(res.headers.get("content-type")).toMatch(/text\/html/);
    expect((await web("/sign-out/everywhere", { form: { _csrf: "x" } })).status).toBe(401);
  });

  it("signs out everywhere: every session of the user ends, other users' do not", async () => {
    const user = await newUser();
    const { createSession, SESSION_COOKIE } = await import("../../src/sessions/session");
    const other = await createSession(env.DB, { userId: user.userId, accountId: user.accountId }, Date.now(), "x");
    const otherCookie = `${SESSION_COOKIE}=${other.token}`;
    const bystander = await newUser();
    expect((await web("/sign-out/everywhere", { user, form: {} })).status).toBe(403);
    expect(await signedIn(otherCookie)).toBe(true);
    const res = await web("/sign-out/everywhere", { user, form: { _csrf: await csrfOf(user) } });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/sign-in");
    expect(await signedIn(user.cookie)).toBe(false);
    expect(await signedIn(otherCookie)).toBe(false);
    expect(await signedIn(bystander.cookie)).toBe(true);
  });
});

describe("the API-key path", () => {
  it("does not accept a session cookie in place of an API key", async () => {
    const user = await newUser("admin");
    const res = await web("/v2/containers", { user });
    expect(res.status).toBe(401);
  });
});

describe("malformed bodies", () => {
  it("answers a broken multipart body with a 4xx, never a 500", async () => {
    const user = await newUser();
    const headers = { "Content-Type": "multipart/form-data", Cookie: user.cookie };
    for (const path of ["/sign-in", "/sign-in/link", "/sign-out", "/sign-out/everywhere"]) {
      const res = await web(path, { method: "POST", body: "--x\r\nnot a part", headers });
      expect(res.status, path).toBeGreaterThanOrEqual(400);
      expect(res.status, path).toBeLessThan(500);
    }
    expect(await signedIn(user.cookie)).toBe(true);
  });
});
