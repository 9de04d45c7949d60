import { and, count, desc, eq, isNull } from "drizzle-orm";
import type { Database } from "../db/client";
import { apiKeys } from "../db/schema/accounts";
import { type Clock, toIsoSeconds } from "../lib/clock";
import { generateApiKey, sha256Hex } from "../lib/crypto";
import { ApiError } from "../lib/errors";
import { newId } from "../lib/ids";
import type { PageRequest } from "../lib/jsonapi/pagination";
import { ownedBy } from "../lib/tenant";
import { forgetRevokedApiKey } from "../middleware/auth";

/**
 * An account's API keys (issue 28 §Settings: "API keys (create, revoke)"; docs/decisions.md §Accounts and keys;
 * docs/api.md §Team and API keys), for REST (`/v2/api_keys`) and the dashboard's API keys page alike. A key is
 * `svc_live_` or `svc_test_` and 43 base62 characters (256 bits, `generateApiKey`); D1 keeps only its SHA-256 and its
 * first {@link KEY_PREFIX_LENGTH} characters, so the key itself is shown once, when it is created, and never again.
 */

/** Characters of a key kept and shown as its prefix (`svc_test_AbCd`), as scripts/lib/api-keys.mjs keeps them. */
export const KEY_PREFIX_LENGTH = 13;
/** Most active (unrevoked) keys an account may hold at once. */
export const MAX_ACTIVE_KEYS = 50;

/** An `api_keys` row as drizzle returns it (its `keyHash` is never served). */
export type ApiKeyRow = typeof apiKeys.$inferSelect;
/** A key just created: its row and the plaintext key, to show once. */
export type CreatedApiKey = ApiKeyRow & { key: string };

/** Whether keys made here are `live` or `test` keys (docs/decisions.md §Accounts and keys). */
export type KeyEnvironment = "live" | "test";

/**
 * The environment of keys this deployment makes, as `npm run keys` decides (scripts/keys.mjs: the local D1 gets
 * `svc_test_` keys, a deployed one `svc_live_`): `test` when the Worker is reached on a loopback host (`wrangler dev`,
 * `npm start`: localhost, 127.0.0.1, [::1]), else `live`.
 */
export function keyEnvironmentOf(requestUrl: string): KeyEnvironment {
  const host = new URL(requestUrl).hostname;
  return host === "localhost" || host === "127.0.0.1" || host === "[::1]" || host.endsWith(".localhost")
    ? "test"
    : "live";
}

/** A page of the account's keys, revoked ones included, newest first, and their total (one D1 round trip). */
export async function listApiKeys(
  db: Database,
  accountId: string,
  page: PageRequest,
): Promise<{ rows: ApiKeyRow[]; total: number }> {
  const [rows, totals] = await db.batch([
    db
      .select()
      .from(apiKeys)
      .where(eq(apiKeys.accountId, accountId))
      .orderBy(desc(apiKeys.createdAt), desc(apiKeys.id))
      .limit(page.size)
      .offset(page.offset),
    db.select({ n: count() }).from(apiKeys).where(eq(apiKeys.accountId, accountId)),
  ]);
  return { rows, total: totals[0]?.n ?? 0 };
}

/** One key of the account. @throws ApiError 404 when absent or another account's. */
export async function getApiKey(db: Database, accountId: string, id: string): Promise<ApiKeyRow> {
  const [row] = await db
    .select()
    .from(apiKeys)
    .where(and(ownedBy(apiKeys.accountId, accountId), eq(apiKeys.id, id)))
    .limit(1);
  if (!row) throw ApiError.notFound("Couldn't find ApiKey");
  return row;
}

/**
 * Creates a key named `name` for the account; the returned `key` is the only copy of it anywhere.
 * @throws ApiError 422 `limit` when the account already holds {@link MAX_ACTIVE_KEYS} active keys.
 */
export async function createApiKey(
  deps: { db: Database; clock: Clock },
  accountId: string,
  name: string,
  environment: KeyEnvironment,
): Promise<CreatedApiKey> {
  const [active] = await deps.db
    .select({ n: count() })
    .from(apiKeys)
    .where(and(eq(apiKeys.accountId, accountId), isNull(apiKeys.revokedAt)));
  if ((active?.n ?? 0) >= MAX_ACTIVE_KEYS) {
    throw ApiError.invalidField(
      "/data/attributes/name",
      `the account already has ${MAX_ACTIVE_KEYS} active keys; revoke one first`,
      "limit",
    );
  }
  const key = generateApiKey(environment);
  const [row] = await deps.db
    .insert(apiKeys)
    .values({
      id: newId(),
      accountId,
      name: name.trim(),
      keyHash: await sha256Hex(key),
      prefix: key.slice(0, KEY_PREFIX_LENGTH),
      createdAt: toIsoSeconds(deps.clock.now()),
    })
    .returning();
  if (!row) throw new Error("api key insert returned no row");
  return { ...row, key };
}

/**
 * Revokes a key: it stops authenticating at once in this isolate (its cache entry is dropped) and within
 * `AUTH_CACHE_TTL_SECONDS` (default 5 s) everywhere (src/middleware/key-cache.ts). The key making the request may
 * revoke itself. Revoking a revoked key changes nothing.
 * @returns the key as it is now.
 * @throws ApiError 404 when absent or another account's.
 */
export async function revokeApiKey(
  deps: { db: Database; clock: Clock },
  accountId: string,
  id: string,
): Promise<ApiKeyRow> {
  const current = await getApiKey(deps.db, accountId, id);
  if (current.revokedAt) return current;
  const [row] = await deps.db
    .update(apiKeys)
    .set({ revokedAt: toIsoSeconds(deps.clock.now()) })
    .where(and(ownedBy(apiKeys.accountId, accountId), eq(apiKeys.id, id), isNull(apiKeys.revokedAt)))
    .returning();
  forgetRevokedApiKey(id);
  return row ?? (await getApiKey(deps.db, accountId, id));
}
