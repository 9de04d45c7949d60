import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { sha256Hex } from "../../src/lib/crypto";
import {
  ENDED_SESSION_RETENTION_MS,
  pruneEndedSessions,
  pruneSignInLinks,
  SIGN_IN_LINK_RETENTION_MS,
} from "../../src/sessions/prune";
import { createSession, revokeSession, SESSION_IDLE_MS, SESSION_MAX_AGE_MS } from "../../src/sessions/session";
import { consumeSignInLink, createSignInLink, SIGN_IN_LINK_TTL_MS } from "../../src/sessions/sign-in-links";
import { createAccount } from "../helpers/api";
import { createWebUser } from "../helpers/web-session";

async function exists(token: string): Promise<boolean> {
  const row = await env.DB.prepare("SELECT 1 AS x FROM sign_in_links WHERE token_hash = ?1")
    .bind(await sha256Hex(token))
    .first();
  return row !== null;
}

describe("pruneSignInLinks", () => {
  it("deletes links a day past their expiry, used or not, and keeps the others", async () => {
    const { accountId } = await createAccount();
    const user = await createWebUser(accountId, "member");
    const nowMs = Date.now();
    const longGone = nowMs - SIGN_IN_LINK_TTL_MS - SIGN_IN_LINK_RETENTION_MS - 60_000;
    const oldUnused = await createSignInLink(env.DB, user.userId, longGone);
    const oldUsed = await createSignInLink(env.DB, user.userId, longGone);
    await consumeSignInLink(env.DB, oldUsed, longGone + 1000);
    const recentlyExpired = await createSignInLink(env.DB, user.userId, nowMs - SIGN_IN_LINK_TTL_MS - 60_000);
    const live = await createSignInLink(env.DB, user.userId, nowMs);

    expect(await pruneSignInLinks(env.DB, nowMs)).toBe(2);
    expect(await exists(oldUnused)).toBe(false);
    expect(await exists(oldUsed)).toBe(false);
    expect(await exists(recentlyExpired)).toBe(true);
    expect(await exists(live)).toBe(true);
    expect(await pruneSignInLinks(env.DB, nowMs)).toBe(0);
  });
});

describe("pruneEndedSessions", () => {
  async function sessionExists(id: string): Promise<boolean> {
    return (await env.DB.prepare("SELECT 1 AS x FROM web_sessions WHERE id = ?1").bind(id).first()) !== null;
  }

  it("deletes sessions a day after they were revoked, expired or went idle, and keeps the others", async () => {
    const { accountId } = await createAccount();
    const user = await createWebUser(accountId, "member");
    const nowMs = Date.now();
    const day = 24 * 3600_000;
    const revokedLongAgo = await createSession(env.DB, user, nowMs - 3 * day, null);
    await revokeSession(env.DB, revokedLongAgo.sessionId, nowMs - ENDED_SESSION_RETENTION_MS - 60_000);
    const revokedRecently = await createSession(env.DB, user, nowMs - 3 * day, null);
    await revokeSession(env.DB, revokedRecently.sessionId, nowMs - 60_000);
    const expired = await createSession(
      env.DB,
      user,
      nowMs - SESSION_MAX_AGE_MS - ENDED_SESSION_RETENTION_MS - 60_000,
      null,
    );
    const idle = await createSession(env.DB, user, nowMs - SESSION_IDLE_MS - ENDED_SESSION_RETENTION_MS - 60_000, null);
    const idleRecently = await createSession(env.DB, user, nowMs - SESSION_IDLE_MS - 60_000, null);

    expect(await pruneEndedSessions(env.DB, nowMs)).toBe(3);
    expect(await sessionExists(revokedLongAgo.sessionId)).toBe(false);
    expect(await sessionExists(expired.sessionId)).toBe(false);
    expect(await sessionExists(idle.sessionId)).toBe(false);
    expect(await sessionExists(revokedRecently.sessionId)).toBe(true);
    expect(await sessionExists(idleRecently.sessionId)).toBe(true);
    expect(await sessionExists(user.sessionId)).toBe(true);
    expect(await pruneEndedSessions(env.DB, nowMs)).toBe(0);
  });
});
