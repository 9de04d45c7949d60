// `npm run bench -- engine`: the tracking engine's poll path (issue 3). Tracks N boxes under the journey simulator
// through the API (POST /v2/tracking_requests, looked up by the real tracking-requests consumer, each box attached
// to its Tracker Durable Object), then polls every box once through the real `terminal-polls` consumer, twice:
//   1. baseline: the same Worker with BENCH_ENGINE=noop, whose terminal-polls consumer acks every message unread;
//   2. engine: BENCH_ENGINE=trace, the real poll (Tracker plan, simulator carrier + terminal, Tracker applyPoll with
//      its D1 batch and storage write), each update logging the D1 round trips it made (src/tracking/bench-trace.ts).
// Both phases put the N messages on the queue at once (POST /__bench/engine/enqueue, answered only under
// BENCH_ENGINE) and time until the Worker logged the N-th message done. Afterwards, with wrangler stopped, every
// Tracker's storage is read from its SQLite file under the persistence directory (v3/do/*-Tracker/).
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join, relative } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { pathToFileURL } from "node:url";
import { startCpuMeter } from "../lib/cpu.mjs";
import { benchOptions } from "../lib/options.mjs";
import { fmt, machine, printTargets, sourceVersion, writeResult } from "../lib/report.mjs";
import { execStatements, generateTestKey, openForBulkLoad, seedAccount } from "../lib/seed.mjs";
import { applyMigrations, d1SqliteFile, ROOT, snapshotProject, startDev, wipePersistDir } from "../lib/wrangler.mjs";
import { printComparison, printRun, summarizeRun } from "./figures.mjs";

export const description = "engine: N tracked boxes polled once; polls/s vs a no-op consumer, D1 per poll, DO storage";

export const usage = `bench engine options (or the environment variable in brackets):
  --boxes N             boxes tracked and polled (BENCH_ENGINE_BOXES, default 2000)
  --concurrency N       concurrent POST /v2/tracking_requests while tracking them (default 20)
  --speed S             SIMULATION_SPEED, simulated days per real minute (BENCH_ENGINE_SPEED, default 0.001:
                        slow enough that no Tracker alarm polls a box during the run)
  --changed-boxes N     boxes polled again with the journeys jumped ahead, for changed polls (default 200)
  --changed-speed S     SIMULATION_SPEED of that phase (default 20 days/min)
  --port P              port of the bench's wrangler dev on 127.0.0.1 (BENCH_ENGINE_PORT, default 8790)
  --ref REF             measure the Worker of a git commit (e.g. the previous session's) instead of the working
                        tree (BENCH_ENGINE_REF)
  --ab REF              measure the Worker of REF ("before") and the working tree ("after") in one run, from the
                        same tracked state, interleaved (BENCH_ENGINE_AB; rounds default to 3)
  --rounds N            measured rounds (each: no-op, real poll and changed-poll phases) per Worker; medians are
                        reported (BENCH_ENGINE_ROUNDS, default 1, or 3 with --ab)
  --keep-state          keep .wrangler/bench-engine-state and the source snapshot .wrangler/bench-engine-src
  --check               exit 1 when a target fails (BENCH_CHECK=1)`;

const ACCOUNT_ID = "00000000-0000-7000-8000-00000000e061";
/** A line the simulator plays (tracking_supported) and an owner prefix of it (container-prefixes.csv). */
const SCAC = "MAEU";
const OWNER = "MSKU";
/** Issue 3 targets: D1 round trips per poll (unchanged, changed) and Tracker storage per box. */
const MAX_BATCHES_UNCHANGED = 1;
const MAX_BATCHES_CHANGED = 2;
const MAX_TRACKER_BYTES = 64 * 1024;

function options(argv) {
  const { values, num, flag } = benchOptions(argv, {
    boxes: { type: "string" },
    concurrency: { type: "string" },
    speed: { type: "string" },
    "changed-boxes": { type: "string" },
    "changed-speed": { type: "string" },
    port: { type: "string" },
    ref: { type: "string" },
    ab: { type: "string" },
    rounds: { type: "string" },
    "keep-state": { type: "boolean" },
    check: { type: "boolean" },
  });
  return {
    boxes: Math.floor(num("boxes", "BENCH_ENGINE_BOXES", 2000, 1)),
    concurrency: Math.floor(num("concurrency", null, 20, 1)),
    speed: num("speed", "BENCH_ENGINE_SPEED", 0.001, 0.000001),
    changedBoxes: Math.floor(num("changed-boxes", null, 200, 1)),
    changedSpeed: num("changed-speed", null, 20, 0.000001),
    port: Math.floor(num("port", "BENCH_ENGINE_PORT", 8790, 1)),
    ref: values.ref ?? process.env.BENCH_ENGINE_REF ?? null,
    ab: values.ab ?? process.env.BENCH_ENGINE_AB ?? null,
    rounds: Math.floor(num("rounds", "BENCH_ENGINE_ROUNDS", (values.ab ?? process.env.BENCH_ENGINE_AB) ? 3 : 1, 1)),
    keepState: values["keep-state"] === true,
    check: flag("check", "BENCH_CHECK"),
  };
}

/** ISO 6346 container number `OWNER` + 6-digit serial + check digit. */
export function containerNumber(owner, serial) {
  const base = `${owner}${String(serial).padStart(6, "0")}`;
  const value = (ch) => {
    if (/\d/.test(ch)) return Number(ch);
    let v = 10 + ch.charCodeAt(0) - 65;
    // Letter values skip the multiples of 11 (11, 22, 33).
    v += Math.floor((v - 1) / 10);
    return v;
  };
  let sum = 0;
  for (let i = 0; i < 10; i++) sum += value(base[i]) * 2 ** i;
  return `${base}${(sum % 11) % 10}`;
}

function step(text) {
  console.log(`[${new Date().toISOString().slice(11, 19)}] ${text}`);
}

/** The `bench-engine {...}` lines the Worker wrote to `logFile` so far, parsed. */
function traceLines(logFile) {
  let text;
  try {
    text = readFileSync(logFile, "utf8");
  } catch {
    return [];
  }
  const out = [];
  for (const m of text.matchAll(/bench-engine (\{[^\n]*\})/g)) {
    try {
      out.push(JSON.parse(m[1]));
    } catch {
      // a line cut by a concurrent write; read again next time
    }
  }
  return out;
}

/** Boxes with at least one poll (not a subscription) among the trace lines. */
function distinctPolled(lines) {
  return new Set(lines.filter((l) => l.joining === 0 && l.box !== undefined).map((l) => l.box)).size;
}

/** Runs `fn` over `items` with at most `limit` in flight. */
async function pool(items, limit, fn) {
  let next = 0;
  const workers = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      await fn(items[i], i);
    }
  });
  await Promise.all(workers);
}

/** Creates one container tracking request per number; resolves when every POST answered 2xx. */
async function trackBoxes(baseUrl, key, numbers, concurrency) {
  await pool(numbers, concurrency, async (number) => {
    const res = await fetch(`${baseUrl}/v2/tracking_requests`, {
      method: "POST",
      headers: { authorization: `Token ${key}`, "content-type": "application/json" },
      body: JSON.stringify({
        data: {
          type: "tracking_request",
          attributes: { request_type: "container", request_number: number, scac: SCAC },
        },
      }),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`POST /v2/tracking_requests ${number}: HTTP ${res.status} ${text.slice(0, 300)}`);
  });
}

/** Tracking requests of the bench account by status, read from the local D1 file (read-only, wrangler running). */
function requestStatuses(persistDir) {
  const db = new DatabaseSync(d1SqliteFile(persistDir), { readOnly: true });
  try {
    const rows = db
      .prepare("SELECT status, count(*) AS n FROM tracking_requests WHERE account_id = ? GROUP BY status")
      .all(ACCOUNT_ID);
    return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
  } finally {
    db.close();
  }
}

async function waitFor(what, timeoutMs, check) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const done = check();
    if (done) return done;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * One measured phase: starts wrangler dev with `BENCH_ENGINE=mode`, enqueues one poll per box in one request and
 * waits until the Worker logged every message done (`count(lines)` reaches N).
 */
async function pollPhase({ project, persistDir, opts, mode, label = mode, boxes, count }) {
  const logFile = join(ROOT, "bench", "results", `wrangler-engine-${label}.log`);
  const dev = await startDev({
    cwd: project,
    persistDir,
    port: opts.port,
    vars: { ...baseVars(opts), BENCH_ENGINE: mode },
    logFile,
  });
  try {
    const before = traceLines(logFile).length;
    if (before !== 0) throw new Error(`${mode}: ${before} polls logged before any was enqueued (Tracker alarms?)`);
    const meter = startCpuMeter(dev.pid);
    const started = performance.now();
    const res = await fetch(`${dev.baseUrl}/__bench/engine/enqueue`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(boxes.map((number) => ({ scac: SCAC, number }))),
    });
    const answer = await res.text();
    if (!res.ok) throw new Error(`${mode}: enqueue answered HTTP ${res.status}: ${answer.slice(0, 300)}`);
    const enqueuedMs = performance.now() - started;
    let lines = [];
    await waitFor(`${boxes.length} ${mode} polls`, Math.max(120_000, boxes.length * 200), () => {
      lines = traceLines(logFile);
      return count(lines) >= boxes.length;
    });
    const cpu = meter.stop();
    const seconds = (performance.now() - started) / 1000;
    if (!dev.alive()) throw new Error(`${mode}: wrangler dev died during the phase`);
    return { mode, seconds, enqueuedMs, pollsPerSecond: boxes.length / seconds, lines, cpu };
  } finally {
    await dev.stop();
  }
}

function baseVars(opts) {
  return {
    SIMULATOR_ENABLED: "true",
    SIMULATION_SPEED: String(opts.speed),
    RATE_LIMIT_DEFAULT: "1000000000",
    RATE_LIMIT_CREATE_TRACKING_REQUEST: "1000000000",
    RATE_LIMIT_REFRESH_CONTAINER: "1000000000",
  };
}

/**
 * Bytes each Tracker keeps: its SQLite file (+ WAL) under v3/do/*-Tracker/, and the bytes of its stored keys and
 * values (`_cf_KV`, where `ctx.storage.put` lands in a SQLite-backed object). Read with wrangler stopped. The file
 * size is page-granular (4 KiB pages, a few tables), so the stored bytes are what the 64 KiB target judges.
 */
function trackerStorage(persistDir) {
  const doDir = join(persistDir, "v3", "do");
  const dirs = existsSync(doDir) ? readdirSync(doDir).filter((d) => /-Tracker$/.test(d)) : [];
  if (dirs.length !== 1) throw new Error(`expected one *-Tracker directory under ${doDir}, found ${dirs.join(", ")}`);
  const dir = join(doDir, dirs[0]);
  const out = [];
  for (const file of readdirSync(dir).filter((f) => f.endsWith(".sqlite"))) {
    const path = join(dir, file);
    const wal = existsSync(`${path}-wal`) ? statSync(`${path}-wal`).size : 0;
    const db = new DatabaseSync(path, { readOnly: true });
    try {
      // miniflare also keeps a namespace-wide alarm file (only `_cf_ALARM`) here: not a Tracker.
      if (!db.prepare("SELECT 1 FROM sqlite_master WHERE name = '_cf_KV'").get()) continue;
      const kv = db
        .prepare("SELECT coalesce(sum(length(key) + length(value)), 0) AS bytes, count(*) AS n FROM _cf_KV")
        .get();
      out.push({ fileBytes: statSync(path).size + wal, kvBytes: Number(kv.bytes), keys: Number(kv.n) });
    } finally {
      db.close();
    }
  }
  return out;
}

/**
 * One measured run of the Worker in `project` on the tracked state in `persistDir`: the no-op consumer, the real
 * poll of every box (unchanged polls), then the first `--changed-boxes` boxes again with the journeys jumped ahead
 * (changed polls), and the Trackers' storage. Resolves to its figures (bench/engine/figures.mjs `summarizeRun`).
 */
async function measureRun({ project, persistDir, opts, boxes }) {
  const noop = await pollPhase({
    project,
    persistDir,
    opts,
    mode: "noop",
    boxes,
    count: (lines) => lines.reduce((a, l) => a + (l.noop ?? 0), 0),
  });
  step(`no-op consumer: ${boxes.length} messages in ${fmt(noop.seconds)} s`);
  const engine = await pollPhase({ project, persistDir, opts, mode: "trace", boxes, count: distinctPolled });
  step(`engine: ${boxes.length} polls in ${fmt(engine.seconds)} s`);
  // Changed polls: the journeys jump ahead (SIMULATION_SPEED raised), so most first polls bring events. Tracker
  // alarms then re-poll boxes every few seconds too; every poll line counts for D1 and CPU per poll, none for
  // throughput.
  const changedBoxes = boxes.slice(0, Math.min(boxes.length, opts.changedBoxes));
  const jump = await pollPhase({
    project,
    persistDir,
    opts: { ...opts, speed: opts.changedSpeed },
    mode: "trace",
    label: "changed",
    boxes: changedBoxes,
    count: distinctPolled,
  });
  step(`changed-poll phase: ${jump.lines.length} polls of ${changedBoxes.length} boxes in ${fmt(jump.seconds)} s`);
  return summarizeRun({ boxes: boxes.length, noop, engine, jump, storage: trackerStorage(persistDir) });
}

/** Runs the engine bench; resolves to the process exit code. */
export async function run(argv) {
  const opts = options(argv);
  const m = machine();
  console.log(
    `bench engine: ${opts.boxes} boxes (${SCAC}, simulator at ${opts.speed} days/min), 127.0.0.1:${opts.port}`,
  );
  console.log(
    `machine: ${m.cpus} × ${m.cpuModel}, Node ${m.node}, wrangler ${m.wrangler}, load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}`,
  );
  if (cpus().length <= 4) console.log("note: throughput is judged as a ratio to the no-op consumer in this run.");
  if (opts.ref && opts.ab)
    throw new Error("--ref and --ab do not go together (--ab compares REF with the working tree)");
  if (opts.ref) console.log(`source: git ${opts.ref} (not the working tree)`);
  const project = snapshotProject(join(ROOT, ".wrangler", "bench-engine-src"), opts.ref ? { ref: opts.ref } : {});
  const trees = [{ label: opts.ab ? "after (working tree)" : opts.ref ? `git ${opts.ref}` : "working tree", project }];
  if (opts.ab) {
    const before = snapshotProject(join(ROOT, ".wrangler", "bench-engine-src-before"), { ref: opts.ab });
    // Both Workers run on the one tracked state: their schemas must be the same.
    const migrations = (dir) =>
      readdirSync(join(dir, "migrations"))
        .filter((f) => f.endsWith(".sql"))
        .join(",");
    if (migrations(before) !== migrations(project)) throw new Error(`--ab ${opts.ab}: the migrations differ`);
    trees.unshift({ label: `before (git ${opts.ab})`, project: before });
    console.log(
      `source: git ${opts.ab} (before) and the working tree (after), ${opts.rounds} rounds each, interleaved`,
    );
  }
  const persistDir = join(ROOT, ".wrangler", "bench-engine-state");
  try {
    wipePersistDir(persistDir);
    await applyMigrations(persistDir, { cwd: project });
    const key = generateTestKey();
    const db = openForBulkLoad(d1SqliteFile(persistDir));
    try {
      const { referenceSeedStatements } = await import(
        pathToFileURL(join(project, "src", "reference", "seed.ts")).href
      );
      execStatements(db, referenceSeedStatements());
      seedAccount(db, { accountId: ACCOUNT_ID, key, containers: 0 });
    } finally {
      db.close();
    }
    const boxes = Array.from({ length: opts.boxes }, (_, i) => containerNumber(OWNER, 100_000 + i));

    // Setup: track every box through the API and the real lookup consumer (no bench instrumentation).
    const setupStarted = performance.now();
    const dev = await startDev({
      cwd: project,
      persistDir,
      port: opts.port,
      vars: baseVars(opts),
      logFile: join(ROOT, "bench", "results", "wrangler-engine-setup.log"),
    });
    try {
      step(`wrangler dev ready on ${dev.baseUrl}; tracking ${opts.boxes} boxes`);
      await trackBoxes(dev.baseUrl, key, boxes, opts.concurrency);
      step("tracking requests accepted; waiting for the lookups");
      const statuses = await waitFor("every tracking request created", Math.max(180_000, opts.boxes * 300), () => {
        const s = requestStatuses(persistDir);
        const settled = Object.entries(s).reduce((a, [k, n]) => (k === "pending" ? a : a + n), 0);
        return settled >= opts.boxes ? s : null;
      });
      if ((statuses.created ?? 0) !== opts.boxes) {
        throw new Error(`tracking requests did not all succeed: ${JSON.stringify(statuses)}`);
      }
    } finally {
      await dev.stop();
    }
    const setupSeconds = (performance.now() - setupStarted) / 1000;
    step(`${opts.boxes} boxes tracked in ${fmt(setupSeconds, 1)} s`);

    // Every run starts from this tracked state (a copy), so the Workers compared poll the same boxes alike.
    const setupCopy = join(ROOT, ".wrangler", "bench-engine-state-setup");
    const multi = trees.length * opts.rounds > 1;
    if (multi) {
      wipePersistDir(setupCopy);
      cpSync(persistDir, setupCopy, { recursive: true });
    }
    const runs = [];
    for (let round = 1; round <= opts.rounds; round++) {
      // Alternate the order (ABBA…), so neither Worker always runs later in the journeys or the machine's load.
      for (const tree of round % 2 === 1 ? trees : [...trees].reverse()) {
        if (runs.length > 0) {
          wipePersistDir(persistDir);
          cpSync(setupCopy, persistDir, { recursive: true });
        }
        step(`round ${round}/${opts.rounds}: ${tree.label}`);
        const summary = await measureRun({ project: tree.project, persistDir, opts, boxes });
        runs.push({ round, tree: tree.label, summary });
      }
    }
    const labels = trees.map((t) => t.label);
    if (runs.length === 1) printRun(runs[0].summary, opts.boxes);
    else printComparison(runs, labels, opts.boxes);
    const all = runs.map((r) => r.summary);
    const targets = [
      {
        name: "D1 batches per unchanged poll (max)",
        value: Math.max(...all.map((s) => s.d1.unchanged.batches.max)),
        op: "≤",
        threshold: MAX_BATCHES_UNCHANGED,
      },
      {
        name: "D1 batches per changed poll (max)",
        value: Math.max(...all.map((s) => s.d1.changed.batches.max)),
        op: "≤",
        threshold: MAX_BATCHES_CHANGED,
      },
      {
        name: "Tracker stored bytes per box (max, KiB)",
        value: Math.max(...all.map((s) => s.storage.kv.max)) / 1024,
        op: "≤",
        threshold: MAX_TRACKER_BYTES / 1024,
      },
    ];
    const noChanged = all.every((s) => s.counts.changed === 0);
    // With no changed poll in the run there is nothing to judge for it (printed as a note below).
    if (noChanged) targets.splice(1, 1);
    console.log("");
    const pass = printTargets(targets);
    if (noChanged) console.log("note: no poll changed a box in this run; the changed-poll target is n/a.");
    const out = writeResult("engine", {
      bench: "engine",
      finishedAt: new Date().toISOString(),
      source: sourceVersion(),
      machine: m,
      options: opts,
      setupSeconds,
      workers: labels,
      runs,
      targets,
    });
    console.log(`results written to ${relative(ROOT, out)}`);
    return opts.check && !pass ? 1 : 0;
  } finally {
    if (!opts.keepState) {
      rmSync(persistDir, { recursive: true, force: true });
      rmSync(join(ROOT, ".wrangler", "bench-engine-state-setup"), { recursive: true, force: true });
      for (const tree of trees) rmSync(tree.project, { recursive: true, force: true });
    }
  }
}
