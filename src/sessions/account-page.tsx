import { Hono } from "hono";
import { CsrfField, Layout } from "../dashboard/layout";
import type { AppEnv, SignedInUser } from "../env";
import { toIsoSeconds } from "../lib/clock";
import { ApiError } from "../lib/errors";
import { clearSessionCookie, SESSION_IDLE_MS } from "./session";

/** One live session of a user, as the account page lists it. */
export interface ActiveSession {
  id: string;
  /** ISO 8601 UTC, seconds. */
  createdAt: string;
  /** ISO 8601 UTC, seconds (refreshed at most once a minute). */
  lastSeenAt: string;
  /** The browser's `User-Agent` at sign-in (first 200 characters), or null. */
  userAgent: string | null;
}

/** Most sessions listed. */
const MAX_LISTED_SESSIONS = 50;

/**
 * The user's sessions that still work at `nowMs` (not revoked, not past their absolute expiry or idle limit), most
 * recently used first, at most 50.
 */
export async function listActiveSessions(d1: D1Database, userId: string, nowMs: number): Promise<ActiveSession[]> {
  const { results } = await d1
    .prepare(
      `SELECT id, created_at AS createdAt, last_seen_at AS lastSeenAt, user_agent AS userAgent FROM web_sessions
        WHERE user_id = ?1 AND revoked_at IS NULL AND expires_at > ?2 AND last_seen_at > ?3
        ORDER BY last_seen_at DESC, id DESC LIMIT ?4`,
    )
    .bind(userId, toIsoSeconds(nowMs), toIsoSeconds(nowMs - SESSION_IDLE_MS), MAX_LISTED_SESSIONS)
    .all<ActiveSession>();
  return results;
}

/**
 * Ends one session of `userId` (the "End" button of the account page). Returns false when the user has no such live
 * session (unknown id, another user's, already ended), which the page answers 404.
 */
export async function endSessionOfUser(
  d1: D1Database,
  userId: string,
  sessionId: string,
  nowMs: number,
): Promise<boolean> {
  const result = await d1
    .prepare("UPDATE web_sessions SET revoked_at = ?3 WHERE id = ?1 AND user_id = ?2 AND revoked_at IS NULL")
    .bind(sessionId, userId, toIsoSeconds(nowMs))
    .run();
  return result.meta.changes === 1;
}

/** "2026-12-01T22:30:31Z" → "2026-12-01 22:30:31" (shown in UTC, the column says so). */
function utc(iso: string): string {
  return iso.replace("T", " ").replace("Z", "");
}

/** The account page: who is signed in, their sessions, and "Sign out everywhere". */
export function AccountPage({ user, sessions }: { user: SignedInUser; sessions: ActiveSession[] }) {
  return (
    <Layout title="Your account" user={user} current="/app/account">
      <p>
        Signed in as <strong>{user.email}</strong> (role: {user.role}).
      </p>
      <table aria-label="Your active sessions">
        <caption>Active sessions</caption>
        <thead>
          <tr>
            <th scope="col">Signed in (UTC)</th>
            <th scope="col">Last seen (UTC)</th>
            <th scope="col">Browser</th>
            <th scope="col">This session</th>
            <th scope="col">End</th>
          </tr>
        </thead>
        <tbody>
          {sessions.map((s) => (
            <tr>
              <td>
                <time datetime={s.createdAt}>{utc(s.createdAt)}</time>
              </td>
              <td>
                <time datetime={s.lastSeenAt}>{utc(s.lastSeenAt)}</time>
              </td>
              <td>{s.userAgent ?? "unknown"}</td>
              <td>{s.id === user.sessionId ? "Yes, this one" : "No"}</td>
              <td>
                <form method="post" action={`/app/account/sessions/${encodeURIComponent(s.id)}/end`}>
                  <CsrfField user={user} />
                  <button type="submit" aria-label={`End the session signed in at ${utc(s.createdAt)} UTC`}>
                    {s.id === user.sessionId ? "End (sign out)" : "End"}
                  </button>
                </form>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <form method="post" action="/sign-out/everywhere">
        <CsrfField user={user} />
        <p>Ends every session of yours, on every device, this one included.</p>
        <button type="submit">Sign out everywhere</button>
      </form>
    </Layout>
  );
}

/**
 * GET /app/account and POST /app/account/sessions/{id}/end (mounted in src/dashboard/routes.tsx, so behind
 * `requireSignedIn` and `verifyCsrf`). Ending the current session signs out (cookie cleared, 303 /sign-in); another
 * one returns to the page; a session that is not the user's live one is a 404.
 */
export const accountRoutes = new Hono<AppEnv>();

accountRoutes.get("/", async (c) => {
  const user = c.get("user");
  const sessions = await listActiveSessions(c.env.DB, user.userId, c.get("clock").now());
  return c.html(`<!doctype html>${<AccountPage user={user} sessions={sessions} />}`);
});

accountRoutes.post("/sessions/:id/end", async (c) => {
  const user = c.get("user");
  const id = c.req.param("id");
  if (!(await endSessionOfUser(c.env.DB, user.userId, id, c.get("clock").now()))) {
    throw ApiError.notFound("No such session of yours.");
  }
  if (id === user.sessionId) {
    clearSessionCookie(c);
    return c.redirect("/sign-in", 303);
  }
  return c.redirect("/app/account", 303);
});
