import { Hono } from "hono";
import { CsrfField, Layout } from "../dashboard/layout";
import type { AppEnv, SignedInUser } from "../env";
import { toIsoSeconds } from "../lib/clock";
import { SESSION_IDLE_MS } from "./session";

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
          </tr>
        </thead>
        <tbody>
          {sessions.map((s) => (
            <tr>
              <td>
                <time datetime={s.createdAt}>{s.createdAt.replace("T", " ").replace("Z", "")}</time>
              </td>
              <td>
                <time datetime={s.lastSeenAt}>{s.lastSeenAt.replace("T", " ").replace("Z", "")}</time>
              </td>
              <td>{s.userAgent ?? "unknown"}</td>
              <td>{s.id === user.sessionId ? "Yes, this one" : "No"}</td>
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

/** GET /app/account (mounted in src/dashboard/routes.tsx). */
export const accountRoutes = new Hono<AppEnv>();

accountRoutes.get("/", async (c) => {
  const user = c.get("user");
  const sessions = await listActiveSessions(c.env.DB, user.userId, c.get("clock").now());
  return c.html(`<!doctype html>${<AccountPage user={user} sessions={sessions} />}`);
});
