import { and, asc, count, eq, isNull, type SQL, sql } from "drizzle-orm";
import type { Database } from "../db/client";
import { type UserRole, users } from "../db/schema/users";
import { type Clock, toIsoSeconds } from "../lib/clock";
import { ApiError } from "../lib/errors";
import type { PageRequest } from "../lib/jsonapi/pagination";
import { ownedBy } from "../lib/tenant";
import { revokeSessionsOfUser } from "../sessions/session";

/**
 * The account's team (issue 28 §Sign-in and accounts; docs/api.md §Team and API keys): the users who sign in to the
 * dashboard, their roles, and removing them. The same functions serve REST (`/v2/users`, where an API key acts as an
 * admin of its account) and the dashboard's team page (src/dashboard/team-page.tsx).
 *
 * The rule every change keeps: an account keeps at least one admin (an active user with role `admin`), so someone can
 * always manage its team and keys. The check is part of the write's own `WHERE` (one statement), so two admins
 * demoting each other at once cannot both succeed.
 */

/** A `users` row as drizzle returns it. */
export type UserRow = typeof users.$inferSelect;

/** What the team services need: drizzle, the raw D1 binding (sessions are revoked through it) and the clock. */
export interface UserDeps {
  db: Database;
  d1: D1Database;
  clock: Clock;
}

/** A change to a user: either field may be absent (left as it is). */
export interface UserChange {
  role?: UserRole;
  /** Display name; null clears it. */
  name?: string | null;
}

/** `code` of the 422 refusing to demote or remove the account's last admin. */
export const LAST_ADMIN_CODE = "last_admin";

/**
 * SQL true when changing or removing user `id` of `accountId` leaves the account an admin: another active admin
 * exists. Evaluated inside the write's `WHERE`, so it sees the same state the write changes.
 */
function anotherAdminRemains(accountId: string, id: string): SQL {
  return sql`EXISTS (SELECT 1 FROM users o WHERE o.account_id = ${accountId} AND o.role = 'admin'
    AND o.disabled_at IS NULL AND o.id <> ${id})`;
}

function lastAdminError(what: string): ApiError {
  return new ApiError(422, [
    {
      detail: `${what} would leave the account without an admin; make another member an admin first`,
      source: { pointer: "/data/attributes/role" },
      code: LAST_ADMIN_CODE,
    },
  ]);
}

/**
 * A page of the account's active users (not removed), oldest first (the account's first admin on top), and their
 * total, in one D1 round trip.
 */
export async function listUsers(
  db: Database,
  accountId: string,
  page: PageRequest,
): Promise<{ rows: UserRow[]; total: number }> {
  const active = and(eq(users.accountId, accountId), isNull(users.disabledAt));
  const [rows, totals] = await db.batch([
    db
      .select()
      .from(users)
      .where(active)
      .orderBy(asc(users.createdAt), asc(users.id))
      .limit(page.size)
      .offset(page.offset),
    db.select({ n: count() }).from(users).where(active),
  ]);
  return { rows, total: totals[0]?.n ?? 0 };
}

/**
 * One user of the account, removed ones included (with `disabled_at`).
 * @throws ApiError 404 when absent or another account's.
 */
export async function getUser(db: Database, accountId: string, id: string): Promise<UserRow> {
  const [row] = await db
    .select()
    .from(users)
    .where(and(ownedBy(users.accountId, accountId), eq(users.id, id)))
    .limit(1);
  if (!row) throw ApiError.notFound("Couldn't find User");
  return row;
}

/**
 * Changes a user's role and/or name (`PATCH /users/{id}`, the team page's role select).
 * @throws ApiError 404 when absent or another account's; 422 `removed` for a removed user; 422 `last_admin` when it
 *   would demote the account's last admin.
 */
export async function updateUser(deps: UserDeps, accountId: string, id: string, change: UserChange): Promise<UserRow> {
  const current = await getUser(deps.db, accountId, id);
  if (current.disabledAt) {
    throw ApiError.invalidField("/data/id", "this user was removed from the team; invite them again", "removed");
  }
  const set: Partial<UserRow> = {};
  if (change.role !== undefined) set.role = change.role;
  if (change.name !== undefined)
    set.name = change.name === null || change.name.trim() === "" ? null : change.name.trim();
  if (Object.keys(set).length === 0) return current;
  const demoting = change.role !== undefined && change.role !== "admin";
  const [row] = await deps.db
    .update(users)
    .set(set)
    .where(
      and(
        ownedBy(users.accountId, accountId),
        eq(users.id, id),
        isNull(users.disabledAt),
        demoting ? sql`(${users.role} <> 'admin' OR ${anotherAdminRemains(accountId, id)})` : undefined,
      ),
    )
    .returning();
  if (row) return row;
  // Nothing written: removed meanwhile, or the last admin.
  const now = await getUser(deps.db, accountId, id);
  if (now.disabledAt) throw ApiError.invalidField("/data/id", "this user was removed from the team", "removed");
  throw lastAdminError("Demoting this user");
}

/**
 * Removes a user from the team (`DELETE /users/{id}`): sets `disabled_at`, ends every session of theirs
 * (`revokeSessionsOfUser`) and voids their unused sign-in links. The row stays (its history, e.g. who invited whom).
 * Removing a user already removed changes nothing.
 * @throws ApiError 404 when absent or another account's; 422 `last_admin` when they are the account's last admin.
 */
export async function removeUser(deps: UserDeps, accountId: string, id: string): Promise<void> {
  const current = await getUser(deps.db, accountId, id);
  if (current.disabledAt) return;
  const nowMs = deps.clock.now();
  const now = toIsoSeconds(nowMs);
  const [row] = await deps.db
    .update(users)
    .set({ disabledAt: now })
    .where(
      and(
        ownedBy(users.accountId, accountId),
        eq(users.id, id),
        isNull(users.disabledAt),
        sql`(${users.role} <> 'admin' OR ${anotherAdminRemains(accountId, id)})`,
      ),
    )
    .returning({ id: users.id });
  if (!row) {
    if ((await getUser(deps.db, accountId, id)).disabledAt) return;
    throw lastAdminError("Removing this user");
  }
  await revokeSessionsOfUser(deps.d1, id, nowMs);
  await deps.d1
    .prepare("UPDATE sign_in_links SET used_at = ?1 WHERE user_id = ?2 AND used_at IS NULL")
    .bind(now, id)
    .run();
}
