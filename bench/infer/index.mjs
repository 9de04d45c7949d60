// bench/infer: in-process number classification and carrier prediction (issue 5), the work
// `POST /tracking_requests/infer_number` and auto-detect do for one number besides the D1 history lookup.
//
// Generates N numbers (default 100 000) from a fixed seed — valid and invalid container numbers with real owner
// prefixes, BLs with real BL prefixes, bookings, garbage (bench/infer/numbers.mjs) — and runs
// classifyNumber + predictCarrier over all of them for several rounds in a separate `node --expose-gc` process
// (bench/infer/measure.mjs). Prints numbers/s and µs/number (medians of the rounds), classification alone for
// comparison, the heap retained across the rounds and the bytes allocated per number next to the size of the
// reference tables (a per-call rebuild of a table would allocate at least that much per number).
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { machineCpuMs } from "../lib/cpu.mjs";
import { benchOptions } from "../lib/options.mjs";
import { fmt, machine, printTable, printTargets, sourceVersion, writeResult } from "../lib/report.mjs";

export const description = "Infer number: classifyNumber + predictCarrier over 100 000 generated numbers (in-process)";

export const usage = `bench infer options (or the environment variable in brackets):
  --numbers N   numbers generated (BENCH_INFER_NUMBERS, default 100000)
  --rounds N    timed passes over all of them; medians are reported (BENCH_ROUNDS, default 7)
  --seed S      generator seed (BENCH_INFER_SEED, default 5)
  --check       exit 1 when a target fails (BENCH_CHECK=1)`;

/** Issue 5: at least 100 000 numbers/s on this machine (under 10 µs each). */
const TARGET_NUMBERS_PER_S = 100_000;
/**
 * No per-call allocation of the reference tables: the bytes allocated per number must stay under 1 % of what the
 * tables take in the heap (a rebuild of them per call would allocate 100 % or more).
 */
const TARGET_ALLOCATION_SHARE_OF_TABLES = 0.01;

const HERE = dirname(fileURLToPath(import.meta.url));

function options(argv) {
  const { num, flag } = benchOptions(argv, {
    numbers: { type: "string" },
    rounds: { type: "string" },
    seed: { type: "string" },
    check: { type: "boolean" },
  });
  return {
    numbers: Math.floor(num("numbers", "BENCH_INFER_NUMBERS", 100_000)),
    rounds: Math.floor(num("rounds", "BENCH_ROUNDS", 7)),
    seed: Math.floor(num("seed", "BENCH_INFER_SEED", 5)),
    check: flag("check", "BENCH_CHECK"),
  };
}

const median = (values) => {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
};

const kib = (bytes) => `${fmt(bytes / 1024, 1)} KiB`;

export async function run(argv) {
  const opts = options(argv);
  console.log(
    `classifyNumber + predictCarrier over ${opts.numbers.toLocaleString("en")} numbers (seed ${opts.seed}), ` +
      `${opts.rounds} rounds, in a node --expose-gc child process`,
  );
  const cpu0 = machineCpuMs();
  const wall0 = performance.now();
  const child = spawnSync(
    process.execPath,
    ["--expose-gc", join(HERE, "measure.mjs"), String(opts.numbers), String(opts.rounds), String(opts.seed)],
    { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"], maxBuffer: 16 * 1024 * 1024 },
  );
  const wallMs = performance.now() - wall0;
  const cpu1 = machineCpuMs();
  if (child.status !== 0) throw new Error(`bench/infer/measure.mjs exited with ${child.status ?? child.signal}`);
  const m = JSON.parse(child.stdout.trim().split("\n").pop());
  // Cores busy meanwhile beyond the one the measuring process uses (other helpers, the OS).
  const otherLoad = cpu0 && cpu1 ? Math.max(0, (cpu1.busy - cpu0.busy) / wallMs - 1) : null;

  console.log("\nInputs");
  printTable(
    ["kind", "numbers"],
    Object.entries(m.counts).map(([k, n]) => [k, n]),
  );
  console.log(`(${m.rejected} answered 422 — InvalidReferenceNumber; ${m.predicted} got a selected carrier)`);

  const perSecond = (ns) => (m.count * 1e9) / ns;
  const usPer = (ns) => ns / 1000 / m.count;
  const rows = [
    ["classifyNumber", m.classifyOnlyNs],
    ["classifyNumber + predictCarrier", m.fullNs],
  ].map(([name, ns]) => [
    name,
    Math.round(perSecond(median(ns))),
    fmt(usPer(median(ns)), 3),
    Math.round(perSecond(Math.max(...ns))),
    Math.round(perSecond(Math.min(...ns))),
  ]);
  console.log(`\nThroughput (medians of ${m.rounds} rounds; slowest and fastest round beside)`);
  printTable(["path", "numbers/s", "µs/number", "slowest round /s", "fastest round /s"], rows);

  const allocatedPerNumber = m.allocatedBytes / m.count;
  console.log("\nMemory");
  printTable(
    ["figure", "value"],
    [
      ["reference tables in the heap (loading the infer modules)", kib(m.tablesBytes)],
      [`heap retained after ${m.rounds * 2} passes (after gc, growth)`, kib(m.heapAfter - m.heapBefore)],
      ["allocated per number (one pass, GC profiler)", `${fmt(allocatedPerNumber, 0)} B`],
      ["allocated per number ÷ reference tables", fmt(allocatedPerNumber / m.tablesBytes, 5)],
    ],
  );
  if (otherLoad !== null) console.log(`\nother load on the machine during the run: ${fmt(otherLoad, 2)} CPUs`);

  const fullPerSecond = perSecond(median(m.fullNs));
  const targets = [
    {
      name: "classify + predict numbers/s (median)",
      value: fullPerSecond,
      op: "≥",
      threshold: TARGET_NUMBERS_PER_S,
    },
    {
      name: "bytes allocated per number (≤ 1 % of the tables)",
      value: allocatedPerNumber,
      op: "≤",
      threshold: Math.round(m.tablesBytes * TARGET_ALLOCATION_SHARE_OF_TABLES),
    },
  ];
  const passed = printTargets(targets);
  const file = writeResult("infer", {
    options: opts,
    machine: machine(),
    source: sourceVersion(),
    otherLoadCpus: otherLoad,
    measured: m,
    derived: {
      classifyNumbersPerSecond: perSecond(median(m.classifyOnlyNs)),
      fullNumbersPerSecond: fullPerSecond,
      fullMicrosecondsPerNumber: usPer(median(m.fullNs)),
      retainedHeapGrowthBytes: m.heapAfter - m.heapBefore,
      allocatedBytesPerNumber: allocatedPerNumber,
    },
    targets,
  });
  console.log(`\nresults: ${file}`);
  return opts.check && !passed ? 1 : 0;
}
