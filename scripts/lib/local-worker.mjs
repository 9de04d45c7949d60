// A throwaway local Worker for scripts that need a real server (the MCP conformance run): `wrangler dev` on a free
// 127.0.0.1 port with its state in a fresh temporary directory (never .wrangler/state of `npm start`), the
// migrations applied, one account and one API key. Its process group is killed and the directory removed by
// stop(), on exit and on Ctrl-C.
import { spawn } from "node:child_process";
import { closeSync, existsSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { uuidv7 } from "uuidv7";
import { apiKeyPrefix, generateApiKey, hashApiKey } from "./api-keys.mjs";
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
 * @param {{ vars?: Record<string, string>, entitlements?: string[], timeoutMs?: number, log?: (line: string) => void }} [options]
 *   `vars`: extra `--var NAME:value`; `entitlements`: of the account (e.g. `["routing"]`)
 * @returns {Promise<{ origin: string, port: number, apiKey: string, accountId: string, logFile: string,
 *   stop: () => Promise<void> }>} `origin` like `http://127.0.0.1:40123`
 * @throws {Error} with the end of wrangler's log when it does not answer `GET /health` in time
 */
export async function startLocalWorker({ vars = {}, entitlements = [], timeoutMs = 60_000, log = () => {} } = {}) {
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
    await wrangler(["d1", "migrations", "apply", "DB", "--local", "--persist-to", persistDir]);
    // The account and key go straight into the D1 SQLite file miniflare keeps (wrangler is not running yet): one
    // wrangler run fewer than `wrangler d1 execute`, seconds on a busy machine.
    const accountId = uuidv7();
    const apiKey = generateApiKey("test");
    const now = nowIso();
    // Imported here: node:sqlite needs Node 22.5+ and warns that it is experimental when loaded.
    const { DatabaseSync } = await import("node:sqlite");
    const db = new DatabaseSync(d1SqliteFile(persistDir));
    try {
      db.prepare("INSERT INTO accounts (id, name, entitlements, created_at) VALUES (?, 'Local', ?, ?)").run(
        accountId,
        JSON.stringify(entitlements),
        now,
      );
      db.prepare(
        "INSERT INTO api_keys (id, account_id, name, key_hash, prefix, created_at) VALUES (?, ?, 'local', ?, ?, ?)",
      ).run(uuidv7(), accountId, hashApiKey(apiKey), apiKeyPrefix(apiKey), now);
    } finally {
      db.close();
    }
    log(`  state ready in ${((Date.now() - started) / 1000).toFixed(1)} s (${dir})`);

    const port = await freePort();
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
      "warn",
    ];
    for (const [name, value] of Object.entries(vars)) args.push("--var", `${name}:${value}`);
    const out = openSync(logFile, "w");
    const child = spawnGroup(process.execPath, args, { cwd: ROOT, env: wranglerEnv(), stdio: ["ignore", out, out] });
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
    return { origin, port, apiKey, accountId, logFile, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** The SQLite file miniflare keeps the local D1 database `DB` in (created by `wrangler d1 migrations apply`). */
function d1SqliteFile(persistDir) {
  const dir = join(persistDir, "v3", "d1", "miniflare-D1DatabaseObject");
  const files = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith(".sqlite") && f !== "metadata.sqlite") : [];
  if (files.length !== 1) throw new Error(`expected one D1 database file in ${dir}, found ${files.length}`);
  return join(dir, files[0]);
}

/** The last lines of a log file (for error messages). */
export function tail(file, lines = 20) {
  try {
    return readFileSync(file, "utf8").trim().split("\n").slice(-lines).join("\n");
  } catch {
    return "(no log)";
  }
}
