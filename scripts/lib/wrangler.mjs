// Runs the project's own wrangler (node_modules/wrangler) for the scripts in scripts/: D1 queries against the local
// or remote database, migrations, and `wrangler dev`.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** Absolute path of the project root (the directory holding wrangler.toml). */
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** The D1 binding name in wrangler.toml; wrangler accepts the binding or the database name. */
export const D1_BINDING = "DB";

/**
 * The e-mail submission domain `npm start` gives the local Worker (`EMAIL_SUBMISSION_DOMAIN`, docs/configuration.md
 * §E-mail submissions), so `npm run keys -- mailbox` prints a local address wrangler dev's email endpoint accepts.
 */
export const LOCAL_EMAIL_DOMAIN = "mail.localhost";

// Wrangler's JS entry point, run with the Node that runs this script: inside `npm run` that is the project's
// Node 22 (devDependency `node`), which wrangler requires, whatever `node` the shell would find.
const WRANGLER_JS = join(ROOT, "node_modules", "wrangler", "bin", "wrangler.js");

/** Thrown when wrangler exits non-zero or prints something that is not the JSON asked for. */
export class WranglerError extends Error {
  /**
   * @param {string} message
   * @param {{ code: number | null, stdout: string, stderr: string }} output
   */
  constructor(message, output) {
    super(message);
    this.name = "WranglerError";
    this.output = output;
  }
}

/**
 * The environment for every wrangler child: no telemetry, no network fetches of Cloudflare metadata.
 * @param {Record<string, string>} [extra]
 * @returns {NodeJS.ProcessEnv}
 */
export function wranglerEnv(extra = {}) {
  return { ...process.env, CLOUDFLARE_CF_FETCH_ENABLED: "false", WRANGLER_SEND_METRICS: "false", ...extra };
}

/**
 * Starts wrangler with `args` from the project root and returns the child (for long-running `wrangler dev`).
 * @param {string[]} args
 * @param {{ stdio?: import("node:child_process").StdioOptions, env?: Record<string, string> }} [options]
 */
export function spawnWrangler(args, { stdio = "inherit", env } = {}) {
  return spawn(process.execPath, [WRANGLER_JS, ...args], { cwd: ROOT, stdio, env: wranglerEnv(env) });
}

/**
 * Runs wrangler to completion with stdin closed (so it never waits on a prompt) and its output captured.
 * @param {string[]} args
 * @param {{ env?: Record<string, string> }} [options]
 * @returns {Promise<{ code: number | null, stdout: string, stderr: string }>} resolves whatever the exit code
 */
export function runWrangler(args, { env } = {}) {
  return new Promise((resolvePromise, reject) => {
    const child = spawnWrangler(args, { stdio: ["ignore", "pipe", "pipe"], env });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk) => {
      stderr += chunk;
    });
    child.on("error", reject);
    child.on("close", (code) => resolvePromise({ code, stdout, stderr }));
  });
}

/**
 * SQL string literal for `wrangler d1 execute`, which takes no bound parameters: NULL for null/undefined,
 * otherwise the text in single quotes with every quote doubled (SQLite's only escape inside a literal).
 * @param {string | null | undefined} value
 * @returns {string}
 * @throws {TypeError} on a non-string or a NUL character (SQLite would cut the statement there)
 */
export function sqlLiteral(value) {
  if (value === null || value === undefined) return "NULL";
  if (typeof value !== "string") throw new TypeError(`sqlLiteral expects a string, got ${typeof value}`);
  if (value.includes("\0")) throw new TypeError("sqlLiteral: NUL character in value");
  return `'${value.replaceAll("'", "''")}'`;
}

/** Extracts wrangler's `--json` payload from stdout (it may print a blank line or a banner before it). */
function parseJsonOutput(stdout) {
  const start = stdout.search(/[[{]/);
  if (start === -1) return undefined;
  try {
    return JSON.parse(stdout.slice(start));
  } catch {
    return undefined;
  }
}

/** One line of wrangler's error, for messages: its JSON `error.text` if any, else the last output lines. */
function describeFailure({ stdout, stderr }, parsed) {
  const text = parsed && !Array.isArray(parsed) ? parsed.error?.text : undefined;
  if (text) return text;
  const lines = `${stderr}\n${stdout}`
    .split("\n")
    .map((line) => line.trimEnd())
    .filter((line) => line.trim() !== "");
  return lines.slice(-12).join("\n") || "no output";
}

/**
 * Runs SQL with `wrangler d1 execute DB --local|--remote` and returns the rows of each statement, in order.
 *
 * `sql` goes through `--command` (wrangler splits it on `;`; its results come back for local and remote alike);
 * `file` goes through `--file` (for large scripts such as the reference seed; against --remote wrangler imports
 * the file and returns no rows). Values in `sql` must be escaped with {@link sqlLiteral}.
 *
 * @param {{ sql?: string, file?: string, remote?: boolean, json?: boolean, binding?: string, config?: string }} options
 *   `json: false` prints wrangler's own output instead of parsing it, and resolves to `[]`; `binding`: the D1 binding
 *   (default `DB`, the primary; `DB_1`, … for the other shards, scripts/lib/shards.mjs); `config`: the wrangler
 *   configuration file (default wrangler.toml; npm start's local shards are in {@link LOCAL_SHARDS_CONFIG})
 * @returns {Promise<Array<Array<Record<string, unknown>>>>} one array of rows per statement
 * @throws {WranglerError} when wrangler fails (SQL error, missing table, not logged in for --remote, ...)
 */
export async function d1Execute({ sql, file, remote = false, json = true, binding = D1_BINDING, config }) {
  if ((sql === undefined) === (file === undefined)) throw new TypeError("d1Execute: pass exactly one of sql, file");
  const args = ["d1", "execute", binding, remote ? "--remote" : "--local", ...configArgs(config)];
  if (sql !== undefined) args.push("--command", sql);
  else args.push("--file", resolve(file));
  if (remote) args.push("--yes");
  if (json) args.push("--json");
  const output = await runWrangler(args);
  const parsed = json ? parseJsonOutput(output.stdout) : undefined;
  if (output.code !== 0) {
    const where = remote ? "remote" : "local";
    throw new WranglerError(
      `wrangler d1 execute ${binding} (${where}) failed: ${describeFailure(output, parsed)}`,
      output,
    );
  }
  if (!json) {
    process.stdout.write(output.stdout);
    return [];
  }
  if (!Array.isArray(parsed)) {
    throw new WranglerError(`wrangler d1 execute: unexpected output: ${describeFailure(output, parsed)}`, output);
  }
  return parsed.map((result) => (Array.isArray(result?.results) ? result.results : []));
}

/**
 * Runs many statements through a temporary .sql file (removed afterwards), for scripts too long for --command.
 * @param {string[]} statements complete statements, each ending with `;`
 * @param {{ remote?: boolean, binding?: string, config?: string }} [options] as {@link d1Execute}'s
 */
export async function d1ExecuteStatements(statements, { remote = false, binding = D1_BINDING, config } = {}) {
  const dir = mkdtempSync(join(tmpdir(), "container-tracking-"));
  const file = join(dir, "statements.sql");
  try {
    writeFileSync(file, `${statements.join("\n")}\n`);
    return await d1Execute({ file, remote, binding, config });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The wrangler configuration file npm start and the local scripts use when they run more than one shard: wrangler.toml
 * plus local-only `DB_n` bindings, written by scripts/lib/shards.mjs `writeLocalShardsConfig` (gitignored). It sits
 * beside wrangler.toml so that its relative paths (main, assets, migrations_dir) and the local state (.wrangler/state)
 * are the same.
 */
export const LOCAL_SHARDS_CONFIG = join(ROOT, "wrangler.local-shards.toml");

/** `--config <file>` when `config` is given, else nothing (wrangler reads wrangler.toml). */
function configArgs(config) {
  return config === undefined ? [] : ["--config", config];
}

/**
 * Applies pending migrations from ./migrations with `wrangler d1 migrations apply <binding>`, without prompting.
 * @param {{ remote?: boolean, binding?: string, config?: string }} [options] `binding`: the shard's D1 binding
 *   (default `DB`); `config`: the wrangler configuration that binds it (default wrangler.toml)
 * @returns {Promise<{ upToDate: boolean, applied: string[] }>} the migration files applied this time
 * @throws {WranglerError} with wrangler's output when a migration fails
 */
export async function applyMigrations({ remote = false, binding = D1_BINDING, config } = {}) {
  const output = await runWrangler(
    ["d1", "migrations", "apply", binding, remote ? "--remote" : "--local", ...configArgs(config)],
    { env: { CI: "true" } },
  );
  if (output.code !== 0) {
    throw new WranglerError(`wrangler d1 migrations apply ${binding} failed:\n${describeFailure(output)}`, output);
  }
  const applied = [...new Set(output.stdout.match(/\b\d{4}_[\w-]+\.sql\b/g) ?? [])];
  return { upToDate: /No migrations to apply/i.test(output.stdout), applied };
}

/** Now as the service writes timestamps: ISO 8601 UTC to the second, e.g. `2026-11-22T02:30:00Z`. */
export function nowIso() {
  return new Date().toISOString().replace(/\.\d{3}Z$/, "Z");
}
