import type { Context, MiddlewareHandler } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import type { UserRole } from "../db/schema/users";
import { accountShard, shardDb } from "../db/shards";
import type { AppEnv, SignedInUser } from "../env";
import { toIsoSeconds } from "../lib/clock";
import { randomBase62, sha256Hex } from "../lib/crypto";
import { ApiError } from "../lib/errors";
import { newId } from "../lib/ids";

/**
 * Dashboard sessions (issue 28 §Sign-in and accounts; OWASP Session Management Cheat Sheet): a random 256-bit token
 * in an `HttpOnly; Secure; SameSite=Lax` cookie with the `__Host-` prefix (no Domain, Path=/, so no subdomain can
 * plant or read it); D1 keeps only its SHA-256. A session ends after {@link SESSION_MAX_AGE_MS} (absolute),
 * {@link SESSION_IDLE_MS} without use, at sign-out, or when the user signs out everywhere; its token is replaced every
 * {@link SESSION_ROTATE_MS} (and at sign-in, so a token planted before sign-in never becomes a session: no fixation).
 */
export const SESSION_COOKIE = "__Host-session";
/** The cookie's name without its `__Host-` prefix (hono/cookie adds the prefix from its `prefix: "host"` option). */
const SESSION_COOKIE_BASE = "session";
/** Absolute lifetime of a session (ms): 30 days. */
export const SESSION_MAX_AGE_MS = 30 * 24 * 3600_000;
/** A session unused for this long (ms) is over: 7 days. */
export const SESSION_IDLE_MS = 7 * 24 * 3600_000;
/** The token of a session older than this since its last rotation (ms) is replaced on its next request: 1 hour. */
export const SESSION_ROTATE_MS = 3600_000;
/** After a rotation the previous token still works this long (ms), for requests already in flight: 60 s. */
export const SESSION_ROTATION_GRACE_MS = 60_000;
/** `last_seen_at` is written at most this often (ms). */
const LAST_SEEN_RESOLUTION_MS = 60_000;

/** A new session's id and the token its cookie carries. */
export interface NewSession {
  sessionId: string;
  token: string;
}

interface SessionRow {
  id: string;
  token_hash: string;
  previous_token_hash: string | null;
  user_id: string;
  account_id: string;
  last_seen_at: string;
  rotated_at: string;
  expires_at: string;
  email: string;
  name: string | null;
  role: UserRole;
  csrf_token: string;
}

/**
 * Starts a session for `userId` (after a sign-in link, an invitation or the OAuth consent's sign-in) and returns its
 * token for the cookie ({@link setSessionCookie}). Stamps the user's `last_signed_in_at`.
 */
export async function createSession(
  d1: D1Database,
  user: { userId: string; accountId: string },
  nowMs: number,
  userAgent: string | null,
): Promise<NewSession> {
  const sessionId = newId();
  const token = randomBase62(43);
  const now = toIsoSeconds(nowMs);
  await d1.batch([
    d1
      .prepare(
        `INSERT INTO web_sessions (id, token_hash, user_id, account_id, created_at, last_seen_at, rotated_at, expires_at,
                                   user_agent, csrf_token)
         VALUES (?1, ?2, ?3, ?4, ?5, ?5, ?5, ?6, ?7, ?8)`,
      )
      .bind(
        sessionId,
        await sha256Hex(token),
        user.userId,
        user.accountId,
        now,
        toIsoSeconds(nowMs + SESSION_MAX_AGE_MS),
        userAgent?.slice(0, 200) ?? null,
        randomBase62(32),
      ),
    d1.prepare("UPDATE users SET last_signed_in_at = ?1 WHERE id = ?2").bind(now, user.userId),
  ]);
  return { sessionId, token };
}

/** Sets the session cookie (`__Host-`, HttpOnly, Secure, SameSite=Lax, Path=/), expiring with the session. */
export function setSessionCookie(c: Context<AppEnv>, token: string): void {
  setCookie(c, SESSION_COOKIE_BASE, token, {
    path: "/",
    httpOnly: true,
    secure: true,
    sameSite: "Lax",
    maxAge: Math.floor(SESSION_MAX_AGE_MS / 1000),
    prefix: "host",
  });
}

/** Clears the session cookie in the browser. */
export function clearSessionCookie(c: Context<AppEnv>): void {
  deleteCookie(c, SESSION_COOKIE_BASE, { path: "/", secure: true, prefix: "host" });
}

/**
 * The user signed in with the request's session cookie, or null (no cookie, unknown, revoked, expired, idle, or the
 * user disabled). Rotates the token when due (a new cookie is set on the response) and refreshes `last_seen_at`.
 * Reads: one D1 query; writes only when rotating or at most once a minute.
 */
export async function signedInUserOf(c: Context<AppEnv>): Promise<SignedInUser | null> {
  const token = getCookie(c, SESSION_COOKIE_BASE, "host");
  if (!token || !/^[0-9A-Za-z]{43}$/.test(token)) return null;
  const nowMs = c.get("clock").now();
  const hash = await sha256Hex(token);
  const row = await c.env.DB.prepare(
    `SELECT s.id, s.token_hash, s.previous_token_hash, s.user_id, s.account_id, s.last_seen_at, s.rotated_at,
            s.expires_at, s.csrf_token, u.email, u.name, u.role
       FROM web_sessions s JOIN users u ON u.id = s.user_id
      WHERE (s.token_hash = ?1 OR s.previous_token_hash = ?1) AND s.revoked_at IS NULL AND u.disabled_at IS NULL`,
  )
    .bind(hash)
    .first<SessionRow>();
  if (!row) return null;
  if (Date.parse(row.expires_at) <= nowMs || Date.parse(row.last_seen_at) + SESSION_IDLE_MS <= nowMs) return null;
  const rotatedMs = Date.parse(row.rotated_at);
  if (row.token_hash !== hash && rotatedMs + SESSION_ROTATION_GRACE_MS <= nowMs) return null;
  if (row.token_hash === hash && rotatedMs + SESSION_ROTATE_MS <= nowMs) {
    const next = randomBase62(43);
    const now = toIsoSeconds(nowMs);
    const rotated = await c.env.DB.prepare(
      `UPDATE web_sessions SET previous_token_hash = token_hash, token_hash = ?1, rotated_at = ?2, last_seen_at = ?2
        WHERE id = ?3 AND token_hash = ?4`,
    )
      .bind(await sha256Hex(next), now, row.id, hash)
      .run();
    if (rotated.meta.changes === 1) setSessionCookie(c, next);
  } else if (Date.parse(row.last_seen_at) + LAST_SEEN_RESOLUTION_MS <= nowMs) {
    await c.env.DB.prepare("UPDATE web_sessions SET last_seen_at = ?1 WHERE id = ?2")
      .bind(toIsoSeconds(nowMs), row.id)
      .run();
  }
  return {
    userId: row.user_id,
    accountId: row.account_id,
    email: row.email,
    name: row.name,
    role: row.role,
    sessionId: row.id,
    csrfToken: row.csrf_token,
  };
}

/** Ends one session (sign-out). */
export async function revokeSession(d1: D1Database, sessionId: string, nowMs: number): Promise<void> {
  await d1
    .prepare("UPDATE web_sessions SET revoked_at = ?1 WHERE id = ?2 AND revoked_at IS NULL")
    .bind(toIsoSeconds(nowMs), sessionId)
    .run();
}

/** Ends every session of a user (sign out everywhere; a user removed from the team). */
export async function revokeSessionsOfUser(d1: D1Database, userId: string, nowMs: number): Promise<void> {
  await d1
    .prepare("UPDATE web_sessions SET revoked_at = ?1 WHERE user_id = ?2 AND revoked_at IS NULL")
    .bind(toIsoSeconds(nowMs), userId)
    .run();
}

const ROLE_RANK: Record<UserRole, number> = { viewer: 0, member: 1, admin: 2 };

/** Whether `role` may do what needs `least` (admin > member > viewer). */
export function roleAllows(role: UserRole, least: UserRole): boolean {
  return ROLE_RANK[role] >= ROLE_RANK[least];
}

/**
 * Requires a signed-in user for dashboard routes: sets `user` and a `principal` of the user's account (so services and
 * the account scoping work as for an API key). Without a session, a page request (GET/HEAD) is redirected to
 * `/sign-in?next=<path>`; anything else answers 401.
 */
export const requireSignedIn: MiddlewareHandler<AppEnv> = async (c, next) => {
  const user = await signedInUserOf(c);
  if (!user) {
    if (c.req.method === "GET" || c.req.method === "HEAD") {
      const url = new URL(c.req.url);
      return c.redirect(`/sign-in?next=${encodeURIComponent(url.pathname + url.search)}`, 303);
    }
    throw new ApiError(401, [{ detail: "Sign in first." }]);
  }
  c.set("user", user);
  const shard = (await accountShard(c.env, user.accountId)) ?? 0;
  c.set("principal", {
    accountId: user.accountId,
    shard,
    apiKeyId: null,
    keyFingerprint: `session:${user.sessionId}`,
  });
  // The account's rows are on its shard (src/db/shards.ts); users and sessions stay in the primary (`primaryDb`).
  c.set("db", shardDb(c.env, shard));
  await next();
};

/** Requires the signed-in user (after {@link requireSignedIn}) to have at least `least`; else 403. */
export function requireRole(least: UserRole): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const user = c.get("user");
    if (!user || !roleAllows(user.role, least)) {
      throw new ApiError(403, [{ detail: `This needs the ${least} role.` }]);
    }
    await next();
  };
}
