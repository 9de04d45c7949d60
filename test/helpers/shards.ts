import { applyD1Migrations, env } from "cloudflare:test";
import { generateApiKey, sha256Hex } from "../../src/lib/crypto";
import { newId } from "../../src/lib/ids";
import { seedReferenceData } from "../../src/reference/seed";
import type { TestAccount } from "./api";

/**
 * The test pool's second shard (`DB_1`, vitest.config.ts), prepared as a deployment's would be: the migrations and the
 * reference data. Files that use it call this in `beforeAll`; it is idempotent.
 */
export async function prepareSecondShard(): Promise<D1Database> {
  const d1 = env.DB_1;
  if (!d1) throw new Error("the test pool has no DB_1 binding (vitest.config.ts d1Databases)");
  await applyD1Migrations(d1, env.TEST_MIGRATIONS);
  await seedReferenceData(d1);
  return d1;
}

/**
 * Creates an account on shard `shard` with one API key, as `npm run keys -- create` does: the account (with its
 * shard) and the key in the primary, and a copy of the account row in the shard (its rows' foreign keys point at it).
 */
export async function createAccountOnShard(shard: number, name = "Acme"): Promise<TestAccount> {
  const accountId = newId();
  const apiKeyId = newId();
  const key = generateApiKey("test");
  const now = new Date().toISOString().replace(/\.\d{3}Z$/, "Z");
  const insertAccount =
    "INSERT INTO accounts (id, name, entitlements, shard, created_at) VALUES (?1, ?2, '[]', ?3, ?4)";
  await env.DB.batch([
    env.DB.prepare(insertAccount).bind(accountId, name, shard, now),
    env.DB.prepare(
      "INSERT INTO api_keys (id, account_id, name, key_hash, prefix, created_at) VALUES (?1, ?2, 'test', ?3, ?4, ?5)",
    ).bind(apiKeyId, accountId, await sha256Hex(key), key.slice(0, 13), now),
  ]);
  if (shard !== 0) {
    const d1 = shard === 1 ? env.DB_1 : undefined;
    if (!d1) throw new Error(`the test pool has no binding for shard ${shard}`);
    await d1.prepare(insertAccount).bind(accountId, name, shard, now).run();
  }
  return { accountId, apiKeyId, key };
}
