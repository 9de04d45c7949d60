// Runs the project's own wrangler for the benches, always against a bench-private persistence directory and
// port, so a bench never touches the state or the server of `npm start` (.wrangler/state, port 8787).
import { execFileSync, spawn } from "node:child_process";
import { closeSync, cpSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer, Socket } from "node:net";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { wranglerEnv } from "../../scripts/lib/wrangler.mjs";
import { groupAlive, stopGroup, trackGroup } from "./cleanup.mjs";

/** Absolute path of the project root (the directory holding wrangler.toml). */
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const WRANGLER_JS = join(ROOT, "node_modules", "wrangler", "bin", "wrangler.js");
/** Benches only ever listen on and load this address. */
export const BENCH_HOST = "127.0.0.1";

/**
 * The environment of every bench's wrangler child: the scripts' own (`wranglerEnv` of scripts/lib/wrangler.mjs: no
 * telemetry, no fetches of Cloudflare metadata) without the local trace collector. `wrangler dev` (4.1xx) records a
 * span of every invocation (each request, D1 call and Durable Object call) into a local SQLite database for its local
 * explorer (`X_LOCAL_OBSERVABILITY`, on by default); that is a development aid that does not exist in production, it
 * runs on workerd's one thread, and it charges each endpoint by its number of invocations rather than by its work
 * (about a tenth of the thread under get-by-id; bench/README.md §Session 7). `BENCH_DEV_OBSERVABILITY=1` leaves it on,
 * to compare.
 */
function benchWranglerEnv() {
  return wranglerEnv(devObservability() ? {} : { X_LOCAL_OBSERVABILITY: "false" });
}

/** Whether the benches' wrangler runs with its local trace collector on (`BENCH_DEV_OBSERVABILITY=1`). */
export function devObservability() {
  return process.env.BENCH_DEV_OBSERVABILITY === "1";
}

/** The installed wrangler's version (for the results file). */
export function wranglerVersion() {
  try {
    return JSON.parse(readFileSync(join(ROOT, "node_modules", "wrangler", "package.json"), "utf8")).version;
  } catch {
    return "unknown";
  }
}

/**
 * Runs wrangler to completion with stdin closed and output captured.
 * @param {string[]} args
 * @param {{ cwd?: string }} [options] the project directory (holding wrangler.toml); the root by default
 * @throws {Error} with wrangler's last output lines when it exits non-zero
 */
export function runWrangler(args, { cwd = ROOT } = {}) {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [WRANGLER_JS, ...args], {
      cwd,
      env: benchWranglerEnv(),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (chunk) => {
      out += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk) => {
      out += chunk;
    });
    child.on("error", reject);
    child.on("close", (code) => {
      if (code === 0) resolvePromise(out);
      else {
        const tail = out.trim().split("\n").slice(-15).join("\n");
        reject(new Error(`wrangler ${args.slice(0, 3).join(" ")} exited with ${code}:\n${tail}`));
      }
    });
  });
}

/**
 * What a snapshot of the Worker holds (paths relative to the project root); `public` is wrangler.toml's `[assets]`
 * directory, which wrangler dev refuses to start without.
 */
const SNAPSHOT_PATHS = ["wrangler.toml", "src", "migrations", "public", "package.json", "tsconfig.json"];

/**
 * Copies the Worker's sources (wrangler.toml, src/, migrations/) as they are now into `dir`, under .wrangler/, and
 * returns `dir`. Benches run wrangler on the copy, so editing src/ during a run neither reloads the Worker under
 * load nor changes what is measured: a run measures the working tree as it was when it started. Modules are
 * still resolved from the project's node_modules (esbuild walks up from the copy). With `ref`, the copy is of that
 * git commit instead of the working tree (e.g. to compare a change with `HEAD`); with `from`, of another directory
 * laid out like the project (e.g. a patched copy, to measure a change before making it).
 */
export function snapshotProject(dir, { ref, from = ROOT } = {}) {
  if (resolve(from) === resolve(dir)) throw new Error(`cannot snapshot ${from} onto itself`);
  wipeBenchDir(dir);
  if (ref) {
    const paths = SNAPSHOT_PATHS.filter((path) => {
      try {
        execFileSync("git", ["cat-file", "-e", `${ref}:${path}`], { cwd: ROOT, stdio: "ignore" });
        return true;
      } catch {
        return false;
      }
    });
    if (!paths.includes("src")) throw new Error(`git ref ${ref} has no src/ (or is not a ref)`);
    const tar = execFileSync("git", ["archive", "--format=tar", ref, "--", ...paths], {
      cwd: ROOT,
      maxBuffer: 1 << 30,
    });
    execFileSync("tar", ["-x", "-C", dir], { input: tar });
    return dir;
  }
  if (!existsSync(join(from, "wrangler.toml"))) throw new Error(`${from} has no wrangler.toml`);
  for (const path of SNAPSHOT_PATHS) {
    if (existsSync(join(from, path))) cpSync(join(from, path), join(dir, path), { recursive: true });
  }
  return dir;
}

/** Removes and recreates a bench directory (refuses anything outside .wrangler/, and .wrangler/state). */
export function wipeBenchDir(dir) {
  const abs = resolve(dir);
  if (!abs.startsWith(`${join(ROOT, ".wrangler")}/`) || abs === join(ROOT, ".wrangler", "state")) {
    throw new Error(`refusing to wipe ${abs}: bench directories must live under .wrangler/ and not be .wrangler/state`);
  }
  rmSync(abs, { recursive: true, force: true });
  mkdirSync(abs, { recursive: true });
}

/** Removes and recreates a bench persistence directory (refuses anything outside .wrangler/). */
export const wipePersistDir = wipeBenchDir;

/** Applies the migrations of the project in `cwd` to the local D1 database kept in `persistDir`. */
export async function applyMigrations(persistDir, { cwd = ROOT } = {}) {
  await runWrangler(["d1", "migrations", "apply", "DB", "--local", "--persist-to", resolve(persistDir)], { cwd });
}

/**
 * The SQLite file miniflare keeps the local D1 database `DB` in (created by {@link applyMigrations}). Write to it
 * only while no wrangler process has it open.
 */
export function d1SqliteFile(persistDir) {
  const dir = join(persistDir, "v3", "d1", "miniflare-D1DatabaseObject");
  const files = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith(".sqlite") && f !== "metadata.sqlite") : [];
  if (files.length !== 1) throw new Error(`expected one D1 database file in ${dir}, found ${files.length}`);
  return join(dir, files[0]);
}

/** Whether something already accepts connections on host:port. */
function portInUse(host, port) {
  return new Promise((resolvePromise) => {
    const socket = new Socket();
    socket.setTimeout(500);
    socket.once("connect", () => {
      socket.destroy();
      resolvePromise(true);
    });
    socket.once("timeout", () => {
      socket.destroy();
      resolvePromise(false);
    });
    socket.once("error", () => resolvePromise(false));
    socket.connect(port, host);
  });
}

/** A port nobody listens on right now (for the devtools inspector, so it never clashes with `npm start`'s). */
function freePort() {
  return new Promise((resolvePromise, reject) => {
    const server = createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, BENCH_HOST, () => {
      const { port } = server.address();
      server.close(() => resolvePromise(port));
    });
  });
}

/** Lines of a wrangler dev log that mean it will not serve until the sources change (build or startup errors). */
function startupFailure(logFile) {
  let text;
  try {
    text = readFileSync(logFile, "utf8");
  } catch {
    return null;
  }
  // biome-ignore lint/suspicious/noControlCharactersInRegex: strips ANSI colours from wrangler's output
  const lines = text.replace(/\x1b\[[0-9;]*m/g, "").split("\n");
  const at = lines.findIndex((l) => /Build failed|The Workers runtime failed to start/.test(l));
  return at === -1
    ? null
    : lines
        .slice(at, at + 6)
        .join("\n")
        .trim();
}

/**
 * Starts `wrangler dev` on 127.0.0.1:`port` with the bench's persistence directory and extra `--var`s, in its own
 * process group (killed on exit or interruption), and waits until `GET /health` (or `GET readyPath`) answers 200.
 *
 * `logLevel` defaults to `warn`: at `info` the dev server's entry worker sends every request's log line to the
 * wrangler Node process over a loopback HTTP call, which costs about as much CPU as a whole `GET /health` and
 * does not exist in production. Warnings, errors and the Worker's console.error output still reach `logFile`.
 * @param {{ cwd?: string, persistDir: string, port: number, vars?: Record<string, string>, logFile: string,
 *   logLevel?: string, timeoutMs?: number, testScheduled?: boolean, readyPath?: string,
 *   extraArgs?: string[] }} options `cwd`: the project (or snapshot) directory to run; `testScheduled`: serve
 *   `/__scheduled`, which runs the cron handler once; `readyPath`: the path polled until it answers 200 (default
 *   `/health`; bench/bundle polls a static asset, which the assets server answers without running the Worker, so the
 *   Worker's first request is still to come); `extraArgs`: more `wrangler dev` arguments (bench/bundle passes
 *   `--minify` for its minified variant)
 * @returns {Promise<{ baseUrl: string, pid: number, inspectorPort: number, stop: () => Promise<void>,
 *   alive: () => boolean }>} `pid` is also the process group id (for CPU accounting); `inspectorPort` speaks the
 *   Chrome DevTools protocol to the Worker (bench/lib/profile.mjs)
 */
export async function startDev({
  cwd = ROOT,
  persistDir,
  port,
  vars = {},
  logFile,
  logLevel = "warn",
  timeoutMs = 90_000,
  testScheduled = false,
  readyPath = "/health",
  extraArgs = [],
}) {
  if (await portInUse(BENCH_HOST, port)) {
    throw new Error(`port ${port} on ${BENCH_HOST} is already in use; pick another with --port`);
  }
  const inspectorPort = await freePort();
  const args = [
    WRANGLER_JS,
    "dev",
    "--local",
    "--ip",
    BENCH_HOST,
    "--port",
    String(port),
    "--inspector-port",
    String(inspectorPort),
    "--persist-to",
    resolve(persistDir),
    "--show-interactive-dev-session=false",
    "--live-reload=false",
    "--log-level",
    logLevel,
  ];
  for (const [name, value] of Object.entries(vars)) args.push("--var", `${name}:${value}`);
  if (testScheduled) args.push("--test-scheduled");
  args.push(...extraArgs);
  mkdirSync(dirname(logFile), { recursive: true });
  const log = openSync(logFile, "w");
  const child = spawn(process.execPath, args, {
    cwd,
    env: benchWranglerEnv(),
    stdio: ["ignore", log, log],
    detached: true,
  });
  closeSync(log);
  const pid = child.pid;
  trackGroup(pid);
  let exited = null;
  child.on("exit", (code, signal) => {
    exited = { code, signal };
  });
  const stop = () => stopGroup(pid);

  const baseUrl = `http://${BENCH_HOST}:${port}`;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (exited) {
      await stop();
      const tail = readFileSync(logFile, "utf8").trim().split("\n").slice(-20).join("\n");
      throw new Error(`wrangler dev exited (${exited.code ?? exited.signal}) before answering:\n${tail}`);
    }
    try {
      const res = await fetch(`${baseUrl}${readyPath}`, { signal: AbortSignal.timeout(2000) });
      await res.arrayBuffer();
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    const fatal = startupFailure(logFile);
    if (fatal) {
      await stop();
      throw new Error(`wrangler dev could not start the Worker (log: ${logFile}):\n${fatal}`);
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`wrangler dev did not answer GET ${readyPath} within ${timeoutMs / 1000} s (log: ${logFile})`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return { baseUrl, pid, inspectorPort, stop, alive: () => groupAlive(pid) };
}
