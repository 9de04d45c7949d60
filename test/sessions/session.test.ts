import { env } from "cloudflare:test";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { createDatabase } from "../../src/db/client";
import type { AppEnv } from "../../src/env";
import { FakeClock } from "../../src/lib/clock";
import {
  createSession,
  revokeSession,
  revokeSessionsOfUser,
  roleAllows,
  SESSION_COOKIE,
  SESSION_IDLE_MS,
  SESSION_MAX_AGE_MS,
  SESSION_ROTATE_MS,
  SESSION_ROTATION_GRACE_MS,
  signedInUserOf,
} from "../../src/sessions/session";
import { createAccount } from "../helpers/api";
import { createWebUser } from "../helpers/web-session";

/** A tiny app answering who the session cookie signs in, at a clock the test moves. */
function whoAmI(clock: FakeClock) {
  const app = new Hono<AppEnv>();
  app.use("*", async (c, next) => {
    c.set("clock", clock);
    c.set("db", createDatabase(c.env.DB));
    await next();
  });
  app.get("/", async (c) => c.json({ user: await signedInUserOf(c) }));
  return (cookie: string | null) =>
    app.request("/", { headers: cookie ? { Cookie: cookie } : {} }, env) as Promise<Response>;
}

async function userOf(res: Response): Promise<{ userId: string; role: string } | null> {
  return ((await res.json()) as { user: { userId: string; role: string } | null }).user;
}

function newCookie(res: Response): string | null {
  const set = res.headers.get("set-cookie");
  const match = set && new RegExp(`${SESSION_COOKIE}=([0-9A-Za-z]+)`).exec(set);
  return match ? `${SESSION_COOKIE}=${match[1]}` : null;
}

describe("dashboard sessions", () => {
  it("signs the cookie's user in, and nobody without or with a wrong cookie", async () => {
    const { accountId } = await createAccount();
    const user = await createWebUser(accountId, "member");
    const ask = whoAmI(new FakeClock(Date.now()));
    expect(await userOf(await ask(user.cookie))).toMatchObject({ userId: user.userId, role: "member" });
    expect(await userOf(await ask(null))).toBeNull();
    expect(await userOf(await ask(`${SESSION_COOKIE}=${"A".repeat(43)}`))).toBeNull();
    expect(await userOf(await ask(`${SESSION_COOKIE}=not-a-token`))).toBeNull();
  });

  it("rotates the token after an hour; the old one works only during the grace period", async () => {
    const { accountId } = await createAccount();
    const user = await createWebUser(accountId);
    const clock = new FakeClock(Date.now() + SESSION_ROTATE_MS + 1000);
    const ask = whoAmI(clock);
    const first = await ask(user.cookie);
    expect(await userOf(first)).not.toBeNull();
    const rotated = newCookie(first);
    expect(rotated).not.toBeNull();
    expect(rotated).not.toBe(user.cookie);
    expect(first.headers.get("set-cookie")).toMatch(/HttpOnly/i);
    expect(first.headers.get("set-cookie")).toMatch(/Secure/i);
    expect(first.headers.get("set-cookie")).toMatch(/SameSite=Lax/i);
    expect(await userOf(await ask(user.cookie))).not.toBeNull();
    clock.advance(SESSION_ROTATION_GRACE_MS);
    expect(await userOf(await ask(user.cookie))).toBeNull();
    expect(await userOf(await ask(rotated as string))).not.toBeNull();
  });

  it("ends at the absolute lifetime and after idling", async () => {
    const { accountId } = await createAccount();
    const user = await createWebUser(accountId);
    expect(await userOf(await whoAmI(new FakeClock(Date.now() + SESSION_MAX_AGE_MS + 1000))(user.cookie))).toBeNull();
    expect(await userOf(await whoAmI(new FakeClock(Date.now() + SESSION_IDLE_MS + 1000))(user.cookie))).toBeNull();
  });

  it("ends at sign-out, and everywhere at once", async () => {
    const { accountId } = await createAccount();
    const user = await createWebUser(accountId);
    const ask = whoAmI(new FakeClock(Date.now()));
    await revokeSession(env.DB, user.sessionId, Date.now());
    expect(await userOf(await ask(user.cookie))).toBeNull();
    const other = await createSession(env.DB, user, Date.now(), null);
    const third = await createSession(env.DB, user, Date.now(), null);
    await revokeSessionsOfUser(env.DB, user.userId, Date.now());
    expect(await userOf(await ask(`${SESSION_COOKIE}=${other.token}`))).toBeNull();
    expect(await userOf(await ask(`${SESSION_COOKIE}=${third.token}`))).toBeNull();
  });

  it("orders roles admin > member > viewer", () => {
    expect(roleAllows("admin", "member")).toBe(true);
    expect(roleAllows("member", "member")).toBe(true);
    expect(roleAllows("viewer", "member")).toBe(false);
    expect(roleAllows("member", "admin")).toBe(false);
  });
});
