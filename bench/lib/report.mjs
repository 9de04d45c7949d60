// Output helpers shared by the benches: aligned tables, target checks, machine description and results files.
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg, totalmem } from "node:os";
import { join } from "node:path";
import { devObservability, ROOT, wranglerVersion } from "./wrangler.mjs";

/** Where result files go (gitignored). */
export const RESULTS_DIR = join(ROOT, "bench", "results");

/**
 * Prints rows as aligned columns; numbers right-aligned.
 * @param {string[]} columns
 * @param {Array<Array<string | number>>} rows
 */
export function printTable(columns, rows) {
  const cells = rows.map((row) => row.map((v) => String(v)));
  const widths = columns.map((c, i) => Math.max(c.length, ...cells.map((r) => r[i].length)));
  const numeric = columns.map((_, i) =>
    rows.every((r) => typeof r[i] === "number" || /^[\d.,×x-]+$/.test(String(r[i]))),
  );
  const line = (vals) =>
    vals
      .map((v, i) => (numeric[i] && i > 0 ? v.padStart(widths[i]) : v.padEnd(widths[i])))
      .join("  ")
      .trimEnd();
  console.log(line(columns));
  console.log(widths.map((w) => "-".repeat(w)).join("  "));
  for (const r of cells) console.log(line(r));
}

/** Fixed decimals, for the tables. */
export function fmt(value, decimals = 2) {
  return Number.isFinite(value) ? value.toFixed(decimals) : "n/a";
}

/**
 * @typedef {object} Target
 * @property {string} name
 * @property {number} value
 * @property {"≥" | "≤"} op
 * @property {number} threshold
 * @property {number} [alt]  the same figure estimated another way (shown, not judged)
 * @property {boolean} [lowerBound]  `value` is only known to be at least this
 */

/** Adds `pass` to each target and prints them; returns whether all passed. */
export function printTargets(targets) {
  // A lower bound proves a "≥" target met, or a "≤" target failed, never the other way round.
  for (const t of targets) t.pass = t.op === "≥" ? t.value >= t.threshold : !t.lowerBound && t.value <= t.threshold;
  console.log("");
  console.log("Targets");
  const withAlt = targets.some((t) => t.alt !== undefined);
  printTable(
    ["target", "measured", "required", "result", ...(withAlt ? ["(by server CPU)"] : [])],
    targets.map((t) => [
      t.name,
      `${t.lowerBound ? "> " : ""}${fmt(t.value)}`,
      `${t.op} ${t.threshold}`,
      t.pass ? "PASS" : "FAIL",
      ...(withAlt ? [t.alt === undefined ? "" : fmt(t.alt)] : []),
    ]),
  );
  return targets.every((t) => t.pass);
}

/** What the figures were measured on. */
export function machine() {
  const list = cpus();
  return {
    cpus: list.length,
    cpuModel: list[0]?.model ?? "unknown",
    memoryGb: Math.round(totalmem() / 2 ** 30),
    loadavg: loadavg(),
    node: process.version,
    wrangler: wranglerVersion(),
    // wrangler dev's local trace collector (bench/lib/wrangler.mjs): off unless BENCH_DEV_OBSERVABILITY=1.
    wranglerDevObservability: devObservability(),
    platform: `${process.platform}-${process.arch}`,
  };
}

/**
 * The commit measured: `ref` if given, else HEAD and whether the working tree (what is then measured) had changes.
 * @param {string} [ref]
 */
export function sourceVersion(ref) {
  try {
    const git = (...args) => execFileSync("git", args, { cwd: ROOT, encoding: "utf8" }).trim();
    if (ref) return { ref, commit: git("rev-parse", "--verify", `${ref}^{commit}`), workingTree: false };
    return {
      commit: git("rev-parse", "HEAD"),
      workingTree: true,
      uncommittedChanges: git("status", "--porcelain").length > 0,
    };
  } catch {
    return { commit: "unknown", uncommittedChanges: null };
  }
}

/** Writes `bench/results/<name>-<timestamp>.json` and returns its path. */
export function writeResult(name, data) {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const stamp = new Date().toISOString().replace(/[:.]/g, "-");
  const file = join(RESULTS_DIR, `${name}-${stamp}.json`);
  writeFileSync(file, `${JSON.stringify(data, null, 2)}\n`);
  return file;
}
