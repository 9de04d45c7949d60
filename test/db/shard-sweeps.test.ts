import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { SHARDS_WITH_ACCOUNTS_SQL, sweptShards } from "../../src/db/shard-sweeps";
import { countingD1, type D1Counter } from "../../src/tracking/bench-d1";
import { createAccountOnShard, prepareSecondShard } from "../helpers/shards";

// `sweptShards` (src/db/shard-sweeps.ts) runs on every cron minute, several times (maintenance, alerts, imports, the
// archive, the AIS feed): which shards hold accounts. It used to be `SELECT DISTINCT shard FROM accounts`, a scan of
// every account row (D1 bills rows read); it is now one probe of `accounts_shard_idx` (migration 0025) per shard.

/** `n` accounts on the primary, in one statement. */
async function manyAccounts(n: number): Promise<void> {
  const ids = Array.from({ length: n }, () => crypto.randomUUID());
  await env.DB.prepare(
    `INSERT INTO accounts (id, name, entitlements, shard, created_at)
     SELECT value, 'Bulk', '[]', 0, '2026-12-02T00:00:00Z' FROM json_each(?1)`,
  )
    .bind(JSON.stringify(ids))
    .run();
}

describe("sweptShards", () => {
  it("walks the primary and the shards holding accounts, reading an index entry per shard, not every account", async () => {
    await prepareSecondShard();
    await manyAccounts(300);
    const counter: D1Counter = { batches: 0, statements: 0 };
    const counted = { ...env, DB: countingD1(env.DB, counter) };
    // DB_1 is bound (vitest.config.ts) but holds no account yet: not walked.
    expect((await sweptShards(counted)).map((s) => s.shard)).toEqual([0]);
    await createAccountOnShard(1, "Shard one");
    expect((await sweptShards(counted)).map((s) => s.shard)).toEqual([0, 1]);
    // Two calls over 300+ accounts: a few rows each (json_each's shard list and one index probe per shard); the
    // DISTINCT scan read every account row on each call.
    expect(counter.rowsRead).toBeLessThan(10);
  });

  it("probes accounts_shard_idx (EXPLAIN QUERY PLAN)", async () => {
    const plan = await env.DB.prepare(`EXPLAIN QUERY PLAN ${SHARDS_WITH_ACCOUNTS_SQL}`)
      .bind("[1, 2, 3]")
      .all<{ detail: string }>();
    const details = plan.results.map((r) => r.detail).join(" | ");
    // D1's SQLite prints `SEARCH a EXISTS USING …` (the EXISTS run as a semi-join); older ones `SEARCH a USING …`.
    expect(details).toMatch(/SEARCH a (EXISTS )?USING COVERING INDEX accounts_shard_idx \(shard=\?\)/);
    expect(details).not.toMatch(/SCAN a\b|SCAN accounts|TEMP B-TREE/);
  });
});
