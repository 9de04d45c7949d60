import { boundedLru } from "../lib/lru";
import { createDatabase, type Database } from "./client";

/**
 * Shards: the D1 databases that hold account rows (docs/SCALING.md §Shards).
 *
 * - Shard 0 is the primary binding `DB`. It holds what is not any one account's: accounts (with each account's
 *   `shard`), API keys, users and sessions, reference data (ports, terminals, shipping lines), tracked equipment,
 *   vessels and positions, source outages, upstream subscriptions and maintenance cursors. It also holds the rows of
 *   the accounts whose shard is 0.
 * - Shard n ≥ 1 is the binding `DB_n` (`DB_1`, `DB_2`, …, consecutive from 1). It has the same schema (the same
 *   migrations/), the reference data (copied by the seed, so account rows join it locally) and a copy of each of
 *   its accounts' `accounts` row (so foreign keys to `accounts.id` hold).
 *
 * An account's shard is fixed when the account is created (`shardForNewAccount`) and recorded in the primary's
 * `accounts.shard`; every account row is read and written through `dbFor` (or `shardDb` with a shard already known).
 */

/** Name of the binding of shard `n`: `DB` for 0, `DB_n` otherwise. */
export function shardBindingName(shard: number): string {
  return shard === 0 ? "DB" : `DB_${shard}`;
}

/** Most shards looked for (`DB_1` … `DB_63`); a gap ends the list. */
const MAX_SHARDS = 64;

/** The D1 bindings of every shard, in shard order (index = shard number), from `DB` and `DB_1`, `DB_2`, … . */
export function shardBindings(env: Env): D1Database[] {
  const bag = env as unknown as Record<string, D1Database | undefined>;
  const out: D1Database[] = [env.DB];
  for (let n = 1; n < MAX_SHARDS; n++) {
    const binding = bag[shardBindingName(n)];
    if (!binding) break;
    out.push(binding);
  }
  return out;
}

/** How many shards this deployment has (1 with only `DB`). */
export function shardCount(env: Env): number {
  return shardBindings(env).length;
}

/**
 * The D1 binding of shard `shard`.
 * @throws Error when the deployment has no such binding (an account recorded on a shard whose binding was removed:
 *   a configuration error, never a client's).
 */
export function shardD1(env: Env, shard: number): D1Database {
  const binding = shardBindings(env)[shard];
  if (!binding) throw new Error(`shard ${shard} has no D1 binding (${shardBindingName(shard)}) in this deployment`);
  return binding;
}

/** The drizzle handle of shard `shard` (see `shardD1`). */
export function shardDb(env: Env, shard: number): Database {
  return createDatabase(shardD1(env, shard));
}

/** The drizzle handle of the primary (`DB`): accounts, keys, users, reference data, tracked equipment, vessels. */
export function primaryDb(env: Env): Database {
  return createDatabase(env.DB);
}

/** Every shard's number and handle, in shard order: what a cron job that sweeps account rows walks. */
export function allShards(env: Env): { shard: number; db: Database; d1: D1Database }[] {
  return shardBindings(env).map((d1, shard) => ({ shard, db: createDatabase(d1), d1 }));
}

/**
 * accountId → shard, per isolate. A shard never changes after the account is created, so an entry never goes stale;
 * the bound only limits memory (an account not seen for a while costs one primary read again).
 */
const accountShards = boundedLru<string, number>(100_000);

/** Records an account's shard read elsewhere (the API key lookup reads it with the key), sparing `accountShard` a read. */
export function rememberAccountShard(accountId: string, shard: number): void {
  accountShards.set(accountId, shard);
}

/**
 * The shard of an account: from this isolate's cache, else one read of the primary's `accounts.shard`.
 * @returns null when the primary has no such account.
 */
export async function accountShard(env: Env, accountId: string): Promise<number | null> {
  const cached = accountShards.get(accountId);
  if (cached !== undefined) return cached;
  const row = await env.DB.prepare("SELECT shard FROM accounts WHERE id = ?1")
    .bind(accountId)
    .first<{ shard: number }>();
  if (!row) return null;
  accountShards.set(accountId, row.shard);
  return row.shard;
}

/**
 * The database holding an account's rows: the one function every account row goes through.
 * @throws Error when the primary has no such account (callers hold ids of accounts that exist: a principal, a
 *   subscription, a queued message) or its shard has no binding.
 */
export async function dbFor(env: Env, accountId: string): Promise<Database> {
  const shard = await accountShard(env, accountId);
  if (shard === null) throw new Error(`no account ${accountId} in the primary database`);
  return shardDb(env, shard);
}

/**
 * The shard a new account goes to: `NEW_ACCOUNT_SHARD` when set (an operator filling a new shard), else the shard with
 * the fewest accounts (ties to the lowest number), counted in the primary.
 * @throws Error when `NEW_ACCOUNT_SHARD` names a shard without a binding.
 */
export async function shardForNewAccount(env: Env): Promise<number> {
  const count = shardCount(env);
  const configured = (env as unknown as Record<string, string | undefined>).NEW_ACCOUNT_SHARD;
  if (configured !== undefined && configured !== "") {
    const shard = Number(configured);
    if (!Number.isInteger(shard) || shard < 0 || shard >= count) {
      throw new Error(`NEW_ACCOUNT_SHARD=${configured} names no shard (this deployment has ${count})`);
    }
    return shard;
  }
  if (count === 1) return 0;
  const { results } = await env.DB.prepare("SELECT shard, COUNT(*) AS n FROM accounts GROUP BY shard").all<{
    shard: number;
    n: number;
  }>();
  const per = new Map(results.map((r) => [r.shard, r.n]));
  let best = 0;
  for (let s = 1; s < count; s++) if ((per.get(s) ?? 0) < (per.get(best) ?? 0)) best = s;
  return best;
}
