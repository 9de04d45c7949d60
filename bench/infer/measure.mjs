// bench/infer's measuring process, started by bench/infer/index.mjs as
//   node --expose-gc bench/infer/measure.mjs <count> <rounds> <seed>
// (a process of its own, so `gc()` is available and nothing else of `npm run bench` shares its heap). Prints one
// JSON object on stdout; bench/infer/index.mjs turns it into tables.
//
// What is timed is exactly what the route does in-process for one number, minus the D1 history lookup (a
// separate round trip, not part of the in-process cost): `classifyNumber(raw)` then
// `predictCarrier(classification)` with no history; 422 input throws `InvalidReferenceNumber`, as in the route.
import { GCProfiler, getHeapStatistics } from "node:v8";
import { generateNumbers } from "./numbers.mjs";

if (typeof globalThis.gc !== "function") {
  console.error("bench/infer/measure.mjs needs node --expose-gc");
  process.exit(2);
}
const gc = globalThis.gc;
const [count, rounds, seed] = process.argv.slice(2).map(Number);

/** Heap in use after a full collection (bytes). */
function settledHeap() {
  gc();
  gc();
  return getHeapStatistics().used_heap_size;
}

// The reference tables are built when the modules load: what that costs is the size a per-call rebuild would
// allocate on every number.
const heapBeforeModules = settledHeap();
const { classifyNumber, InvalidReferenceNumber } = await import("../../src/infer/classify.ts");
const { predictCarrier } = await import("../../src/infer/predict.ts");
// Touch both paths once so lazily created state (if any) exists before the baseline.
predictCarrier(classifyNumber("MSKU1234565"));
predictCarrier(classifyNumber("MAEU123456789"));
const tablesBytes = settledHeap() - heapBeforeModules;

const { numbers, counts } = generateNumbers(count, seed);

/** One pass over every number; returns elapsed ns, a checksum (so nothing is optimised away) and outcomes. */
function pass(withPrediction) {
  let checksum = 0;
  let rejected = 0;
  let predicted = 0;
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < numbers.length; i++) {
    try {
      const k = classifyNumber(numbers[i]);
      checksum += k.normalized.length;
      if (withPrediction) {
        const p = predictCarrier(k);
        checksum += p.candidates.length;
        if (p.selected) predicted++;
      }
    } catch (err) {
      if (!(err instanceof InvalidReferenceNumber)) throw err;
      rejected++;
    }
  }
  return { ns: Number(process.hrtime.bigint() - t0), checksum, rejected, predicted };
}

/**
 * Bytes allocated during `fn`: what is in use at the end minus at the start, plus everything the collections in
 * between freed (from V8's GC profiler: heap in use before and after each collection).
 */
function allocatedDuring(fn) {
  const start = settledHeap();
  const profiler = new GCProfiler();
  profiler.start();
  const result = fn();
  const profile = profiler.stop();
  const end = getHeapStatistics().used_heap_size;
  let freed = 0;
  for (const s of profile?.statistics ?? []) {
    freed += s.beforeGC.heapStatistics.usedHeapSize - s.afterGC.heapStatistics.usedHeapSize;
  }
  return { result, bytes: end - start + freed, collections: profile?.statistics?.length ?? 0 };
}

// Warm-up: one untimed pass of each, so the timed rounds measure optimised code.
pass(false);
pass(true);

const heapBefore = settledHeap();
const classifyOnly = [];
const full = [];
let outcome = null;
for (let r = 0; r < rounds; r++) {
  classifyOnly.push(pass(false).ns);
  const p = pass(true);
  full.push(p.ns);
  outcome = p;
}
const heapAfter = settledHeap();
const allocation = allocatedDuring(() => pass(true));

process.stdout.write(
  `${JSON.stringify({
    count,
    rounds,
    seed,
    counts,
    tablesBytes,
    classifyOnlyNs: classifyOnly,
    fullNs: full,
    rejected: outcome.rejected,
    predicted: outcome.predicted,
    checksum: outcome.checksum,
    heapBefore,
    heapAfter,
    allocatedBytes: allocation.bytes,
    allocationCollections: allocation.collections,
  })}\n`,
);
