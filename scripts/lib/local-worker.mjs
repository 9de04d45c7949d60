// A throwaway local Worker for scripts that need a real server (the MCP conformance run, the docs check, the sources
// check): `wrangler dev` on a free 127.0.0.1 port with its state in a fresh temporary directory (never .wrangler/state
// of `npm start`), the migrations applied, one account and one API key. Its process group is killed and the directory
// removed by stop(), on exit and on Ctrl-C.
import { spawn } from "node:child_process";
import {
  closeSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { uuidv7 } from "uuidv7";
import { apiKeyPrefix, generateApiKey, hashApiKey } from "./api-keys.mjs";
import { shardBindingName, writeLocalShardsConfig } from "./shards.mjs";
import { nowIso, ROOT, runWrangler, WranglerError, wranglerEnv } from "./wrangler.mjs";

const HOST = "127.0.0.1";
const WRANGLER_JS = join(ROOT, "node_modules", "wrangler", "bin", "wrangler.js");

/** Process groups to kill when this Node process exits or is interrupted. */
const groups = new Set();
let hooksInstalled = false;

function killGroup(pgid, signal) {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

function installHooks() {
  if (hooksInstalled) return;
  hooksInstalled = true;
  process.on("exit", () => {
    for (const pgid of groups) killGroup(pgid, "SIGKILL");
  });
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
    process.once(signal, () => {
      for (const pgid of groups) killGroup(pgid, "SIGKILL");
      process.exit(130);
    });
  }
}

/** Starts `command args` detached in its own process group, killed on exit; returns the child. */
export function spawnGroup(command, args, options) {
  installHooks();
  const child = spawn(command, args, { ...options, detached: true });
  groups.add(child.pid);
  return child;
}

/** Stops a process group started by {@link spawnGroup}: SIGTERM, then SIGKILL after `graceMs`. */
export async function stopGroup(pgid, graceMs = 3000) {
  if (!groups.has(pgid)) return;
  killGroup(pgid, "SIGTERM");
  const deadline = Date.now() + graceMs;
  while (killGroup(pgid, 0) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  killGroup(pgid, "SIGKILL");
  groups.delete(pgid);
}

/** A TCP port on 127.0.0.1 that nothing listens on right now. */
export function freePort() {
  return new Promise((resolvePromise, reject) => {
    const server = createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, HOST, () => {
      const { port } = server.address();
      server.close(() => resolvePromise(port));
    });
  });
}

async function wrangler(args) {
  const output = await runWrangler(args, { env: { CI: "true" } });
  if (output.code !== 0) {
    const tail = `${output.stderr}\n${output.stdout}`.trim().split("\n").slice(-12).join("\n");
    throw new WranglerError(`wrangler ${args.slice(0, 3).join(" ")} failed:\n${tail}`, output);
  }
  return output;
}

/**
 * Starts the Worker of this repository under `wrangler dev --local`.
 * @param {{ vars?: Record<string, string>, secrets?: Record<string, string>, port?: number, testScheduled?: boolean,
 *   logLevel?: "debug" | "info" | "log" | "warn" | "error", seedReferenceData?: boolean, snapshot?: boolean,
 *   entitlements?: string[], shards?: number,
 *   setup?: (db: import("node:sqlite").DatabaseSync, ids: { accountId: string, now: string }) => void,
 *   timeoutMs?: number,
 *   log?: (line: string) => void }} [options]
 *   `vars`: extra `--var NAME:value`; `secrets`: Worker secrets, written to an env file in the temporary directory
 *   (mode 0600, passed with `--env-file`, so they never appear on a command line and wrangler lists them as hidden);
 *   `port`: the port to serve on (default: a free one; pass one from {@link freePort} when a var such as
 *   `PUBLIC_BASE_URL` must name the origin); `testScheduled`: serve `/__scheduled` to run the cron handler;
 *   `logLevel`: wrangler's `--log-level` (default `warn`; `log` keeps the Worker's console.log lines in the log file);
 *   `seedReferenceData`: upsert the ports and terminals as `npm start` and `npm run seed` do (src/reference/seed.ts;
 *   needed by anything that writes shipments: their rows reference ports and terminals); `snapshot`: serve a copy of
 *   src/ and wrangler.toml as they are now (in the temporary directory) instead of the working tree, so edits made
 *   while the check runs do not reload the Worker and drop its in-memory state and queued messages (wrangler dev
 *   watches its sources and has no flag to stop it); `entitlements`: of the account (e.g. `["routing"]`); `setup`: more rows written into the same D1 SQLite file
 *   before wrangler starts (e.g. the dashboard check's users), given the account's id; `shards`: how many D1 shards
 *   to run (docs/SCALING.md §Shards; default 1, only `DB`): each further one (`DB_1`, …, bound through a generated
 *   config, scripts/lib/shards.mjs) is migrated (and seeded with `seedReferenceData`) and gets an account and key of
 *   its own, returned in `shardAccounts`
 * @returns {Promise<{ origin: string, port: number, apiKey: string, accountId: string, logFile: string,
 *   shardAccounts: { shard: number, accountId: string, apiKey: string }[], stop: () => Promise<void> }>} `origin` like `http://127.0.0.1:40123`; `logFile` holds wrangler's stdout and stderr
 * @throws {Error} with the end of wrangler's log when it does not answer `GET /health` in time
 */
export async function startLocalWorker({
  vars = {},
  secrets = {},
  port: wantedPort,
  testScheduled = false,
  logLevel = "warn",
  seedReferenceData = false,
  snapshot = false,
  entitlements = [],
  shards = 1,
  setup,
  timeoutMs = 60_000,
  log = () => {},
} = {}) {
  const dir = mkdtempSync(join(tmpdir(), "ct-local-worker-"));
  const persistDir = join(dir, "state");
  const logFile = join(dir, "wrangler.log");
  let pgid;
  const stop = async () => {
    if (pgid !== undefined) await stopGroup(pgid);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const started = Date.now();
    const appDir = snapshot ? snapshotApp(join(dir, "app")) : ROOT;
    const config = shards > 1 ? writeLocalShardsConfig(shards, appDir) : undefined;
    const configArgs = config ? ["--config", config] : [];
    await wrangler(["d1", "migrations", "apply", "DB", "--local", "--persist-to", persistDir, ...configArgs]);
    // Each further shard's SQLite file is the one its migration run creates (miniflare names them by a hash of the id).
    const shardFiles = [d1SqliteFile(persistDir)];
    for (let n = 1; n < shards; n++) {
      await wrangler([
        "d1",
        "migrations",
        "apply",
        shardBindingName(n),
        "--local",
        "--persist-to",
        persistDir,
        ...configArgs,
      ]);
      const added = d1SqliteFiles(persistDir).filter((file) => !shardFiles.includes(file));
      if (added.length !== 1) throw new Error(`expected one new D1 database file for ${shardBindingName(n)}`);
      shardFiles.push(added[0]);
    }
    // The account and key go straight into the D1 SQLite file miniflare keeps (wrangler is not running yet): one
    // wrangler run fewer than `wrangler d1 execute`, seconds on a busy machine.
    const accountId = uuidv7();
    const apiKey = generateApiKey("test");
    const now = nowIso();
    // Imported here: node:sqlite needs Node 22.5+ and warns that it is experimental when loaded.
    const { DatabaseSync } = await import("node:sqlite");
    // Imported only when needed: the compiled reference data is large. Literal SQL upserts (the seed's own form).
    const seed = seedReferenceData ? (await import("../../src/reference/seed.ts")).referenceSeedStatements() : [];
    const shardAccounts = [];
    for (let n = 1; n < shards; n++) {
      const account = { shard: n, accountId: uuidv7(), apiKey: generateApiKey("test") };
      const shardDb = new DatabaseSync(shardFiles[n]);
      try {
        shardDb
          .prepare("INSERT INTO accounts (id, name, entitlements, shard, created_at) VALUES (?, ?, ?, ?, ?)")
          .run(account.accountId, `Local shard ${n}`, JSON.stringify(entitlements), n, now);
        shardDb.exec("BEGIN");
        for (const statement of seed) shardDb.exec(statement);
        shardDb.exec("COMMIT");
      } finally {
        shardDb.close();
      }
      shardAccounts.push(account);
    }
    const db = new DatabaseSync(shardFiles[0]);
    try {
      for (const account of shardAccounts) {
        db.prepare("INSERT INTO accounts (id, name, entitlements, shard, created_at) VALUES (?, ?, ?, ?, ?)").run(
          account.accountId,
          `Local shard ${account.shard}`,
          JSON.stringify(entitlements),
          account.shard,
          now,
        );
        db.prepare(
          "INSERT INTO api_keys (id, account_id, name, key_hash, prefix, created_at) VALUES (?, ?, 'local', ?, ?, ?)",
        ).run(uuidv7(), account.accountId, hashApiKey(account.apiKey), apiKeyPrefix(account.apiKey), now);
      }
      db.prepare("INSERT INTO accounts (id, name, entitlements, created_at) VALUES (?, 'Local', ?, ?)").run(
        accountId,
        JSON.stringify(entitlements),
        now,
      );
      db.prepare(
        "INSERT INTO api_keys (id, account_id, name, key_hash, prefix, created_at) VALUES (?, ?, 'local', ?, ?, ?)",
      ).run(uuidv7(), accountId, hashApiKey(apiKey), apiKeyPrefix(apiKey), now);
      if (seedReferenceData) {
        db.exec("BEGIN");
        for (const statement of seed) db.exec(statement);
        db.exec("COMMIT");
      }
      setup?.(db, { accountId, now });
    } finally {
      db.close();
    }
    log(`  state ready in ${((Date.now() - started) / 1000).toFixed(1)} s (${dir})`);

    const port = wantedPort ?? (await freePort());
    const inspectorPort = await freePort();
    const args = [
      WRANGLER_JS,
      "dev",
      "--local",
      "--ip",
      HOST,
      "--port",
      String(port),
      "--inspector-port",
      String(inspectorPort),
      "--persist-to",
      persistDir,
      "--show-interactive-dev-session=false",
      "--live-reload=false",
      "--log-level",
      logLevel,
      ...configArgs,
    ];
    for (const [name, value] of Object.entries(vars)) args.push("--var", `${name}:${value}`);
    if (Object.keys(secrets).length > 0) {
      const envFile = join(dir, "secrets.env");
      writeFileSync(envFile, envFileText(secrets), { mode: 0o600 });
      args.push("--env-file", envFile);
    }
    if (testScheduled) args.push("--test-scheduled");
    const out = openSync(logFile, "w");
    const child = spawnGroup(process.execPath, args, { cwd: appDir, env: wranglerEnv(), stdio: ["ignore", out, out] });
    closeSync(out);
    pgid = child.pid;
    let exited = null;
    child.on("exit", (code, signal) => {
      exited = code ?? signal;
    });
    const origin = `http://${HOST}:${port}`;
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (exited !== null) throw new Error(`wrangler dev exited (${exited}):\n${tail(logFile)}`);
      try {
        const res = await fetch(`${origin}/health`, { signal: AbortSignal.timeout(2000) });
        await res.arrayBuffer();
        if (res.ok) break;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline)
        throw new Error(`wrangler dev did not answer within ${timeoutMs / 1000} s:\n${tail(logFile)}`);
      await new Promise((r) => setTimeout(r, 250));
    }
    log(`  wrangler dev ready on ${origin} after ${((Date.now() - started) / 1000).toFixed(1)} s`);
    return { origin, port, apiKey, accountId, logFile, shardAccounts, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/**
 * Copies what `wrangler dev` builds from (src/, wrangler.toml, package.json, tsconfig.json) into `appDir` and links
 * what it only reads (node_modules, public, migrations); returns `appDir`.
 * @param {string} appDir a directory that does not exist yet
 */
function snapshotApp(appDir) {
  mkdirSync(appDir, { recursive: true });
  cpSync(join(ROOT, "src"), join(appDir, "src"), { recursive: true });
  for (const file of ["wrangler.toml", "package.json", "tsconfig.json"]) cpSync(join(ROOT, file), join(appDir, file));
  for (const linked of ["node_modules", "public", "migrations"]) symlinkSync(join(ROOT, linked), join(appDir, linked));
  return appDir;
}

/**
 * `secrets` as a dotenv file: one `NAME='value'` line each. dotenv takes a single-quoted value literally (no escapes,
 * no expansion), so JSON text such as `DCSA_SOURCES` survives as is; a value with a `'` or a line break is refused.
 * @param {Record<string, string>} secrets
 * @throws {Error} naming the variable (never the value) that cannot be written
 */
function envFileText(secrets) {
  return Object.entries(secrets)
    .map(([name, value]) => {
      if (!/^[A-Z_][A-Z0-9_]*$/.test(name)) throw new Error(`not a variable name: ${name}`);
      if (/['\r\n]/.test(value)) throw new Error(`${name}: a secret written here has no ' and no line break`);
      return `${name}='${value}'\n`;
    })
    .join("");
}

/** The SQLite files miniflare keeps local D1 databases in (each created by its `wrangler d1 migrations apply`). */
function d1SqliteFiles(persistDir) {
  const dir = join(persistDir, "v3", "d1", "miniflare-D1DatabaseObject");
  const files = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith(".sqlite") && f !== "metadata.sqlite") : [];
  return files.map((file) => join(dir, file));
}

/** The SQLite file of the local D1 database `DB`, when it is the only one (just after its migrations). */
function d1SqliteFile(persistDir) {
  const files = d1SqliteFiles(persistDir);
  if (files.length !== 1) throw new Error(`expected one D1 database file in ${persistDir}, found ${files.length}`);
  return files[0];
}

/** The last lines of a log file (for error messages). */
export function tail(file, lines = 20) {
  try {
    return readFileSync(file, "utf8").trim().split("\n").slice(-lines).join("\n");
  } catch {
    return "(no log)";
  }
}
