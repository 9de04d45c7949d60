import type { Database } from "../db/client";
import { accountShard, shardCount, shardDb } from "../db/shards";
import type { Subscription } from "./box-writes";

/**
 * Grouping the rows a shared box writes by the shard of their account (issue 29 §3, docs/SCALING.md §How the pipeline uses shards):
 * a Tracker's subscriptions belong to accounts on any shard, and each shard gets one D1 batch of its own rows.
 *
 * A subscription's shard is `accountShard(env, accountId)`: this isolate's cache, else one read of the primary's
 * `accounts.shard` (a shard never changes, so the cache never goes stale). It is not stored in the Subscription: a
 * snapshot written before shards existed, or by a route that does not know the shard, stays valid as it is.
 */

/** One shard's part of an update: its number and the subscribed / joining rows of its accounts. */
export interface ShardPart {
  shard: number;
  subscriptions: Subscription[];
  joining: Subscription[];
}

/**
 * The shards of `accountIds` (distinct ids), each with its accounts, in shard order. An account the primary does not
 * know (never the case for a live account: accounts are not deleted) is left out with a log line, so it cannot hold
 * up the others' writes. With a single shard nothing is read: every account is on the primary.
 */
export async function groupAccountsByShard(
  env: Env,
  accountIds: readonly string[],
): Promise<{ shard: number; accountIds: string[] }[]> {
  const distinct = [...new Set(accountIds)];
  if (shardCount(env) === 1) return distinct.length > 0 ? [{ shard: 0, accountIds: distinct }] : [];
  const shards = await Promise.all(distinct.map((id) => accountShard(env, id)));
  const out = new Map<number, string[]>();
  distinct.forEach((id, i) => {
    const shard = shards[i];
    if (shard === null || shard === undefined) {
      console.error("tracking: no account in the primary for a subscription; its rows are skipped", id);
      return;
    }
    const list = out.get(shard) ?? [];
    list.push(id);
    out.set(shard, list);
  });
  return [...out.entries()].sort((a, b) => a[0] - b[0]).map(([shard, ids]) => ({ shard, accountIds: ids }));
}

/**
 * The shard of an account's rows and its handle (`accountShard`; the primary without a read when the deployment has
 * one shard), or null when the primary has no such account.
 */
export async function accountDb(env: Env, accountId: string): Promise<{ shard: number; db: Database } | null> {
  const shard = shardCount(env) === 1 ? 0 : await accountShard(env, accountId);
  return shard === null ? null : { shard, db: shardDb(env, shard) };
}

/**
 * `subscriptions` and `joining` split by their account's shard, in shard order; only shards with at least one row.
 * Order within each list is kept.
 */
export async function groupSubscriptionsByShard(
  env: Env,
  subscriptions: readonly Subscription[],
  joining: readonly Subscription[] = [],
): Promise<ShardPart[]> {
  const groups = await groupAccountsByShard(
    env,
    [...subscriptions, ...joining].map((s) => s.accountId),
  );
  const shardOf = new Map<string, number>();
  for (const g of groups) for (const id of g.accountIds) shardOf.set(id, g.shard);
  return groups.map(({ shard }) => ({
    shard,
    subscriptions: subscriptions.filter((s) => shardOf.get(s.accountId) === shard),
    joining: joining.filter((s) => shardOf.get(s.accountId) === shard),
  }));
}

/**
 * Runs `work` for every part at once and waits for all of them (a failed shard never stops the others). Resolves with
 * every result when all succeeded; otherwise calls `onPartial` with the results of the shards that succeeded, then
 * rejects with the first failure.
 */
export async function forEachShard<P extends { shard: number }, R>(
  parts: readonly P[],
  work: (part: P) => Promise<R>,
  onPartial: (done: { part: P; result: R }[]) => Promise<void>,
): Promise<{ part: P; result: R }[]> {
  const settled = await Promise.allSettled(parts.map(work));
  const done: { part: P; result: R }[] = [];
  let failure: unknown = null;
  settled.forEach((s, i) => {
    if (s.status === "fulfilled") done.push({ part: parts[i] as P, result: s.value });
    else if (failure === null) failure = s.reason ?? new Error("shard write failed");
  });
  if (failure !== null) {
    await onPartial(done);
    throw failure;
  }
  return done;
}
