// bench/sea-route: the sea routes of src/geo/sea-route.ts (docs/api.md §Sea routes), in-process, from a cold start:
// module load, the first route (builds the maritime network's graph, once per isolate), then the CPU time of N
// routes between random pairs of the reference data's ports, and the largest future_positions answer (43 200
// points: 30 days at one a minute) built and serialised. Figures are V8 CPU time in Node; the Worker runs the same
// code on the same engine.
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { benchOptions } from "../lib/options.mjs";
import { fmt, machine, printTable, sourceVersion, writeResult } from "../lib/report.mjs";

export const description =
  "Sea routes: graph build, CPU per route between random ports, the largest future_positions body";

export const usage = `bench sea-route options (or the environment variable in brackets):
  --pairs N   random port pairs routed (BENCH_SEA_ROUTE_PAIRS, default 500)
  --seed S    pair generator seed (BENCH_SEA_ROUTE_SEED, default 7)`;

const HERE = dirname(fileURLToPath(import.meta.url));

export async function run(argv) {
  const { num } = benchOptions(argv, { pairs: { type: "string" }, seed: { type: "string" } });
  const pairs = Math.floor(num("pairs", "BENCH_SEA_ROUTE_PAIRS", 500));
  const seed = Math.floor(num("seed", "BENCH_SEA_ROUTE_SEED", 7));
  const child = spawnSync(process.execPath, [join(HERE, "measure.mjs"), String(pairs), String(seed)], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  });
  if (child.status !== 0) throw new Error(`bench/sea-route/measure.mjs exited with ${child.status ?? child.signal}`);
  const m = JSON.parse(child.stdout.trim().split("\n").pop());
  console.log(`\nSea routes (${pairs} random port pairs, seed ${seed}), CPU ms`);
  printTable(
    ["step", "CPU ms"],
    [
      ["module load (network data)", fmt(m.moduleLoadMs, 1)],
      ["first route (builds the graph)", fmt(m.firstRouteMs, 1)],
      ["route p50", fmt(m.routeMs.p50, 2)],
      ["route p90", fmt(m.routeMs.p90, 2)],
      ["route p99", fmt(m.routeMs.p99, 2)],
      ["route max", fmt(m.routeMs.max, 2)],
    ],
  );
  console.log(`routes found: ${m.found}/${m.pairs}, mean ${fmt(m.meanNm, 0)} nm, longest ${m.maxPoints} positions`);
  console.log("\nLargest future_positions answer");
  printTable(
    ["points", "CPU ms (track + JSON)", "body bytes", "gzip bytes"],
    [[m.futurePositions.points, fmt(m.futurePositions.cpuMs, 1), m.futurePositions.bytes, m.futurePositions.gzipBytes]],
  );
  const file = writeResult("sea-route", { machine: machine(), source: sourceVersion(), pairs, seed, ...m });
  console.log(`\nresult: ${file}`);
  return m.found === m.pairs ? 0 : 1;
}
