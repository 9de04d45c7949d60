// bench/search: the first page of GET /v2/search as SQL (docs/architecture.md §Search index), in-process on two
// databases at once, so the ratio between sizes is not swayed by what else the machine does.
//
// Builds two SQLite databases with node:sqlite from the project's migrations (so the FTS5 table and the triggers are
// migration 0011's), seeds each with bench/lib/seed.mjs — the bench account with N containers (2 per shipment; default
// 10 000 and 1 000 000) and a small account of 100 containers with the same numbers — the index being filled by the
// triggers, as every production write fills it. Then runs the search's own statements (src/search/query.ts:
// CLASS_QUERY_SQL through runClasses, what src/search/service.ts runs in D1) for a first page of 25, alternating
// between the two databases, and prints p50/p99 per query and size and the p50 ratio large ÷ small.
import { mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { benchOptions } from "../lib/options.mjs";
import { fmt, machine, printTable, printTargets, sourceVersion, writeResult } from "../lib/report.mjs";
import { execStatements, generateTestKey, openForBulkLoad, seedAccount } from "../lib/seed.mjs";
import { ROOT } from "../lib/wrangler.mjs";

export const description =
  "Search: first page of GET /v2/search as SQL at 10 000 and 1 000 000 containers (in-process)";

export const usage = `bench search options (or the environment variable in brackets):
  --containers N        small database (BENCH_CONTAINERS, default 10000)
  --large-containers N  large database (BENCH_LARGE_CONTAINERS, default 1000000)
  --rounds N            timed searches per query and size (BENCH_ROUNDS, default 300)
  --keep-state          keep the databases in .wrangler/bench-search
  --check               exit 1 when a target fails (BENCH_CHECK=1)`;

/** docs/api.md §Search: the first page at 1 M containers within 1.5 × its time at 10 k. */
const TARGET_RATIO = 1.5;
const PAGE = 25;
const QUERIES = [
  { query: "USLAX", what: "whole term of every shipment and container" },
  { query: "BNCU", what: "prefix of every container number" },
  { query: "0001234", what: "inside a few numbers (all three classes asked)" },
];
const BENCH_ACCOUNT = "00000000-0000-7000-8000-00000000be01";
const SMALL_ACCOUNT = "00000000-0000-7000-8000-00000000be02";

function options(argv) {
  const { num, flag } = benchOptions(argv, {
    containers: { type: "string" },
    "large-containers": { type: "string" },
    rounds: { type: "string" },
    "keep-state": { type: "boolean" },
    check: { type: "boolean" },
  });
  return {
    containers: num("containers", "BENCH_CONTAINERS", 10_000),
    largeContainers: num("large-containers", "BENCH_LARGE_CONTAINERS", 1_000_000),
    rounds: num("rounds", "BENCH_ROUNDS", 300),
    keepState: flag("keep-state"),
    check: flag("check", "BENCH_CHECK"),
  };
}

/** The migrations, statement by statement, as wrangler applies them. */
function migrate(db) {
  const dir = join(ROOT, "migrations");
  for (const file of readdirSync(dir)
    .filter((f) => f.endsWith(".sql"))
    .sort()) {
    for (const statement of readFileSync(join(dir, file), "utf8").split("--> statement-breakpoint")) {
      if (statement.trim()) db.exec(statement);
    }
  }
}

async function build(file, containers) {
  const t0 = performance.now();
  rmSync(file, { force: true });
  const db = openForBulkLoad(file);
  migrate(db);
  const { referenceSeedStatements } = await import(pathToFileURL(join(ROOT, "src", "reference", "seed.ts")).href);
  execStatements(db, referenceSeedStatements());
  seedAccount(db, {
    accountId: BENCH_ACCOUNT,
    key: generateTestKey(),
    containers,
    onProgress: (done) => {
      if (containers >= 500_000 && done % 200_000 === 0) console.log(`·   ${done} containers…`);
    },
  });
  seedAccount(db, { accountId: SMALL_ACCOUNT, key: generateTestKey(), containers: 100 });
  const seconds = (performance.now() - t0) / 1000;
  console.log(`· ${file}: ${containers} + 100 containers, index filled by the triggers (${seconds.toFixed(1)} s)`);
  return { db, seconds };
}

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];

export async function run(argv) {
  const opts = options(argv);
  const { runClasses, CLASS_QUERY_SQL } = await import(pathToFileURL(join(ROOT, "src", "search", "query.ts")).href);
  const dir = join(ROOT, ".wrangler", "bench-search");
  mkdirSync(dir, { recursive: true });
  console.log(`bench search: ${opts.containers} and ${opts.largeContainers} containers, ${opts.rounds} rounds`);
  const small = await build(join(dir, "small.sqlite"), opts.containers);
  const large = await build(join(dir, "large.sqlite"), opts.largeContainers);
  const sizes = [
    { name: String(opts.containers), ...small, stmt: small.db.prepare(CLASS_QUERY_SQL) },
    { name: String(opts.largeContainers), ...large, stmt: large.db.prepare(CLASS_QUERY_SQL) },
  ];
  const search = async (size, account, query) =>
    runClasses(query, PAGE + 1, (expression, limit) => size.stmt.all(account, expression, limit, 0));

  const rows = [];
  const targets = [];
  const results = [];
  for (const { query, what } of QUERIES) {
    for (const [account, label] of [
      [BENCH_ACCOUNT, "bench account"],
      [SMALL_ACCOUNT, "100-container account"],
    ]) {
      const times = sizes.map(() => []);
      const found = [];
      for (const [i, size] of sizes.entries()) found[i] = (await search(size, account, query)).length; // warm
      for (let r = 0; r < opts.rounds; r++) {
        for (const [i, size] of sizes.entries()) {
          const t0 = performance.now();
          await search(size, account, query);
          times[i].push(performance.now() - t0);
        }
      }
      const stats = times.map((t) => {
        const sorted = [...t].sort((a, b) => a - b);
        return { p50: quantile(sorted, 0.5), p99: quantile(sorted, 0.99) };
      });
      const ratio = stats[1].p50 / stats[0].p50;
      rows.push([
        `"${query}" (${label})`,
        `${found[0]}/${found[1]}`,
        fmt(stats[0].p50 * 1000, 0),
        fmt(stats[0].p99 * 1000, 0),
        fmt(stats[1].p50 * 1000, 0),
        fmt(stats[1].p99 * 1000, 0),
        fmt(ratio),
      ]);
      results.push({ query, what, account: label, found, stats });
      targets.push({
        name: `"${query}" ${label}: p50 at ${opts.largeContainers} ÷ p50 at ${opts.containers}`,
        value: ratio,
        op: "≤",
        threshold: TARGET_RATIO,
      });
    }
  }
  console.log("");
  printTable(
    [
      "first page of",
      "rows (small/large)",
      `p50 µs ${opts.containers}`,
      `p99 µs ${opts.containers}`,
      `p50 µs ${opts.largeContainers}`,
      `p99 µs ${opts.largeContainers}`,
      "p50 ratio",
    ],
    rows,
  );
  const pass = printTargets(targets);
  for (const s of sizes) s.db.close();
  if (!opts.keepState) rmSync(dir, { recursive: true, force: true });
  const file = writeResult("search", {
    bench: "search",
    finishedAt: new Date().toISOString(),
    source: sourceVersion(),
    machine: machine(),
    options: opts,
    seedSeconds: sizes.map((s) => ({ containers: s.name, seconds: s.seconds })),
    results,
    targets,
  });
  console.log(`\nresults written to ${file}`);
  return opts.check && !pass ? 1 : 0;
}
