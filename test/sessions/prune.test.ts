import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { sha256Hex } from "../../src/lib/crypto";
import { pruneSignInLinks, SIGN_IN_LINK_RETENTION_MS } from "../../src/sessions/prune";
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
