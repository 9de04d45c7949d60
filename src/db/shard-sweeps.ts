import type { Database } from "./client";
import { allShards, shardCount } from "./shards";

/**
 * The shards a sweep over account rows walks (the cron's jobs, the look-up of a queue message without its shard):
 * every shard that holds at least one account, in shard order, read from the primary's `accounts.shard` (one query;
 * none with a single shard). A shard without accounts holds no account rows, so skipping it loses nothing, and a
 * binding added for a shard not filled yet (its migrations still to run) is not read before its first account.
 */
export async function sweptShards(env: Env): Promise<{ shard: number; db: Database; d1: D1Database }[]> {
  const shards = allShards(env);
  if (shardCount(env) === 1) return shards;
  const { results } = await env.DB.prepare("SELECT DISTINCT shard FROM accounts").all<{ shard: number }>();
  const used = new Set(results.map((r) => r.shard));
  // The primary is always walked: it holds the rows of shard-0 accounts and is never unprepared.
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
