import type { Database } from "./client";
import { allShards, shardCount } from "./shards";

/**
 * Which of the shards in `?1` (a JSON array of shard numbers) hold at least one account: one probe of
 * `accounts_shard_idx` (migration 0025) per shard, so the cron's every-minute question costs a few rows read whatever
 * the number of accounts. `SELECT DISTINCT shard FROM accounts` read every account row, and with the index still every
 * index entry (D1 has no ANALYZE statistics, without which SQLite does not skip ahead over duplicates).
 */
export const SHARDS_WITH_ACCOUNTS_SQL =
  "SELECT s.value AS shard FROM json_each(?1) s WHERE EXISTS (SELECT 1 FROM accounts a WHERE a.shard = s.value)";

/**
 * The shards a sweep over account rows walks (the cron's jobs, the look-up of a queue message without its shard):
 * every shard that holds at least one account, in shard order, read from the primary's `accounts.shard` (one query,
 * {@link SHARDS_WITH_ACCOUNTS_SQL}; none with a single shard). A shard without accounts holds no account rows, so
 * skipping it loses nothing, and a binding added for a shard not filled yet (its migrations still to run) is not read
 * before its first account.
 */
export async function sweptShards(env: Env): Promise<{ shard: number; db: Database; d1: D1Database }[]> {
  const shards = allShards(env);
  if (shardCount(env) === 1) return shards;
  // The primary is always walked: it holds the rows of shard-0 accounts and is never unprepared.
  const others = shards.filter((s) => s.shard !== 0).map((s) => s.shard);
  const { results } = await env.DB.prepare(SHARDS_WITH_ACCOUNTS_SQL)
    .bind(JSON.stringify(others))
    .all<{ shard: number }>();
  const used = new Set(results.map((r) => r.shard));
  return shards.filter((s) => s.shard === 0 || used.has(s.shard));
}

/**
 * Runs `perShard` on every shard {@link sweptShards} walks, one after the other (each bounded on its own), and adds
 * up what each returns (rows swept, messages re-queued).
 */
export async function sumOverShards(
  env: Env,
  perShard: (shard: { shard: number; db: Database; d1: D1Database }) => Promise<number>,
): Promise<number> {
  let total = 0;
  for (const s of await sweptShards(env)) total += await perShard(s);
  return total;
}
