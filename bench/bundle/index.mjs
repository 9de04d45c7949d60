// bench/bundle: what makes the Worker bundle's size and what its cold start costs (issue 29 §4).
//
// For the working tree (and, with --ref, a git commit to compare with, measured in the same run, interleaved):
//   1. builds the Worker as deploy does (`wrangler deploy --dry-run --outdir --metafile`) and reports its size raw
//      and gzip (wrangler's own `Total Upload` figures), the top packages and modules by bytes in the output (from
//      the esbuild metafile, with the import chain that brings each package in), packages bundled from two
//      directories and known families bundled twice (bench/bundle/metafile.mjs);
//   2. runs `wrangler check startup` S times: the V8 CPU profile of the Worker's global scope in a local workerd,
//      its active time (Cloudflare refuses an upload whose startup exceeds 1 s) and that time by package
//      (bench/bundle/profile.mjs);
//   3. starts `wrangler dev` fresh R times on a seeded local D1 and times, on each start, the first GET /health,
//      the first authenticated GET /v2/containers and the first POST /mcp initialize (in that order), then W warm
//      requests of each; reports medians and cold ÷ warm.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join, relative } from "node:path";
import { pathToFileURL } from "node:url";
import { groupCpu, groupCpuOf } from "../lib/cpu.mjs";
import { benchOptions } from "../lib/options.mjs";
import { fmt, machine, printTable, sourceVersion, writeResult } from "../lib/report.mjs";
import { execStatements, generateTestKey, openForBulkLoad, seedAccount } from "../lib/seed.mjs";
import {
  applyMigrations,
  d1SqliteFile,
  ROOT,
  runWrangler,
  snapshotProject,
  startDev,
  wipeBenchDir,
  wipePersistDir,
} from "../lib/wrangler.mjs";
import { analyseMetafile } from "./metafile.mjs";
import { lineOwners, reportedActive, startupCpu } from "./profile.mjs";

export const description =
  "Worker bundle: size raw/gzip, top packages and modules (esbuild metafile), duplicates, startup CPU, cold first requests";

export const usage = `bench bundle options (or the environment variable in brackets):
  --ref REF             also measure this git commit (e.g. main), interleaved with the working tree (BENCH_REF)
  --minify              also measure the working tree built with --minify (BENCH_MINIFY=1), as a third variant
  --rounds N            fresh wrangler dev starts per variant for the cold requests (BENCH_ROUNDS, default 3; 0 skips)
  --startup-runs N      wrangler check startup runs per variant (BENCH_STARTUP_RUNS, default 5; 0 skips)
  --warm N              warm requests of each kind after the cold ones, per start (BENCH_WARM, default 10)
  --top N               rows of the package and module tables (BENCH_TOP, default 15)
  --port P              port of the bench's wrangler dev on 127.0.0.1 (BENCH_PORT, default 8797)
  --keep-state          keep the bench's snapshots, bundles and state under .wrangler/bench-bundle-*`;

const ACCOUNT_ID = "00000000-0000-7000-8000-00000000b0d1";
const PROTOCOL_VERSION = "2025-06-18";
/** A static asset of public/ (tracked in git, so --ref snapshots have it): the assets server answers it without
 * running the Worker, so polling it tells wrangler dev is up while the Worker's first request is still to come. */
const READY_PATH = "/app/assets/app.css";
/** Cloudflare's startup limit (global scope parse + execution at upload), ms: developers.cloudflare.com/workers/platform/limits. */
const STARTUP_LIMIT_MS = 1000;
/** Cloudflare's Worker size limit since 2026-09-04: 64 MiB uncompressed, all plans (the gzip limits are gone). */
const SIZE_LIMIT_BYTES = 64 * 1024 * 1024;

function options(argv) {
  const { values, num, flag } = benchOptions(argv, {
    ref: { type: "string" },
    rounds: { type: "string" },
    "startup-runs": { type: "string" },
    warm: { type: "string" },
    top: { type: "string" },
    port: { type: "string" },
    minify: { type: "boolean" },
    "keep-state": { type: "boolean" },
  });
  return {
    ref: values.ref ?? process.env.BENCH_REF ?? null,
    rounds: Math.floor(num("rounds", "BENCH_ROUNDS", 3, 0)),
    startupRuns: Math.floor(num("startup-runs", "BENCH_STARTUP_RUNS", 5, 0)),
    warm: Math.floor(num("warm", "BENCH_WARM", 10, 1)),
    top: Math.floor(num("top", "BENCH_TOP", 15)),
    port: Math.floor(num("port", "BENCH_PORT", 8797)),
    minify: flag("minify", "BENCH_MINIFY"),
    keepState: values["keep-state"] === true,
  };
}

const step = (text) => console.log(`· ${text}`);
const median = (xs) => {
  const s = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (s.length === 0) return Number.NaN;
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const kib = (bytes) => fmt(bytes / 1024, 1);

/** `Total Upload: 12505.50 KiB / gzip: 2556.00 KiB` → bytes. */
function uploadSize(output) {
  const m = /Total Upload:\s*([\d.]+)\s*KiB\s*\/\s*gzip:\s*([\d.]+)\s*KiB/.exec(output);
  if (!m) throw new Error(`no "Total Upload" line in wrangler's output:\n${output.slice(-800)}`);
  return { raw: Number(m[1]) * 1024, gzip: Number(m[2]) * 1024 };
}

/** Builds a variant as `wrangler deploy` would, without uploading; returns sizes, the bundle and the metafile. */
async function build(variant, top) {
  const outDir = join(variant.dir, "..", `${variant.id}-out`);
  wipeBenchDir(outDir);
  const metaFile = join(outDir, "..", `${variant.id}-meta.json`);
  const output = await runWrangler(
    ["deploy", "--dry-run", "--outdir", outDir, "--metafile", metaFile, ...variant.wranglerArgs],
    { cwd: variant.dir },
  );
  const files = readdirSync(outDir)
    .filter((f) => !f.endsWith(".map") && f !== "README.md")
    .map((f) => ({ file: f, bytes: statSync(join(outDir, f)).size }));
  const bundleText = readFileSync(join(outDir, "index.js"), "utf8");
  return {
    ...uploadSize(output),
    files,
    owners: lineOwners(bundleText),
    analysis: analyseMetafile(JSON.parse(readFileSync(metaFile, "utf8")), { top }),
  };
}

/** One `wrangler check startup` of a variant: active ms (wrangler's figure and ours) and ms by package. */
async function startupRun(variant, run) {
  const file = join(variant.dir, "..", `${variant.id}-startup-${run}.cpuprofile`);
  const args = ["check", "startup", "--outfile", file];
  if (variant.wranglerArgs.length > 0) args.push(`--args=${variant.wranglerArgs.join(" ")}`);
  // wrangler gives the profile 10 s; on a loaded machine a run can time out: try twice more before giving up.
  let output;
  for (let attempt = 1; ; attempt++) {
    try {
      output = await runWrangler(args, { cwd: variant.dir });
      break;
    } catch (error) {
      if (attempt >= 3 || !/timed out/.test(String(error))) throw error;
      step(`${variant.label}: wrangler check startup timed out (attempt ${attempt}); again`);
    }
  }
  const profile = startupCpu(file, variant.build.owners);
  return { reported: reportedActive(output), ...profile };
}

/** Headers of an MCP POST. */
function mcpHeaders(key) {
  return {
    authorization: `Token ${key}`,
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": PROTOCOL_VERSION,
  };
}

const initializeBody = JSON.stringify({
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: { protocolVersion: PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: "bench-bundle", version: "1" } },
});

/** The three first requests of a start, in order. Each check throws unless the answer is the expected one. */
function requestsOf(key) {
  return [
    { id: "health", name: "GET /health", path: "/health", init: {}, check: (res) => res.status === 200 },
    {
      id: "containers",
      name: "GET /v2/containers (authenticated)",
      path: "/v2/containers?page[size]=30",
      init: { headers: { authorization: `Token ${key}` } },
      check: (res, text) => res.status === 200 && JSON.parse(text).data.length === 30,
    },
    {
      id: "mcpInitialize",
      name: "POST /mcp initialize",
      path: "/mcp",
      init: { method: "POST", headers: mcpHeaders(key), body: initializeBody },
      check: (res, text) =>
        res.status === 200 && !!res.headers.get("mcp-session-id") && text.includes("protocolVersion"),
    },
  ];
}

/** Times one request (ms, to the end of the body) and the server's CPU meanwhile (ms, 10 ms ticks from /proc). */
async function timed(baseUrl, request, pgid) {
  const cpu0 = groupCpu(pgid);
  const t0 = performance.now();
  const res = await fetch(`${baseUrl}${request.path}`, request.init);
  const text = await res.text();
  const ms = performance.now() - t0;
  const cpu1 = groupCpu(pgid);
  if (!request.check(res, text)) throw new Error(`${request.name}: HTTP ${res.status}: ${text.slice(0, 300)}`);
  return { ms, cpuMs: cpu0 && cpu1 ? cpu1.ms - cpu0.ms : null };
}

/** One fresh start of a variant: time to ready, each request's first answer, then `warm` more of each. */
async function coldStart(variant, opts, round) {
  const t0 = performance.now();
  const dev = await startDev({
    cwd: variant.dir,
    persistDir: variant.persistDir,
    port: opts.port,
    readyPath: READY_PATH,
    vars: { RATE_LIMIT_DEFAULT: "1000000000", RATE_LIMIT_CREATE_TRACKING_REQUEST: "1000000000" },
    logFile: join(ROOT, "bench", "results", `wrangler-bundle-${variant.id}-${round}.log`),
    extraArgs: variant.wranglerArgs,
  });
  const readyMs = performance.now() - t0;
  // The runtime's CPU so far (both workerd processes: wrangler's proxy and the one running the Worker): its start,
  // which includes compiling the bundle and running the Worker's global scope, plus the few readiness polls.
  const workerdReadyCpuMs = groupCpuOf(dev.pid, "workerd");
  try {
    const requests = requestsOf(variant.key);
    const first = {};
    for (const r of requests) first[r.id] = await timed(dev.baseUrl, r, dev.pid);
    const warm = {};
    for (const r of requests) {
      const samples = [];
      for (let i = 0; i < opts.warm; i++) samples.push((await timed(dev.baseUrl, r, dev.pid)).ms);
      warm[r.id] = median(samples);
    }
    return { readyMs, workerdReadyCpuMs, first, warm };
  } finally {
    await dev.stop();
  }
}

/** Snapshot, migrations and seed (100 containers, one key) of a variant's local state. */
async function prepare(variant) {
  snapshotProject(variant.dir, variant.ref ? { ref: variant.ref } : {});
  wipePersistDir(variant.persistDir);
  await applyMigrations(variant.persistDir, { cwd: variant.dir });
  const db = openForBulkLoad(d1SqliteFile(variant.persistDir));
  try {
    const { referenceSeedStatements } = await import(
      pathToFileURL(join(variant.dir, "src", "reference", "seed.ts")).href
    );
    execStatements(db, referenceSeedStatements());
    seedAccount(db, { accountId: ACCOUNT_ID, key: variant.key, containers: 100 });
  } finally {
    db.close();
  }
}

function printSizes(variants) {
  console.log("\nBundle size (wrangler deploy --dry-run; limit 64 MiB uncompressed since 2026-09-04)");
  printTable(
    ["variant", "raw KiB", "gzip KiB", "modules bundled", "files uploaded", "× base raw", "× base gzip"],
    variants.map((v) => [
      v.label,
      kib(v.build.raw),
      kib(v.build.gzip),
      v.build.analysis.inputs,
      v.build.files.map((f) => `${f.file} ${kib(f.bytes)}`).join(", "),
      fmt(v.build.raw / variants[0].build.raw),
      fmt(v.build.gzip / variants[0].build.gzip),
    ]),
  );
}

function printAnalysis(v) {
  const a = v.build.analysis;
  console.log(`\nTop packages by bytes in the bundle (${v.label})`);
  printTable(
    ["package", "KiB", "modules", "lazy", "brought in by"],
    a.packages.map((p) => [p.name, kib(p.bytes), p.modules, p.lazy ? "dynamic" : "", p.via.slice(0, 150)]),
  );
  console.log(`\nTop modules by bytes in the bundle (${v.label})`);
  printTable(
    ["module", "KiB"],
    a.modules.map((m) => [m.path, kib(m.bytes)]),
  );
  console.log(`\nBundled twice (${v.label})`);
  if (a.duplicates.length === 0) console.log("no package is bundled from two directories");
  for (const d of a.duplicates) {
    console.log(`${d.name}: ${d.copies.map((c) => `${c.root} ${kib(c.bytes)} KiB`).join("; ")}`);
  }
  for (const f of a.overlapping) {
    console.log(`${f.family}: ${f.members.map((m) => `${m.member} ${kib(m.bytes)} KiB`).join(" + ")}`);
  }
}

function printStartup(variants, top) {
  console.log(
    `\nStartup CPU (wrangler check startup, local workerd; medians; Cloudflare's limit ${STARTUP_LIMIT_MS} ms)`,
  );
  printTable(
    ["variant", "runs", "active ms (wrangler)", "active ms (profile)", "gc ms", "× base"],
    variants.map((v) => [
      v.label,
      v.startup.length,
      fmt(median(v.startup.map((s) => s.reported)), 1),
      fmt(median(v.startup.map((s) => s.active)), 1),
      fmt(median(v.startup.map((s) => s.gc)), 1),
      fmt(median(v.startup.map((s) => s.reported)) / median(variants[0].startup.map((s) => s.reported))),
    ]),
  );
  const keys = new Set(variants.flatMap((v) => v.startup.flatMap((s) => [...s.byPackage.keys()])));
  const rows = [...keys]
    .map((k) => [k, ...variants.map((v) => median(v.startup.map((s) => s.byPackage.get(k) ?? 0)))])
    .sort((a, b) => b[1] - a[1])
    .slice(0, top);
  console.log(
    "\nStartup CPU by package (self time, ms, medians of the runs; n/a: a minified bundle has no module comments)",
  );
  printTable(
    ["package", ...variants.map((v) => v.label)],
    rows.map(([k, ...ms]) => [k, ...ms.map((x, i) => (variants[i].build.owners.modules > 0 ? fmt(x, 1) : "n/a"))]),
  );
}

function printCold(variants) {
  console.log("\nCold start (fresh wrangler dev each round; first request of each kind, then warm; medians)");
  const rows = [];
  for (const v of variants) {
    rows.push([v.label, "wrangler dev start → ready", fmt(median(v.cold.map((c) => c.readyMs)), 0), "", "", ""]);
    const startCpu = median(v.cold.map((c) => c.workerdReadyCpuMs));
    const baseStartCpu = median(variants[0].cold.map((c) => c.workerdReadyCpuMs));
    rows.push([v.label, "workerd CPU until ready", "", fmt(startCpu, 0), "", `× base ${fmt(startCpu / baseStartCpu)}`]);
    for (const id of ["health", "containers", "mcpInitialize"]) {
      const first = median(v.cold.map((c) => c.first[id].ms));
      const warm = median(v.cold.map((c) => c.warm[id]));
      rows.push([
        v.label,
        { health: "GET /health", containers: "GET /v2/containers", mcpInitialize: "POST /mcp initialize" }[id],
        fmt(first, 1),
        fmt(median(v.cold.map((c) => c.first[id].cpuMs)), 0),
        fmt(warm, 1),
        fmt(first / warm, 1),
      ]);
    }
  }
  printTable(["variant", "request", "first ms", "server CPU ms", "warm ms", "first ÷ warm"], rows);
}

export async function run(argv) {
  const opts = options(argv);
  const m = machine();
  console.log(`bench bundle: ${opts.rounds} cold starts and ${opts.startupRuns} startup profiles per variant`);
  console.log(
    `machine: ${m.cpus} × ${m.cpuModel}, Node ${m.node}, wrangler ${m.wrangler}, load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}${cpus().length <= 4 ? " (shared: compare variants of this run, not runs)" : ""}`,
  );
  const base = join(ROOT, ".wrangler");
  const variant = (id, label, ref, wranglerArgs = []) => ({
    id,
    label,
    ref,
    wranglerArgs,
    dir: join(base, "bench-bundle", id),
    persistDir: join(base, `bench-bundle-state-${id}`),
    key: generateTestKey(),
  });
  const variants = [
    ...(opts.ref ? [variant("base", `base (${opts.ref})`, opts.ref)] : []),
    variant("current", "working tree"),
    ...(opts.minify ? [variant("minified", "working tree --minify", undefined, ["--minify"])] : []),
  ];
  try {
    for (const v of variants) {
      await prepare(v);
      v.build = await build(v, opts.top);
      step(
        `${v.label}: built ${kib(v.build.raw)} KiB (gzip ${kib(v.build.gzip)} KiB), state in ${relative(ROOT, v.persistDir)}`,
      );
    }
    printSizes(variants);
    for (const v of variants) printAnalysis(v);

    for (const v of variants) v.startup = [];
    for (let r = 1; r <= opts.startupRuns; r++) {
      for (const v of variants) v.startup.push(await startupRun(v, r));
      step(`startup profiles: ${r}/${opts.startupRuns}`);
    }
    if (opts.startupRuns > 0) printStartup(variants, opts.top);

    for (const v of variants) v.cold = [];
    for (let r = 1; r <= opts.rounds; r++) {
      for (const v of variants) v.cold.push(await coldStart(v, opts, r));
      step(`cold starts: ${r}/${opts.rounds}`);
    }
    if (opts.rounds > 0) printCold(variants);

    const file = writeResult("bundle", {
      machine: m,
      source: sourceVersion(),
      options: opts,
      limits: { startupMs: STARTUP_LIMIT_MS, sizeBytes: SIZE_LIMIT_BYTES },
      variants: variants.map((v) => ({
        id: v.id,
        label: v.label,
        ref: v.ref ?? null,
        wranglerArgs: v.wranglerArgs,
        size: { raw: v.build.raw, gzip: v.build.gzip, files: v.build.files },
        analysis: v.build.analysis,
        startup: v.startup.map((s) => ({ ...s, byPackage: Object.fromEntries(s.byPackage) })),
        cold: v.cold,
      })),
    });
    console.log(`\nresults: ${relative(ROOT, file)}`);
    return 0;
  } finally {
    if (!opts.keepState) {
      for (const v of variants) {
        if (existsSync(v.persistDir)) wipeBenchDir(v.persistDir);
      }
      wipeBenchDir(join(base, "bench-bundle"));
    }
  }
}
