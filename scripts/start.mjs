#!/usr/bin/env node
// `npm start`: prepares the local D1 databases (migrations, reference data, a development account and API key),
// prints how to call the API, then runs `wrangler dev` on http://127.0.0.1:8787 (docs/decisions.md §Accounts and keys).
// It runs two shards (docs/SCALING.md §Shards): `DB` (the primary, with the Development account) and a local `DB_1`
// (with a second demo account and key), bound through wrangler.local-shards.toml (scripts/lib/shards.mjs).
//
//   npm start                     reuse the dev key kept in .wrangler/dev-api-key (or make one)
//   npm start -- --rotate-key     revoke the dev key and make a new one
//   npm start -- --setup-only     prepare the database and print the key, without starting wrangler dev
//   npm start -- --no-cron        do not trigger the Worker's every-minute cron (see startCronTicker)
//   npm start -- <wrangler dev options>   anything else is passed to wrangler dev (e.g. --var NAME:value)
import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { constants } from "node:os";
import { dirname, join } from "node:path";
import { uuidv7 } from "uuidv7";
import { API_KEY_PATTERN, apiKeyPrefix, generateApiKey, generateToken, hashApiKey } from "./lib/api-keys.mjs";
import { accountRowStatement, shardBindingName, writeLocalShardsConfig } from "./lib/shards.mjs";
import { sourcesBanner } from "./lib/sources-banner.mjs";
import {
  applyMigrations,
  d1ExecuteStatements,
  LOCAL_EMAIL_DOMAIN,
  nowIso,
  ROOT,
  spawnWrangler,
  sqlLiteral,
  WranglerError,
} from "./lib/wrangler.mjs";

/** Fixed id of the local development account, so every `npm start` finds the same one. */
const DEV_ACCOUNT_ID = "00000000-0000-7000-8000-000000000001";
const DEV_ACCOUNT_NAME = "Development";
/**
 * The development account has every paid feature (accounts.entitlements), so what `npm start` opens shows the whole
 * product: today that is "routing" (the route and the map, src/containers/shipping-route.ts ROUTING_ENTITLEMENT).
 */
const DEV_ENTITLEMENTS = JSON.stringify(["routing"]);
/** `api_keys.name` of the key `npm start` manages; `--rotate-key` revokes the active ones with this name. */
const DEV_KEY_NAME = "development";
/** The development account's admin user, whom the sign-in link printed by `npm start` signs in. */
const DEV_USER_EMAIL = "dev@localhost";
/** How long the printed sign-in link works (ms): a day of local work (e-mailed links work 15 minutes). */
const DEV_SIGN_IN_LINK_TTL_MS = 24 * 3600_000;
/** The plaintext dev key, kept locally (under the gitignored .wrangler/) so it survives restarts. */
const DEV_KEY_FILE = join(ROOT, ".wrangler", "dev-api-key");
/** The accounts npm start keeps, each with its key: the Development account on shard 0, a demo account on shard 1. */
const DEV_ACCOUNTS = [
  { id: DEV_ACCOUNT_ID, name: DEV_ACCOUNT_NAME, shard: 0, keyFile: DEV_KEY_FILE },
  {
    id: "00000000-0000-7000-8000-000000000002",
    name: "Development (shard 1)",
    shard: 1,
    keyFile: join(ROOT, ".wrangler", "dev-api-key-shard-1"),
  },
];
const DEFAULT_IP = "127.0.0.1";
const DEFAULT_PORT = "8787";
/** The cron in wrangler.toml that drives the tracking pipeline's sweep. */
const EVERY_MINUTE = "* * * * *";

function parseCommandLine(argv) {
  const own = new Set(["--rotate-key", "--setup-only", "--no-cron", "--help", "-h"]);
  const flags = new Set(argv.filter((arg) => own.has(arg)));
  const devArgs = argv.filter((arg) => !own.has(arg));
  return {
    rotateKey: flags.has("--rotate-key"),
    setupOnly: flags.has("--setup-only"),
    cron: !flags.has("--no-cron"),
    help: flags.has("--help") || flags.has("-h"),
    devArgs,
  };
}

/** Value of `--name value` or `--name=value` among the wrangler dev arguments, if given. */
function optionValue(args, name) {
  for (let i = 0; i < args.length; i++) {
    if (args[i] === name) return args[i + 1];
    if (args[i]?.startsWith(`${name}=`)) return args[i].slice(name.length + 1);
  }
  return undefined;
}

function readDevKey(file) {
  if (!existsSync(file)) return undefined;
  const key = readFileSync(file, "utf8").trim();
  if (API_KEY_PATTERN.test(key)) return key;
  console.warn(`! ${file} does not hold a valid key; making a new one.`);
  return undefined;
}

function writeDevKey(file, key) {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${key}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
}

/**
 * The row of a dev account (one of {@link DEV_ACCOUNTS}) with every paid feature, as {@link accountRowStatement} takes it.
 */
function devAccountRow(account, now) {
  return { id: account.id, name: account.name, entitlements: DEV_ENTITLEMENTS, shard: account.shard, createdAt: now };
}

/**
 * SQL for the primary that makes sure the dev account `account` (one of {@link DEV_ACCOUNTS}) exists on its shard and
 * `key` authenticates as it: inserts the key's hash if missing (the local database may have been wiped while the key
 * file stayed), after revoking the account's other dev keys when rotating. The last statement selects the key's
 * `revoked_at`, read by {@link devKeyIsActive}. An account on shard n ≥ 1 also needs its copy there
 * ({@link devShardCopyStatements}).
 * @returns {string[]}
 */
function devKeyStatements(key, { revokeOthers, account = DEV_ACCOUNTS[0] }) {
  const now = nowIso();
  const hash = hashApiKey(key);
  const statements = [
    accountRowStatement(devAccountRow(account, now)),
    // An account made by an earlier npm start gets the features too.
    `UPDATE accounts SET entitlements = ${sqlLiteral(DEV_ENTITLEMENTS)} WHERE id = ${sqlLiteral(account.id)};`,
  ];
  if (revokeOthers) {
    statements.push(
      `UPDATE api_keys SET revoked_at = ${sqlLiteral(now)} WHERE account_id = ${sqlLiteral(account.id)} AND name = ${sqlLiteral(
        DEV_KEY_NAME,
      )} AND revoked_at IS NULL AND key_hash <> ${sqlLiteral(hash)};`,
    );
  }
  statements.push(
    `INSERT INTO api_keys (id, account_id, name, key_hash, prefix, created_at) VALUES (${[
      uuidv7(),
      account.id,
      DEV_KEY_NAME,
      hash,
      apiKeyPrefix(key),
      now,
    ]
      .map(sqlLiteral)
      .join(", ")}) ON CONFLICT(key_hash) DO NOTHING;`,
    `SELECT revoked_at FROM api_keys WHERE key_hash = ${sqlLiteral(hash)};`,
  );
  return statements;
}

/**
 * SQL that makes sure the development account has its admin user {@link DEV_USER_EMAIL} (enabled again if it was
 * disabled) and gives it a new one-time sign-in link valid {@link DEV_SIGN_IN_LINK_TTL_MS}, ending the dev user's
 * earlier unused links (one live printed link at a time). Rows as src/sessions/sign-in-links.ts writes them; runs
 * after {@link devKeyStatements}, which creates the account.
 * @returns {{ statements: string[], token: string }}
 */
function devSignInStatements() {
  const now = nowIso();
  const expires = new Date(Date.now() + DEV_SIGN_IN_LINK_TTL_MS).toISOString().replace(/\.\d{3}Z$/, "Z");
  const token = generateToken();
  const email = sqlLiteral(DEV_USER_EMAIL);
  const devUserId = `(SELECT id FROM users WHERE email = ${email})`;
  const statements = [
    `INSERT INTO users (id, account_id, email, name, role, created_at) VALUES (${[
      uuidv7(),
      DEV_ACCOUNT_ID,
      DEV_USER_EMAIL,
      "Developer",
      "admin",
      now,
    ]
      .map(sqlLiteral)
      .join(", ")}) ON CONFLICT(email) DO UPDATE SET disabled_at = NULL;`,
    `UPDATE sign_in_links SET expires_at = ${sqlLiteral(now)} WHERE user_id = ${devUserId} AND used_at IS NULL AND expires_at > ${sqlLiteral(now)};`,
    `INSERT INTO sign_in_links (token_hash, user_id, created_at, expires_at) SELECT ${sqlLiteral(hashApiKey(token))}, id, ${sqlLiteral(
      now,
    )}, ${sqlLiteral(expires)} FROM users WHERE email = ${email};`,
  ];
  return { statements, token };
}

/** SQL for shard `account.shard` ≥ 1: the copy of the dev account's row its rows' foreign keys point at. */
function devShardCopyStatements(account) {
  const now = nowIso();
  return [
    accountRowStatement(devAccountRow(account, now)),
    `UPDATE accounts SET entitlements = ${sqlLiteral(DEV_ENTITLEMENTS)} WHERE id = ${sqlLiteral(account.id)};`,
  ];
}

/** Whether the results of a batch ending with {@link devKeyStatements} show the key stored and not revoked. */
function devKeyIsActive(results) {
  const row = results.at(-1)?.[0];
  return row !== undefined && row.revoked_at === null;
}

async function setUp({ rotateKey }) {
  // Both shards are bound by the generated config (wrangler.toml plus a local DB_1): every wrangler run below uses it.
  const config = writeLocalShardsConfig(DEV_ACCOUNTS.length);
  const bindings = DEV_ACCOUNTS.map((account) => shardBindingName(account.shard));
  for (const binding of bindings) {
    const migrations = await applyMigrations({ binding, config });
    console.log(
      migrations.upToDate || migrations.applied.length === 0
        ? `✓ D1 ${binding} (local): migrations up to date`
        : `✓ D1 ${binding} (local): applied ${migrations.applied.join(", ")}`,
    );
  }

  const keys = DEV_ACCOUNTS.map((account) => (rotateKey ? undefined : readDevKey(account.keyFile)));
  const reused = keys.map((key) => key !== undefined);
  const fresh = keys.map((key) => key ?? generateApiKey("test"));

  // Imported here, not at the top: Node strips TypeScript types only from 22.18 on, and checkNode() says so first.
  const { referenceSeedRowCounts, referenceSeedStatements } = await import("../src/reference/seed.ts");
  const seed = referenceSeedStatements();
  const rows = referenceSeedRowCounts();
  // Every shard first gets the reference data and the copies of its dev accounts (before the primary records them).
  for (const binding of bindings.slice(1)) {
    const copies = DEV_ACCOUNTS.filter((account) => shardBindingName(account.shard) === binding).flatMap(
      devShardCopyStatements,
    );
    await d1ExecuteStatements([...seed, ...copies], { binding, config });
  }
  // One wrangler run on the primary for the seed, the dev keys and the dev user's sign-in link: each run costs seconds.
  const keyStatements = DEV_ACCOUNTS.map((account, i) =>
    devKeyStatements(fresh[i], { revokeOthers: rotateKey, account }),
  );
  const signIn = devSignInStatements();
  const all = await d1ExecuteStatements([...seed, ...keyStatements.flat(), ...signIn.statements], { config });
  console.log(
    `✓ reference data: ${rows.ports} ports and ${rows.terminals} terminals upserted into ${bindings.join(" and ")} (unchanged rows untouched)`,
  );

  let end = seed.length;
  for (const [i, account] of DEV_ACCOUNTS.entries()) {
    end += keyStatements[i].length;
    const label = account.shard === 0 ? "dev key" : `dev key of shard ${account.shard}`;
    if (!devKeyIsActive(all.slice(0, end))) {
      console.log(`! the saved ${label} was revoked; making a new one`);
      fresh[i] = generateApiKey("test");
      const retry = await d1ExecuteStatements(devKeyStatements(fresh[i], { revokeOthers: false, account }), { config });
      if (!devKeyIsActive(retry)) throw new Error(`could not store the new ${label}`);
    } else if (!reused[i]) {
      console.log(rotateKey ? `✓ ${label} rotated (the old one is revoked)` : `✓ ${label} created`);
    }
    writeDevKey(account.keyFile, fresh[i]);
  }
  return { key: fresh[0], shardKeys: fresh.slice(1), signInToken: signIn.token, config };
}

/** Where wrangler dev will listen, as an origin a local client can reach (`0.0.0.0` → `127.0.0.1`). */
function devOrigin(devArgs) {
  let ip = optionValue(devArgs, "--ip") ?? DEFAULT_IP;
  if (ip === "0.0.0.0" || ip === "::" || ip === "*") ip = DEFAULT_IP;
  const port = optionValue(devArgs, "--port") ?? DEFAULT_PORT;
  return `http://${ip.includes(":") ? `[${ip}]` : ip}:${port}`;
}

/** Cron expressions of `[triggers] crons` in wrangler.toml. */
function configuredCrons() {
  const toml = readFileSync(join(ROOT, "wrangler.toml"), "utf8");
  const list = /^\s*crons\s*=\s*\[([^\]]*)\]/m.exec(toml)?.[1] ?? "";
  return [...list.matchAll(/"([^"]*)"/g)].map((match) => match[1]);
}

/**
 * wrangler dev never fires cron triggers by itself ("Scheduled Workers are not automatically triggered during local
 * development"), yet the tracking pipeline's sweep runs on the every-minute cron (wrangler.toml `* * * * *`). So,
 * while wrangler dev runs, this calls its /cdn-cgi/local/scheduled endpoint once a minute. Failures (server still
 * starting or reloading) are ignored: the next minute tries again.
 * @returns {() => void} stops the ticker
 */
function startCronTicker(origin) {
  const url = `${origin}/cdn-cgi/local/scheduled?cron=${encodeURIComponent(EVERY_MINUTE)}`;
  const timer = setInterval(() => {
    fetch(url, { signal: AbortSignal.timeout(30_000) })
      .then((response) => response.body?.cancel())
      .catch(() => undefined);
  }, 60_000);
  return () => clearInterval(timer);
}

function printBanner({ key, shardKeys, signInToken }, devArgs, { cron }) {
  const base = `${devOrigin(devArgs)}/v2`;
  const signInLink = `${devOrigin(devArgs)}/sign-in/link?token=${signInToken}`;
  const cronLine = cron
    ? "\n  Cron     triggered every minute by npm start (wrangler dev does not; --no-cron to stop)"
    : "";
  console.log(`
  API      ${base}
  Account  ${DEV_ACCOUNT_NAME} (${DEV_ACCOUNT_ID})
  API key  ${key}   (saved in .wrangler/dev-api-key; new one: npm start -- --rotate-key)
${DEV_ACCOUNTS.slice(1)
  .map(
    (
      account,
      i,
    ) => `  Shard ${account.shard}  ${account.name} (${account.id}), its rows in the local D1 ${shardBindingName(account.shard)}
  API key  ${shardKeys[i]}   (saved in .wrangler/${account.keyFile.split("/").pop()})`,
  )
  .join("\n")}
  Sign in  ${signInLink}
           (opens the dashboard as ${DEV_USER_EMAIL}, admin: one use, 24 h; a new link every npm start)
  MCP      ${devOrigin(devArgs)}/mcp   (Authorization: Token <key>, or sign in with OAuth from an MCP client)${cronLine}

${sourcesBanner({ root: ROOT, devArgs })}

  curl -H "Authorization: Token ${key}" ${base}/shipping_lines
`);
}

/** Runs wrangler dev in the foreground; resolves with the exit code to leave with. */
function runDev(devArgs, { cron, config }) {
  const args = ["dev", "--local"];
  // The generated config binds the local shards (scripts/lib/shards.mjs), unless the caller names a config.
  if (optionValue(devArgs, "--config") === undefined && optionValue(devArgs, "-c") === undefined) {
    args.push("--config", config);
  }
  if (optionValue(devArgs, "--ip") === undefined) args.push("--ip", DEFAULT_IP);
  if (optionValue(devArgs, "--port") === undefined) args.push("--port", DEFAULT_PORT);
  // Local development plays every supported carrier's journeys with the simulator (off in production config);
  // `npm start -- --var SIMULATOR_ENABLED:false` turns it off, `--var SIMULATION_SPEED:<days per minute>` retimes it.
  const setsVar = (name) =>
    devArgs.some(
      (arg, i) =>
        (arg === "--var" || arg.startsWith("--var=")) && `${arg} ${devArgs[i + 1] ?? ""}`.includes(`${name}:`),
    );
  if (!setsVar("SIMULATOR_ENABLED")) args.push("--var", "SIMULATOR_ENABLED:true");
  // Local development only (docs/decisions.md §Webhooks): webhooks may use http:// to a receiver on this machine
  // (`npm run receiver`); production configuration leaves WEBHOOK_ALLOW_INSECURE_HOSTS empty.
  if (!setsVar("WEBHOOK_ALLOW_INSECURE_HOSTS")) args.push("--var", "WEBHOOK_ALLOW_INSECURE_HOSTS:127.0.0.1,localhost");
  // Document upload and download URLs are signed (src/documents/signing.ts): a fresh local key per run (URLs are
  // short-lived; a blob reserved before a restart must be reserved again). Production sets the secret.
  if (!setsVar("DOCUMENT_SIGNING_KEY") && !process.env.DOCUMENT_SIGNING_KEY) {
    args.push("--var", `DOCUMENT_SIGNING_KEY:${randomBytes(32).toString("hex")}`);
  }
  // E-mail submissions (docs/configuration.md §E-mail submissions) accept mail for one domain only; production leaves
  // it empty until Email Routing is set up. Locally, `npm run keys -- mailbox` addresses end in this domain, and
  // wrangler dev's /cdn-cgi/handler/email delivers to the handler.
  // Local development only (docs/configuration.md §Sign-in): without an SMTP relay, sign-in e-mails (their links) go
  // to this terminal. Never set in a deployment.
  if (!setsVar("SIGN_IN_LINKS_TO_CONSOLE")) args.push("--var", "SIGN_IN_LINKS_TO_CONSOLE:true");
  if (!setsVar("EMAIL_SUBMISSION_DOMAIN")) args.push("--var", `EMAIL_SUBMISSION_DOMAIN:${LOCAL_EMAIL_DOMAIN}`);
  // OAuth for MCP (docs/mcp.md §Signing in with OAuth): on locally, so an MCP client (the Inspector) signs in through
  // the dashboard; `Token <key>` keeps working. `--var MCP_OAUTH:off` restores Bearer API keys (the wrangler.toml default).
  if (!setsVar("MCP_OAUTH")) args.push("--var", "MCP_OAUTH:on");
  args.push(...devArgs);
  const child = spawnWrangler(args, { stdio: "inherit" });
  const forward = (signal) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  };
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(signal, forward);
  const stopCron = cron ? startCronTicker(devOrigin(devArgs)) : undefined;
  return new Promise((resolvePromise) => {
    child.on("error", (err) => {
      stopCron?.();
      console.error(`npm start: could not run wrangler dev: ${err.message}`);
      resolvePromise(1);
    });
    child.on("exit", (code, signal) => {
      stopCron?.();
      resolvePromise(code ?? 128 + (constants.signals[signal] ?? 0));
    });
  });
}

function checkNode() {
  const [major, minor] = process.versions.node.split(".").map(Number);
  if (major > 22 || (major === 22 && minor >= 18)) return;
  console.error(
    `npm start needs Node 22.18 or later (found ${process.version}). Run it as \`npm start\`, which uses the ` +
      "project's Node from node_modules/.bin, after `npm install`.",
  );
  process.exit(1);
}

async function main() {
  const options = parseCommandLine(process.argv.slice(2));
  if (options.help) {
    console.log(
      "usage: npm start [-- --rotate-key] [--setup-only] [--no-cron] [<wrangler dev options>]\n" +
        "Prepares the local D1 database and a development API key, then runs wrangler dev.",
    );
    return 0;
  }
  checkNode();
  const credentials = await setUp(options);
  const cron = options.cron && !options.setupOnly && configuredCrons().includes(EVERY_MINUTE);
  printBanner(credentials, options.devArgs, { cron });
  if (options.setupOnly) return 0;
  return runDev(options.devArgs, { cron, config: credentials.config });
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(`npm start: ${err instanceof WranglerError ? err.message : (err?.stack ?? err)}`);
    process.exit(1);
  },
);
