// The D1 shards the scripts (npm start, npm run keys, npm run seed) work on (src/db/shards.ts, docs/SCALING.md §Shards):
// shard 0 is the binding `DB` (the primary: accounts with their shard, API keys, users, reference data), shard n the
// binding `DB_n`, consecutive from 1. Deployed shards are the `[[d1_databases]]` bindings of wrangler.toml; locally,
// npm start runs LOCAL_SHARD_COUNT shards, the extra ones bound in a generated config (LOCAL_SHARDS_CONFIG).
import { readFileSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { d1Execute, LOCAL_SHARDS_CONFIG, ROOT, sqlLiteral } from "./wrangler.mjs";

/** How many shards npm start (and the local keys and seed commands) run: `DB` and a local `DB_1`. */
export const LOCAL_SHARD_COUNT = 2;

/** The binding of shard `n`: `DB` for 0, `DB_n` otherwise (src/db/shards.ts `shardBindingName`). */
export function shardBindingName(n) {
  return n === 0 ? "DB" : `DB_${n}`;
}

/**
 * The shard bindings a wrangler configuration declares, in shard order: `DB`, then `DB_1`, `DB_2`, … up to the first
 * gap (the Worker stops there too, src/db/shards.ts `shardBindings`). Commented-out blocks do not count.
 * @param {string} toml the configuration's text
 * @returns {string[]}
 */
export function declaredShardBindings(toml) {
  const bound = new Set(
    [...toml.matchAll(/^\s*binding\s*=\s*"(DB(?:_\d+)?)"\s*$/gm)].map((match) => match[1]).filter(Boolean),
  );
  const out = [];
  for (let n = 0; bound.has(shardBindingName(n)); n++) out.push(shardBindingName(n));
  return out;
}

/** The local D1 id of shard `n` ≥ 1 under npm start (miniflare keys its local databases by id). */
function localDatabaseId(n) {
  return `00000000-0000-0000-0000-${String(n).padStart(12, "0")}`;
}

/**
 * Writes {@link LOCAL_SHARDS_CONFIG} (or the same file name in `dir`, for a snapshot of the app): `dir`'s wrangler.toml
 * with a `[[d1_databases]]` block for each local shard 1 … `count - 1` it does not bind itself (same migrations, a
 * local-only database id). Rewritten on every call, so it follows wrangler.toml. Never deployed: `wrangler deploy`
 * reads wrangler.toml.
 * @param {number} [count]
 * @param {string} [dir] the app directory holding wrangler.toml (default the repository root)
 * @returns {string} the file's path
 */
export function writeLocalShardsConfig(count = LOCAL_SHARD_COUNT, dir = ROOT) {
  const base = readFileSync(join(dir, "wrangler.toml"), "utf8");
  const declared = new Set(declaredShardBindings(base));
  const blocks = [];
  for (let n = 1; n < count; n++) {
    const binding = shardBindingName(n);
    if (declared.has(binding)) continue;
    blocks.push(
      [
        "[[d1_databases]]",
        `binding = "${binding}"`,
        `database_name = "container-tracking-local-shard-${n}"`,
        `database_id = "${localDatabaseId(n)}"`,
        'migrations_dir = "migrations"',
      ].join("\n"),
    );
  }
  const header =
    "# Written by scripts/lib/shards.mjs for npm start: wrangler.toml plus local-only shard bindings. Do not edit;\n" +
    "# never deployed (wrangler deploy reads wrangler.toml).\n";
  const file = dir === ROOT ? LOCAL_SHARDS_CONFIG : join(dir, basename(LOCAL_SHARDS_CONFIG));
  writeFileSync(file, `${header}${base.trimEnd()}\n\n${blocks.join("\n\n")}\n`);
  return file;
}

/**
 * The shards a script works on: deployed (`remote`), the bindings of wrangler.toml; locally, npm start's
 * {@link LOCAL_SHARD_COUNT} (the config is written then). `config` is the wrangler configuration that binds them all.
 * @param {{ remote?: boolean }} [options]
 * @returns {{ bindings: string[], config: string | undefined }}
 */
export function scriptShards({ remote = false } = {}) {
  if (remote) {
    return { bindings: declaredShardBindings(readFileSync(join(ROOT, "wrangler.toml"), "utf8")), config: undefined };
  }
  const config = writeLocalShardsConfig();
  return { bindings: Array.from({ length: LOCAL_SHARD_COUNT }, (_, n) => shardBindingName(n)), config };
}

/**
 * The `NEW_ACCOUNT_SHARD` the Worker would use (src/db/shards.ts `shardForNewAccount`): the environment's, else a
 * `NEW_ACCOUNT_SHARD = "n"` line of wrangler.toml's `[vars]`; undefined when neither sets one.
 * @returns {string | undefined}
 */
export function configuredNewAccountShard() {
  const fromEnv = process.env.NEW_ACCOUNT_SHARD;
  if (fromEnv !== undefined && fromEnv !== "") return fromEnv;
  const toml = readFileSync(join(ROOT, "wrangler.toml"), "utf8");
  const value = /^\s*NEW_ACCOUNT_SHARD\s*=\s*"([^"]*)"/m.exec(toml)?.[1];
  return value === undefined || value === "" ? undefined : value;
}

/**
 * The shard a new account goes to when none is configured, as src/db/shards.ts `shardForNewAccount` picks it: the one
 * with the fewest accounts in the primary, ties to the lowest number.
 * @param {{ remote?: boolean, count: number }} options
 * @returns {Promise<number>}
 */
export async function shardWithFewestAccounts({ remote = false, count }) {
  if (count <= 1) return 0;
  const [rows = []] = await d1Execute({ sql: "SELECT shard, COUNT(*) AS n FROM accounts GROUP BY shard;", remote });
  const per = new Map(rows.map((row) => [Number(row.shard), Number(row.n)]));
  let best = 0;
  for (let n = 1; n < count; n++) if ((per.get(n) ?? 0) < (per.get(best) ?? 0)) best = n;
  return best;
}

/**
 * SQL that writes an account's row (`id`, `name`, `entitlements` JSON, `shard`, `createdAt`) — into the primary with
 * its shard, or into its shard as the copy its rows' foreign keys point at. Keeps an existing row (`ON CONFLICT DO
 * NOTHING`), so it can be run again.
 * @param {{ id: string, name: string, entitlements?: string, shard: number, createdAt: string }} account
 * @returns {string}
 */
export function accountRowStatement({ id, name, entitlements = "[]", shard, createdAt }) {
  if (!Number.isInteger(shard) || shard < 0) throw new TypeError(`not a shard number: ${shard}`);
  return `INSERT INTO accounts (id, name, entitlements, shard, created_at) VALUES (${sqlLiteral(id)}, ${sqlLiteral(
    name,
  )}, ${sqlLiteral(entitlements)}, ${shard}, ${sqlLiteral(createdAt)}) ON CONFLICT(id) DO NOTHING;`;
}
