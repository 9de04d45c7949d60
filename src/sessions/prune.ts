import { toIsoSeconds } from "../lib/clock";
import { SESSION_IDLE_MS } from "./session";

/** Used or expired sign-in links are kept this long after they stop working (ms), then deleted: 1 day. */
export const SIGN_IN_LINK_RETENTION_MS = 24 * 3600_000;
/** Most links one prune deletes (the cron runs every minute, so a backlog clears within minutes). */
const PRUNE_BATCH = 1000;

/**
 * Deletes sign-in links that stopped working (expired) more than {@link SIGN_IN_LINK_RETENTION_MS} before `nowMs`,
 * at most 1,000 per call; run by the Worker's every-minute cron (src/index.ts). A used link's `expires_at` is kept, so
 * it goes by the same rule. Returns how many rows it deleted.
 */
export async function pruneSignInLinks(d1: D1Database, nowMs: number): Promise<number> {
  const result = await d1
    .prepare(
      `DELETE FROM sign_in_links WHERE rowid IN (SELECT rowid FROM sign_in_links WHERE expires_at < ?1 LIMIT ?2)`,
    )
    .bind(toIsoSeconds(nowMs - SIGN_IN_LINK_RETENTION_MS), PRUNE_BATCH)
    .run();
  return result.meta.changes ?? 0;
}

/** Ended sessions (revoked, past their absolute expiry, or idle) are kept this long (ms), then deleted: 1 day. */
export const ENDED_SESSION_RETENTION_MS = 24 * 3600_000;

/**
 * Deletes dashboard sessions that ended more than {@link ENDED_SESSION_RETENTION_MS} before `nowMs`: revoked (sign-out,
 * sign out everywhere, a removed user), past `expires_at`, or unused for `SESSION_IDLE_MS` (src/sessions/session.ts
 * refuses all three already). At most 1,000 per call; run by the every-minute cron (src/index.ts). Returns how many
 * rows it deleted.
 */
export async function pruneEndedSessions(d1: D1Database, nowMs: number): Promise<number> {
  const cutoff = toIsoSeconds(nowMs - ENDED_SESSION_RETENTION_MS);
  const result = await d1
    .prepare(
      `DELETE FROM web_sessions WHERE rowid IN (
         SELECT rowid FROM web_sessions WHERE revoked_at < ?1 OR expires_at < ?1 OR last_seen_at < ?2 LIMIT ?3)`,
    )
    .bind(cutoff, toIsoSeconds(nowMs - ENDED_SESSION_RETENTION_MS - SESSION_IDLE_MS), PRUNE_BATCH)
    .run();
  return result.meta.changes ?? 0;
}
