#!/usr/bin/env node
// `npm run keys`: creates, lists and revokes API keys in the local (default) or remote D1 database
// (docs/decisions.md §Accounts and keys). Keys are printed once, at creation; only their SHA-256 is stored.
import { randomBytes } from "node:crypto";
import { parseArgs } from "node:util";
import { uuidv7 } from "uuidv7";
import { API_KEY_PATTERN, apiKeyPrefix, generateApiKey, hashApiKey, KEY_PREFIX_LENGTH } from "./lib/api-keys.mjs";
import {
  accountRowStatement,
  configuredNewAccountShard,
  scriptShards,
  shardWithFewestAccounts,
} from "./lib/shards.mjs";
import {
  applyMigrations,
  d1Execute,
  d1ExecuteStatements,
  LOCAL_EMAIL_DOMAIN,
  nowIso,
  sqlLiteral,
} from "./lib/wrangler.mjs";

const USAGE = `usage:
  npm run keys -- create --account <name> [--name <key name>] [--shard <n>] [--remote]
  npm run keys -- create --account-id <id> [--name <key name>] [--remote]
  npm run keys -- list [--account-id <id>] [--remote]
  npm run keys -- revoke <key id | prefix | key> [--remote]
  npm run keys -- mailbox --account-id <id> --allow <address | @domain>[,...] [--remote]

  create   makes the account if no account has that name, then a key for it; the key is printed once. A new account
           goes to shard --shard <n>, else NEW_ACCOUNT_SHARD (environment or wrangler.toml [vars]), else to the shard
           with the fewest accounts (docs/SCALING.md §Shards): its row is
           written to the primary (DB, with its shard) and copied to its shard (DB_<n>); keys stay in the primary
  list     keys with their account, name, prefix and dates (never the key or its hash)
  revoke   stops a key from authenticating (within AUTH_CACHE_TTL_SECONDS)
  mailbox  gives the account its document submission address (a new one each time) and the senders allowed to use it
           (docs/configuration.md §E-mail submissions); prints documents+<token>@<EMAIL_SUBMISSION_DOMAIN>

  --remote   use the deployed D1 database (keys svc_live_...) instead of the local one (svc_test_...)`;

const DEFAULT_KEY_NAME = "default";

/** A mistake in the command line: printed with the usage, exit code 2. */
class UsageError extends Error {}

/** Options each command accepts, for node:util parseArgs. */
const COMMANDS = {
  create: {
    options: {
      account: { type: "string" },
      "account-id": { type: "string" },
      name: { type: "string" },
      shard: { type: "string" },
      remote: { type: "boolean", default: false },
    },
    positionals: 0,
  },
  list: {
    options: { "account-id": { type: "string" }, remote: { type: "boolean", default: false } },
    positionals: 0,
  },
  revoke: { options: { remote: { type: "boolean", default: false } }, positionals: 1 },
  mailbox: {
    options: {
      "account-id": { type: "string" },
      allow: { type: "string" },
      remote: { type: "boolean", default: false },
    },
    positionals: 0,
  },
};

function parseCommandLine(argv) {
  const [command, ...rest] = argv;
  if (command === "help" || command === "--help" || command === "-h") return { command: "help" };
  if (command === undefined) throw new UsageError("missing command");
  const spec = COMMANDS[command];
  if (!spec) throw new UsageError(`unknown command: ${command}`);
  let parsed;
  try {
    parsed = parseArgs({ args: rest, options: spec.options, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError(err.message);
  }
  if (parsed.positionals.length !== spec.positionals) {
    throw new UsageError(
      spec.positionals === 0
        ? `${command} takes no positional arguments (got: ${parsed.positionals.join(" ")})`
        : `${command} takes exactly ${spec.positionals} argument`,
    );
  }
  for (const [name, value] of Object.entries(parsed.values)) {
    if (typeof value === "string" && value.trim() === "") throw new UsageError(`--${name} must not be empty`);
  }
  return { command, values: parsed.values, positionals: parsed.positionals };
}

const where = (remote) => (remote ? "remote" : "local");

async function findAccount({ account, accountId, remote }) {
  const condition = accountId !== undefined ? `id = ${sqlLiteral(accountId)}` : `name = ${sqlLiteral(account)}`;
  const [rows = []] = await d1Execute({
    sql: `SELECT id, name, shard FROM accounts WHERE ${condition} ORDER BY created_at, id;`,
    remote,
  });
  return rows;
}

async function create({ values }) {
  const { account, "account-id": accountId, remote } = values;
  if ((account === undefined) === (accountId === undefined)) {
    throw new UsageError("create needs exactly one of --account <name> or --account-id <id>");
  }
  const keyName = values.name ?? DEFAULT_KEY_NAME;
  const matches = await findAccount({ account, accountId, remote });
  if (matches.length > 1) {
    const ids = matches.map((row) => `  ${row.id}`).join("\n");
    throw new Error(`${matches.length} accounts are named "${account}"; choose one with --account-id:\n${ids}`);
  }
  if (accountId !== undefined && matches.length === 0) throw new Error(`no account with id ${accountId}`);
  const shards = scriptShards({ remote });
  // --shard, else NEW_ACCOUNT_SHARD (as the Worker reads it), else the shard with the fewest accounts.
  const given = values.shard ?? configuredNewAccountShard();
  const wanted = given === undefined ? undefined : Number(given);
  if (wanted !== undefined && (!Number.isInteger(wanted) || wanted < 0 || wanted >= shards.bindings.length)) {
    const source = values.shard === undefined ? `NEW_ACCOUNT_SHARD=${given}` : `--shard ${given}`;
    throw new UsageError(`${source} names no shard: the ${where(remote)} deployment has ${shards.bindings.join(", ")}`);
  }
  if (wanted !== undefined && matches[0] !== undefined && Number(matches[0].shard) !== wanted) {
    throw new Error(`account ${matches[0].id} is on shard ${matches[0].shard}, not ${wanted}: accounts never move`);
  }

  const now = nowIso();
  const statements = [];
  let target = matches[0];
  if (target === undefined) {
    const shard = wanted ?? (await shardWithFewestAccounts({ remote, count: shards.bindings.length }));
    target = { id: uuidv7(), name: account, shard };
    const row = { id: target.id, name: target.name, shard, createdAt: now };
    if (shard !== 0) await prepareShardCopy(row, shards, remote);
    statements.push(accountRowStatement(row));
  }
  const key = generateApiKey(remote ? "live" : "test");
  const keyId = uuidv7();
  statements.push(
    `INSERT INTO api_keys (id, account_id, name, key_hash, prefix, created_at) VALUES (${[
      keyId,
      target.id,
      keyName,
      hashApiKey(key),
      apiKeyPrefix(key),
      now,
    ]
      .map(sqlLiteral)
      .join(", ")});`,
  );
  await d1Execute({ sql: statements.join("\n"), remote });

  console.log(`${matches.length === 0 ? "Created account" : "Account"} ${target.name} (${target.id}) on shard ${
    target.shard
  }, ${where(remote)} D1
Created key "${keyName}"
  id      ${keyId}
  prefix  ${apiKeyPrefix(key)}

  ${key}

This is the only time the key is shown; it is stored as a SHA-256 hash.`);
}

/**
 * Writes a new account's copy into its shard (`row.shard` ≥ 1) before the primary records it, so the account never
 * points at a shard without its row. Locally the shard is first given the migrations and the reference data (npm
 * start does the same; a deployed shard is prepared by `npm run seed -- --remote`, docs/SCALING.md §Shards).
 */
async function prepareShardCopy(row, shards, remote) {
  const binding = shards.bindings[row.shard];
  if (!remote) {
    await applyMigrations({ binding, config: shards.config });
    // Imported only here: the compiled reference data is large.
    const { referenceSeedStatements } = await import("../src/reference/seed.ts");
    await d1ExecuteStatements(referenceSeedStatements(), { binding, config: shards.config });
  }
  await d1Execute({ sql: accountRowStatement(row), remote, binding, config: shards.config });
}

/** Prints rows as aligned columns; null shows as "-". */
function printTable(columns, rows) {
  const cell = (value) => (value === null || value === undefined ? "-" : String(value));
  const widths = columns.map((column) => Math.max(column.length, ...rows.map((row) => cell(row[column]).length)));
  const line = (values) =>
    values
      .map((value, i) => value.padEnd(widths[i] ?? 0))
      .join("  ")
      .trimEnd();
  console.log(line(columns));
  for (const row of rows) console.log(line(columns.map((column) => cell(row[column]))));
}

async function list({ values }) {
  const { "account-id": accountId, remote } = values;
  const filter = accountId === undefined ? "" : `WHERE k.account_id = ${sqlLiteral(accountId)}`;
  const [rows = []] = await d1Execute({
    sql: `SELECT k.id, a.name AS account, k.account_id, k.name, k.prefix, k.created_at, k.revoked_at, k.last_used_at
      FROM api_keys k LEFT JOIN accounts a ON a.id = k.account_id ${filter}
      ORDER BY a.name, k.created_at, k.id;`,
    remote,
  });
  if (rows.length === 0) {
    console.log(`No API keys${accountId === undefined ? "" : ` for account ${accountId}`} in the ${where(remote)} D1.`);
    return;
  }
  printTable(["id", "account", "account_id", "name", "prefix", "created_at", "revoked_at", "last_used_at"], rows);
}

async function revoke({ values, positionals }) {
  const { remote } = values;
  const target = positionals[0] ?? "";
  let condition;
  if (API_KEY_PATTERN.test(target)) condition = `k.key_hash = ${sqlLiteral(hashApiKey(target))}`;
  else if (/^svc_(live|test)_/.test(target)) {
    if (target.length !== KEY_PREFIX_LENGTH) {
      throw new UsageError(`a prefix has ${KEY_PREFIX_LENGTH} characters, e.g. svc_test_AbCd (got "${target}")`);
    }
    condition = `k.prefix = ${sqlLiteral(target)}`;
  } else condition = `k.id = ${sqlLiteral(target)}`;

  const [matches = []] = await d1Execute({
    sql: `SELECT k.id, k.prefix, k.name, a.name AS account, k.revoked_at FROM api_keys k
      LEFT JOIN accounts a ON a.id = k.account_id WHERE ${condition} ORDER BY k.created_at, k.id;`,
    remote,
  });
  const active = matches.filter((row) => row.revoked_at === null);
  if (matches.length === 0) throw new Error(`no API key matches "${target}" in the ${where(remote)} D1`);
  if (active.length === 0) {
    const row = matches[0];
    console.log(`Key ${row.id} (${row.prefix}) was already revoked at ${row.revoked_at}.`);
    return;
  }
  if (active.length > 1) {
    const ids = active.map((row) => `  ${row.id}  ${row.prefix}  ${row.account} / ${row.name}`).join("\n");
    throw new Error(`${active.length} active keys share the prefix ${target}; revoke one by id:\n${ids}`);
  }
  const row = active[0];
  const now = nowIso();
  await d1Execute({
    sql: `UPDATE api_keys SET revoked_at = ${sqlLiteral(now)} WHERE id = ${sqlLiteral(row.id)} AND revoked_at IS NULL;`,
    remote,
  });
  console.log(`Revoked key ${row.id} (${row.prefix}, "${row.name}" of ${row.account}) at ${now}.`);
}

async function mailbox({ values }) {
  const { "account-id": accountId, allow, remote } = values;
  if (accountId === undefined || allow === undefined) throw new UsageError("mailbox needs --account-id and --allow");
  const senders = allow.split(",").map((entry) => entry.trim().toLowerCase());
  for (const entry of senders) {
    if (!/^[^@\s]*@[a-z0-9.-]+$/.test(entry)) throw new UsageError(`not an address or @domain: "${entry}"`);
  }
  const [found] = await findAccount({ accountId, remote });
  if (found === undefined) throw new Error(`no account with id ${accountId}`);
  // The mailbox is one of the account's rows: it lives on the account's shard (docs/SCALING.md §Shards).
  const shards = scriptShards({ remote });
  const binding = shards.bindings[Number(found.shard)];
  if (binding === undefined) throw new Error(`account ${accountId} is on shard ${found.shard}, which is not bound`);
  const token = randomBytes(16).toString("hex");
  await d1Execute({
    binding,
    config: shards.config,
    sql: `INSERT INTO document_mailboxes (account_id, token, allowed_senders, created_at) VALUES (${[
      accountId,
      token,
      JSON.stringify(senders),
      nowIso(),
    ]
      .map(sqlLiteral)
      .join(", ")}) ON CONFLICT (account_id) DO UPDATE SET token = excluded.token,
      allowed_senders = excluded.allowed_senders;`,
    remote,
  });
  console.log(`Submission address of account ${accountId} (${where(remote)} D1):
  documents+${token}@${remote ? "<EMAIL_SUBMISSION_DOMAIN>" : LOCAL_EMAIL_DOMAIN}
Allowed senders: ${senders.join(", ")}`);
}

async function main() {
  const parsed = parseCommandLine(process.argv.slice(2));
  if (parsed.command === "help") {
    console.log(USAGE);
    return;
  }
  await { create, list, revoke, mailbox }[parsed.command](parsed);
}

main().catch((err) => {
  if (err instanceof UsageError) {
    console.error(`keys: ${err.message}\n\n${USAGE}`);
    process.exit(2);
  }
  // Expected failures (no such key, wrangler errors) read best as one message; set DEBUG for the stack.
  console.error(`keys: ${process.env.DEBUG && err?.stack ? err.stack : (err?.message ?? err)}`);
  process.exit(1);
});
