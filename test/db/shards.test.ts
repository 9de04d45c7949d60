import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { accountShard, allShards, dbFor, shardCount, shardForNewAccount } from "../../src/db/shards";
import { createAccountOnShard, prepareSecondShard } from "../helpers/shards";

// The shard seam (src/db/shards.ts): the pool's DB and DB_1 are two shards; an account's rows live on its own.
describe("shards", () => {
  beforeAll(async () => {
    await prepareSecondShard();
  });

  it("finds DB and DB_1 as two shards", () => {
    expect(shardCount(env)).toBe(2);
    expect(allShards(env).map((s) => s.shard)).toEqual([0, 1]);
  });

  it("resolves an account to the database of its recorded shard", async () => {
    const a = await createAccountOnShard(0, "Zero");
    const b = await createAccountOnShard(1, "One");
    expect(await accountShard(env, a.accountId)).toBe(0);
    expect(await accountShard(env, b.accountId)).toBe(1);
    expect(await accountShard(env, "no-such-account")).toBeNull();
    await expect(dbFor(env, "no-such-account")).rejects.toThrow(/no account/);
    // The shard's copy of the account row is in DB_1, and only the primary has the key.
    const shardDb = await dbFor(env, b.accountId);
    const copy = await env.DB_1?.prepare("SELECT name FROM accounts WHERE id = ?1").bind(b.accountId).first();
    expect(copy).toEqual({ name: "One" });
    expect(shardDb).not.toBe(await dbFor(env, a.accountId));
    const keyOnShard = await env.DB_1?.prepare("SELECT COUNT(*) AS n FROM api_keys").first<{ n: number }>();
    expect(keyOnShard?.n).toBe(0);
  });

  it("puts a new account on the shard with the fewest accounts, or on NEW_ACCOUNT_SHARD", async () => {
    // After the test above: shard 0 has the accounts of both tests' creations; add two on shard 1 to tip it.
    const before = await shardForNewAccount(env);
    await createAccountOnShard(before === 0 ? 0 : 1);
    const counts = await env.DB.prepare("SELECT shard, COUNT(*) AS n FROM accounts GROUP BY shard ORDER BY shard").all<{
      shard: number;
      n: number;
    }>();
    const per = new Map(counts.results.map((r) => [r.shard, r.n]));
    const expected = (per.get(1) ?? 0) < (per.get(0) ?? 0) ? 1 : 0;
    expect(await shardForNewAccount(env)).toBe(expected);
    expect(await shardForNewAccount({ ...env, NEW_ACCOUNT_SHARD: "1" } as Env)).toBe(1);
    await expect(shardForNewAccount({ ...env, NEW_ACCOUNT_SHARD: "5" } as Env)).rejects.toThrow(/names no shard/);
  });
});
