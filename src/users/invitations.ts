import { and, count, desc, eq, gt, isNotNull, isNull, lte, type SQL, sql } from "drizzle-orm";
import type { Database } from "../db/client";
import { accounts } from "../db/schema/accounts";
import { invitations, type UserRole, users } from "../db/schema/users";
import { type Clock, toIsoSeconds } from "../lib/clock";
import { randomBase62, sha256Hex } from "../lib/crypto";
import { ApiError } from "../lib/errors";
import { newId } from "../lib/ids";
import type { PageRequest } from "../lib/jsonapi/pagination";
import { ownedBy } from "../lib/tenant";
import { deliverInvitation, type InvitationTransport } from "./invitation-mail";

/**
 * Invitations to an account's team (issue 28 §Sign-in and accounts; docs/api.md §Team and API keys): an admin (or an
 * API key, which acts as one) invites an e-mail address with a role; the address gets a one-time link to
 * /invitations/accept?token=…; accepting creates the user and signs them in. The token is 256 random bits (43 base62
 * characters); only its SHA-256 is stored (OWASP Forgot Password Cheat Sheet: single use, expiring, hashed at rest).
 */

/** How long an invitation's link works (ms): 7 days. */
export const INVITATION_TTL_MS = 7 * 24 * 3600_000;
/** Most pending invitations an account may have at once (a bound on the e-mails one account can make us send). */
export const MAX_PENDING_INVITATIONS = 100;
/** `code` of the 422 for an address that already belongs to a user. */
export const ALREADY_A_USER_CODE = "taken";

/** A stored invitation. */
export type InvitationRow = typeof invitations.$inferSelect;
/** Where an invitation stands at a given time. */
export type InvitationStatus = "pending" | "accepted" | "revoked" | "expired";
/** The states {@link listInvitations} filters on. */
export const INVITATION_STATUSES: readonly InvitationStatus[] = ["pending", "accepted", "revoked", "expired"];
/** An invitation and its status now (what the serializer shows). */
export type InvitationView = InvitationRow & { status: InvitationStatus };

/** What inviting needs: the database, the clock, how the e-mail leaves, and the origin the link points at. */
export interface InvitationDeps {
  db: Database;
  clock: Clock;
  transport: InvitationTransport;
  /** Origin of the accept link, e.g. `https://tracking.example.com` (PUBLIC_BASE_URL or the request's origin). */
  baseUrl: string;
}

/** Who sent an invitation: a dashboard admin, or null for an API key. */
export type Inviter = { userId: string; email: string } | null;

/** The status of `row` at `nowMs`. */
export function invitationStatus(row: InvitationRow, nowMs: number): InvitationStatus {
  if (row.acceptedAt) return "accepted";
  if (row.revokedAt) return "revoked";
  return Date.parse(row.expiresAt) <= nowMs ? "expired" : "pending";
}

function statusCondition(status: InvitationStatus, now: string): SQL | undefined {
  switch (status) {
    case "accepted":
      return isNotNull(invitations.acceptedAt);
    case "revoked":
      return and(isNull(invitations.acceptedAt), isNotNull(invitations.revokedAt));
    case "expired":
      return and(isNull(invitations.acceptedAt), isNull(invitations.revokedAt), lte(invitations.expiresAt, now));
    case "pending":
      return and(isNull(invitations.acceptedAt), isNull(invitations.revokedAt), gt(invitations.expiresAt, now));
  }
}

/**
 * The accept link's origin: `PUBLIC_BASE_URL` when it is an absolute http(s) URL (its origin), else the origin the
 * request came to.
 */
export function invitationBaseUrl(publicBaseUrl: string | undefined, requestUrl: string): string {
  if (publicBaseUrl) {
    try {
      const url = new URL(publicBaseUrl);
      if (url.protocol === "https:" || url.protocol === "http:") return url.origin;
    } catch {
      // Not a URL: fall back to the request's origin.
    }
  }
  return new URL(requestUrl).origin;
}

/**
 * Invites `email` to the account with `role` (`POST /invitations`, the team page's invite form) and sends the
 * invitation e-mail. An earlier pending invitation of the same address to this account is revoked (the new one
 * replaces it). A removed user of this account may be invited again (accepting restores them with the new role).
 * @throws ApiError 422 `taken` (pointer `/data/attributes/email`) when the address belongs to an active user, or to a
 *   user of another account (addresses are unique across the service); 422 `limit` at
 *   {@link MAX_PENDING_INVITATIONS} pending invitations; 503 when the e-mail cannot be sent (nothing is
 *   kept: the invitation is deleted again).
 */
export async function inviteUser(
  deps: InvitationDeps,
  accountId: string,
  input: { email: string; role: UserRole },
  inviter: Inviter,
): Promise<InvitationView> {
  const email = input.email.trim().toLowerCase();
  const [existing] = await deps.db
    .select({ accountId: users.accountId, disabledAt: users.disabledAt })
    .from(users)
    .where(eq(users.email, email))
    .limit(1);
  if (existing && (existing.accountId !== accountId || existing.disabledAt === null)) {
    throw ApiError.invalidField(
      "/data/attributes/email",
      existing.accountId === accountId
        ? "this address already belongs to a member of the team"
        : "this address already belongs to a user of another account",
      ALREADY_A_USER_CODE,
    );
  }
  const nowMs = deps.clock.now();
  const now = toIsoSeconds(nowMs);
  const [[account], [pending]] = await deps.db.batch([
    deps.db.select({ name: accounts.name }).from(accounts).where(eq(accounts.id, accountId)).limit(1),
    deps.db
      .select({ n: count() })
      .from(invitations)
      .where(and(eq(invitations.accountId, accountId), statusCondition("pending", now))),
  ]);
  if ((pending?.n ?? 0) >= MAX_PENDING_INVITATIONS) {
    throw ApiError.invalidField(
      "/data/attributes/email",
      `the account already has ${MAX_PENDING_INVITATIONS} pending invitations; withdraw some first`,
      "limit",
    );
  }
  const token = randomBase62(43);
  const row: InvitationRow = {
    id: newId(),
    accountId,
    email,
    role: input.role,
    invitedByUserId: inviter?.userId ?? null,
    tokenHash: await sha256Hex(token),
    createdAt: now,
    expiresAt: toIsoSeconds(nowMs + INVITATION_TTL_MS),
    acceptedAt: null,
    revokedAt: null,
  };
  await deps.db.batch([
    deps.db
      .update(invitations)
      .set({ revokedAt: now })
      .where(and(eq(invitations.accountId, accountId), eq(invitations.email, email), statusCondition("pending", now))),
    deps.db.insert(invitations).values(row),
  ]);
  const delivery = await deliverInvitation(deps.transport, {
    to: email,
    accountName: account?.name ?? "your team",
    role: input.role,
    invitedBy: inviter?.email ?? null,
    link: `${deps.baseUrl}/invitations/accept?token=${token}`,
    expiresAt: row.expiresAt,
  });
  if (delivery.via === "none") {
    await deps.db.delete(invitations).where(eq(invitations.id, row.id));
    throw new ApiError(503, [
      { detail: `The invitation e-mail could not be sent (${delivery.error}); nothing was kept.` },
    ]);
  }
  return { ...row, status: "pending" };
}

/**
 * A page of the account's invitations, newest first, optionally only those in one status, and their total (one D1
 * round trip).
 */
export async function listInvitations(
  db: Database,
  accountId: string,
  page: PageRequest,
  nowMs: number,
  status?: InvitationStatus,
): Promise<{ rows: InvitationView[]; total: number }> {
  const where = and(
    eq(invitations.accountId, accountId),
    status ? statusCondition(status, toIsoSeconds(nowMs)) : undefined,
  );
  const [rows, totals] = await db.batch([
    db
      .select()
      .from(invitations)
      .where(where)
      .orderBy(desc(invitations.createdAt), desc(invitations.id))
      .limit(page.size)
      .offset(page.offset),
    db.select({ n: count() }).from(invitations).where(where),
  ]);
  return { rows: rows.map((r) => ({ ...r, status: invitationStatus(r, nowMs) })), total: totals[0]?.n ?? 0 };
}

/** One invitation of the account. @throws ApiError 404 when absent or another account's. */
export async function getInvitation(
  db: Database,
  accountId: string,
  id: string,
  nowMs: number,
): Promise<InvitationView> {
  const [row] = await db
    .select()
    .from(invitations)
    .where(and(ownedBy(invitations.accountId, accountId), eq(invitations.id, id)))
    .limit(1);
  if (!row) throw ApiError.notFound("Couldn't find Invitation");
  return { ...row, status: invitationStatus(row, nowMs) };
}

/**
 * Revokes an invitation (`DELETE /invitations/{id}`): its link stops working. Revoking one already revoked or expired
 * changes nothing.
 * @throws ApiError 404 when absent or another account's; 422 `accepted` when it was already accepted (remove the
 *   user instead).
 */
export async function revokeInvitation(deps: { db: Database; clock: Clock }, accountId: string, id: string) {
  const nowMs = deps.clock.now();
  const current = await getInvitation(deps.db, accountId, id, nowMs);
  if (current.status === "accepted") {
    throw ApiError.invalidField("/data/id", "this invitation was accepted; remove the user instead", "accepted");
  }
  await deps.db
    .update(invitations)
    .set({ revokedAt: toIsoSeconds(nowMs) })
    .where(and(eq(invitations.id, id), isNull(invitations.acceptedAt), isNull(invitations.revokedAt)));
}

/** An invitation found by its link's token, with the name of the account it is to. */
export interface InvitationByToken {
  invitation: InvitationView;
  accountName: string;
}

/** The invitation a link's token names (any status), or null for a token that names none. */
export async function invitationByToken(db: Database, token: string, nowMs: number): Promise<InvitationByToken | null> {
  if (!/^[0-9A-Za-z]{43}$/.test(token)) return null;
  const [found] = await db
    .select({ invitation: invitations, accountName: accounts.name })
    .from(invitations)
    .innerJoin(accounts, eq(accounts.id, invitations.accountId))
    .where(eq(invitations.tokenHash, await sha256Hex(token)))
    .limit(1);
  if (!found) return null;
  return {
    invitation: { ...found.invitation, status: invitationStatus(found.invitation, nowMs) },
    accountName: found.accountName,
  };
}

/** The 400 of an invitation link that does not work (null: unknown token), its reason in words for the page. */
export function unusableInvitation(status: InvitationStatus | null): ApiError {
  const detail =
    status === "accepted"
      ? "This invitation was already used. Sign in instead."
      : status === "revoked"
        ? "This invitation was withdrawn. Ask an admin of the team for a new one."
        : status === "expired"
          ? "This invitation has expired. Ask an admin of the team for a new one."
          : "This invitation link is not valid.";
  return new ApiError(400, [{ detail, code: status ?? "invalid" }]);
}

/**
 * Accepts an invitation: claims it (one conditional write, so a link works once even when clicked twice at once),
 * then creates the user with the invitation's address and role (or restores a removed user of the same account with
 * that role). The caller starts the session (`createSession`).
 * @param name the display name the invitee typed, or null.
 * @returns the user to sign in.
 * @throws ApiError 400 (`accepted`, `revoked`, `expired`, `invalid`) when the link does not work, or when the address
 *   meanwhile became another account's user (the claim is undone).
 */
export async function acceptInvitation(
  deps: { db: Database; clock: Clock },
  token: string,
  name: string | null,
): Promise<{ userId: string; accountId: string }> {
  const nowMs = deps.clock.now();
  const now = toIsoSeconds(nowMs);
  const found = await invitationByToken(deps.db, token, nowMs);
  if (found?.invitation.status !== "pending") throw unusableInvitation(found?.invitation.status ?? null);
  const [claimed] = await deps.db
    .update(invitations)
    .set({ acceptedAt: now })
    .where(and(eq(invitations.id, found.invitation.id), statusCondition("pending", now)))
    .returning();
  if (!claimed) throw unusableInvitation("accepted");
  const displayName = name?.trim() ? name.trim() : null;
  await deps.db
    .insert(users)
    .values({
      id: newId(),
      accountId: claimed.accountId,
      email: claimed.email,
      name: displayName,
      role: claimed.role,
      createdAt: now,
    })
    .onConflictDoUpdate({
      target: users.email,
      set: { role: claimed.role, disabledAt: null, name: sql`coalesce(excluded.name, ${users.name})` },
      setWhere: sql`${users.accountId} = ${claimed.accountId} AND ${users.disabledAt} IS NOT NULL`,
    });
  const [user] = await deps.db
    .select({ id: users.id, accountId: users.accountId, disabledAt: users.disabledAt })
    .from(users)
    .where(eq(users.email, claimed.email))
    .limit(1);
  if (!user || user.accountId !== claimed.accountId || user.disabledAt !== null) {
    await deps.db.update(invitations).set({ acceptedAt: null }).where(eq(invitations.id, claimed.id));
    throw new ApiError(400, [{ detail: "This address already belongs to another account.", code: "taken" }]);
  }
  return { userId: user.id, accountId: user.accountId };
}
