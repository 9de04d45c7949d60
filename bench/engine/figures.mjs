// The figures of `npm run bench -- engine` (bench/engine/index.mjs): one run's phases summed up (throughput, server
// CPU per poll, D1 per poll and its writes by table, Tracker storage), and the medians of several runs per Worker
// (`--rounds`, `--ab`), printed as tables.
import { fmt, printTable } from "../lib/report.mjs";

/** n, mean, p50 and max of `values` (NaN when empty). */
export function stats(values) {
  const v = [...values].sort((a, b) => a - b);
  if (v.length === 0) return { n: 0, mean: Number.NaN, p50: Number.NaN, max: Number.NaN };
  return {
    n: v.length,
    mean: v.reduce((a, b) => a + b, 0) / v.length,
    p50: v[Math.floor((v.length - 1) / 2)],
    max: v[v.length - 1],
  };
}

/** The median of finite `values` (the mean of the middle two for an even count); NaN when none. */
export function median(values) {
  const v = values.filter(Number.isFinite).sort((a, b) => a - b);
  if (v.length === 0) return Number.NaN;
  const mid = Math.floor(v.length / 2);
  return v.length % 2 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
}

/**
 * Server CPU ms per unchanged poll (`a`) and per changed poll (`b`) from two phases of known mix:
 * `cpu1 = u1·a + c1·b`, `cpu2 = u2·a + c2·b` (Cramer's rule). The real-poll phase is (nearly) all unchanged polls,
 * the changed-poll phase mostly changed ones, so the system is well conditioned; NaN when it is not (or CPU unknown).
 */
export function cpuPerPoll(phase1, phase2) {
  const [u1, c1, cpu1] = phase1;
  const [u2, c2, cpu2] = phase2;
  if (cpu1 === null || cpu2 === null) return { unchanged: Number.NaN, changed: Number.NaN };
  const det = u1 * c2 - c1 * u2;
  if (Math.abs(det) < 1e-9) return { unchanged: Number.NaN, changed: Number.NaN };
  return { unchanged: (cpu1 * c2 - c1 * cpu2) / det, changed: (u1 * cpu2 - cpu1 * u2) / det };
}

/** A trace line's poll (not a subscription, not a no-op count). */
const isPoll = (l) => l.joining === 0 && l.box !== undefined;

/**
 * One run's figures from its three phases (each `{ seconds, pollsPerSecond, lines, cpu }`, bench/engine/index.mjs
 * `pollPhase`) and the Trackers' storage. CPU is the wrangler process group's (/proc, bench/lib/cpu.mjs), so it
 * includes the dev server and the local queue's dispatch: the no-op consumer's CPU per message is that part, and
 * `ownMs` subtracts it.
 */
export function summarizeRun({ boxes, noop, engine, jump, storage }) {
  const enginePolls = engine.lines.filter(isPoll);
  const jumpPolls = jump.lines.filter(isPoll);
  const polls = [...enginePolls, ...jumpPolls];
  const unchanged = polls.filter((l) => l.events === 0);
  const changed = polls.filter((l) => l.events > 0);
  const mix = (list) => [list.filter((l) => l.events === 0).length, list.filter((l) => l.events > 0).length];
  const cpu = cpuPerPoll([...mix(enginePolls), engine.cpu.serverMs], [...mix(jumpPolls), jump.cpu.serverMs]);
  const noopMs = noop.cpu.serverMs === null ? Number.NaN : noop.cpu.serverMs / boxes;
  // Writes by kind, per changed poll: statements and rows changed (D1 meta.changes, triggers not included).
  const kinds = new Map();
  for (const l of changed) {
    for (const [kind, w] of Object.entries(l.writes ?? {})) {
      const k = kinds.get(kind) ?? { statements: 0, changes: 0 };
      k.statements += w.statements;
      k.changes += w.changes;
      kinds.set(kind, k);
    }
  }
  const writes = Object.fromEntries(
    [...kinds]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([kind, k]) => [kind, { statements: k.statements / changed.length, changes: k.changes / changed.length }]),
  );
  const d1 = (list) => ({
    batches: stats(list.map((l) => l.batches)),
    statements: stats(list.map((l) => l.statements)),
  });
  return {
    noop: { seconds: noop.seconds, rate: noop.pollsPerSecond, cpuMsPerMessage: noopMs },
    engine: {
      seconds: engine.seconds,
      rate: engine.pollsPerSecond,
      ratio: engine.pollsPerSecond / noop.pollsPerSecond,
    },
    changedPhase: { seconds: jump.seconds, polls: jumpPolls.length, changed: mix(jumpPolls)[1] },
    cpuMsPerPoll: {
      unchanged: cpu.unchanged,
      changed: cpu.changed,
      unchangedOwn: cpu.unchanged - noopMs,
      changedOwn: cpu.changed - noopMs,
    },
    otherLoad: [noop.cpu.other, engine.cpu.other, jump.cpu.other],
    d1: { unchanged: d1(unchanged), changed: d1(changed), all: d1(polls) },
    counts: { unchanged: unchanged.length, changed: changed.length },
    eventsPerChangedPoll: stats(changed.map((l) => l.events)).mean,
    writes,
    storage: {
      kv: stats(storage.map((s) => s.kvBytes)),
      file: stats(storage.map((s) => s.fileBytes)),
      snapshot: stats(polls.map((l) => l.snapshotBytes).filter((x) => x !== undefined)),
      trackers: storage.length,
    },
  };
}

const load = (s) => s.otherLoad.map((x) => (x === null ? "n/a" : fmt(x))).join(" / ");

/** Prints one run's tables (throughput, server CPU per poll, D1 per poll, writes per changed poll, storage). */
export function printRun(s, boxes) {
  console.log("");
  console.log(`Throughput (${boxes} boxes, each polled once, all enqueued at once)`);
  printTable(
    ["consumer", "messages", "seconds", "polls/s", "× no-op"],
    [
      ["terminal-polls, no-op (BENCH_ENGINE=noop)", boxes, fmt(s.noop.seconds), fmt(s.noop.rate, 1), "1.00"],
      ["terminal-polls, real poll", boxes, fmt(s.engine.seconds), fmt(s.engine.rate, 1), fmt(s.engine.ratio)],
    ],
  );
  console.log("");
  console.log(`Server CPU (wrangler's process group, /proc; other load no-op / real / changed phase: ${load(s)} CPUs)`);
  printTable(
    ["per", "CPU ms", "minus no-op ms"],
    [
      ["no-op message", fmt(s.noop.cpuMsPerMessage), "0.00"],
      ["unchanged poll", fmt(s.cpuMsPerPoll.unchanged), fmt(s.cpuMsPerPoll.unchangedOwn)],
      ["changed poll", fmt(s.cpuMsPerPoll.changed), fmt(s.cpuMsPerPoll.changedOwn)],
    ],
  );
  console.log("");
  console.log("D1 per poll (counted in the Tracker, BENCH_ENGINE=trace; both trace phases)");
  const row = (name, n, d) => [name, n, fmt(d.batches.mean), d.batches.max, fmt(d.statements.mean), d.statements.max];
  printTable(
    ["polls", "count", "batches mean", "batches max", "statements mean", "statements max"],
    [
      row("unchanged (no event)", s.counts.unchanged, s.d1.unchanged),
      row("changed (events)", s.counts.changed, s.d1.changed),
      row("all", s.counts.unchanged + s.counts.changed, s.d1.all),
    ],
  );
  printWrites([["", s]]);
  console.log("");
  console.log(`Tracker Durable Object storage per box (${s.storage.trackers} Trackers)`);
  const kib = (x) => fmt(x / 1024);
  printTable(
    ["measure", "mean KiB", "p50 KiB", "max KiB"],
    [
      ["stored keys + values (_cf_KV)", kib(s.storage.kv.mean), kib(s.storage.kv.p50), kib(s.storage.kv.max)],
      ["SQLite file + WAL", kib(s.storage.file.mean), kib(s.storage.file.p50), kib(s.storage.file.max)],
      [
        "snapshot JSON (logged)",
        kib(s.storage.snapshot.mean),
        kib(s.storage.snapshot.p50),
        kib(s.storage.snapshot.max),
      ],
    ],
  );
}

/** Writes per changed poll by kind, one column pair per `[label, summary]`. */
function printWrites(labelled) {
  const kinds = [...new Set(labelled.flatMap(([, s]) => Object.keys(s.writes)))].sort();
  console.log("");
  console.log("Writes per changed poll, by kind (statements, and rows they changed; D1 meta.changes, triggers apart)");
  const cols = labelled.flatMap(([label]) => [`${label} statements`.trim(), `${label} rows`.trim()]);
  const total = (s, f) => Object.values(s.writes).reduce((a, w) => a + w[f], 0);
  printTable(
    ["write", ...cols],
    [
      ...kinds.map((k) => [
        k,
        ...labelled.flatMap(([, s]) => [fmt(s.writes[k]?.statements ?? 0), fmt(s.writes[k]?.changes ?? 0)]),
      ]),
      ["all writes", ...labelled.flatMap(([, s]) => [fmt(total(s, "statements")), fmt(total(s, "changes"))])],
    ],
  );
}

/**
 * The medians per Worker over its runs, side by side (first label = before, last = after), with after ÷ before.
 * @param {Array<{ tree: string, summary: ReturnType<typeof summarizeRun> }>} runs
 * @param {string[]} labels
 */
export function printComparison(runs, labels, boxes) {
  const per = labels.map((label) => runs.filter((r) => r.tree === label).map((r) => r.summary));
  const metrics = [
    ["no-op msgs/s", (s) => s.noop.rate, 1],
    ["real polls/s", (s) => s.engine.rate, 1],
    ["real ÷ no-op", (s) => s.engine.ratio, 3],
    ["CPU ms per no-op message", (s) => s.noop.cpuMsPerMessage, 2],
    ["CPU ms per unchanged poll", (s) => s.cpuMsPerPoll.unchanged, 2],
    ["CPU ms per changed poll", (s) => s.cpuMsPerPoll.changed, 2],
    ["  minus no-op: unchanged", (s) => s.cpuMsPerPoll.unchangedOwn, 2],
    ["  minus no-op: changed", (s) => s.cpuMsPerPoll.changedOwn, 2],
    ["changed polls (count)", (s) => s.counts.changed, 0],
    ["events per changed poll", (s) => s.eventsPerChangedPoll, 2],
    ["batches per unchanged poll", (s) => s.d1.unchanged.batches.mean, 2],
    ["batches per changed poll", (s) => s.d1.changed.batches.mean, 2],
    ["statements per unchanged poll", (s) => s.d1.unchanged.statements.mean, 2],
    ["statements per changed poll", (s) => s.d1.changed.statements.mean, 2],
    ["statements per changed poll (max)", (s) => s.d1.changed.statements.max, 0],
    ["Tracker stored KiB (max)", (s) => s.storage.kv.max / 1024, 2],
  ];
  const rounds = Math.max(...per.map((p) => p.length));
  console.log("");
  console.log(`Medians of ${rounds} round(s) per Worker (${boxes} boxes; every run from the same tracked state)`);
  const ratio = per.length > 1;
  printTable(
    ["measure", ...labels, ...(ratio ? ["after ÷ before"] : [])],
    metrics.map(([name, f, d]) => {
      const m = per.map((list) => median(list.map(f)));
      return [name, ...m.map((x) => fmt(x, d)), ...(ratio ? [fmt(m[m.length - 1] / m[0])] : [])];
    }),
  );
  console.log("");
  console.log("Per run (round, Worker: real polls/s, CPU ms unchanged / changed poll, statements per changed poll)");
  for (const r of runs) {
    const s = r.summary;
    console.log(
      `  ${r.round} ${r.tree}: ${fmt(s.engine.rate, 1)} polls/s, ${fmt(s.cpuMsPerPoll.unchanged)} / ${fmt(
        s.cpuMsPerPoll.changed,
      )} ms, ${fmt(s.d1.changed.statements.mean)} statements; other load ${load(s)} CPUs`,
    );
  }
  // Writes by kind: the last run of each Worker (the journeys are played out the same way in every run).
  printWrites(labels.map((label, i) => [label.split(" ")[0], per[i][per[i].length - 1]]));
}
