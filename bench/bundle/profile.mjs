// The Worker's startup CPU, from the V8 CPU profile `wrangler check startup` records of the Worker's global scope
// running in a local workerd: its active time (what Cloudflare limits to 1 s at upload), and that time by package,
// attributing each sample's self time to the bundled module its line falls in.
//
// The attribution needs no source map: esbuild's (unminified) output starts each module's code with a comment line
// holding its input path (`// ../node_modules/zod/v4/core/core.js`), so a line of the bundle belongs to the last such
// comment above it. `wrangler check startup` bundles the Worker as `wrangler deploy` does, so its line numbers are
// those of the `--outdir` bundle read here (the comments' relative paths differ, not the number of lines).
import { readFileSync } from "node:fs";
import { packageOf } from "./metafile.mjs";

/**
 * The module each line of an esbuild bundle belongs to.
 * @param {string} bundleText the unminified bundle
 * @returns {((line: number) => string | null) & { modules: number }} zero-based line → input path, or null before
 *   the first module; `modules`: how many module comments were found (0 for a minified bundle, which keeps none, so
 *   its startup cannot be told apart by package)
 */
export function lineOwners(bundleText) {
  const starts = [];
  const lines = bundleText.split("\n");
  for (const [i, line] of lines.entries()) {
    const m = /^\/\/ ((?:\.\.\/|\.\/)*[^\s]+\.(?:[cm]?[jt]sx?|json))$/.exec(line);
    if (m) starts.push({ line: i, path: m[1] });
  }
  const owner = (line) => {
    let lo = 0;
    let hi = starts.length - 1;
    let found = null;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (starts[mid].line <= line) {
        found = starts[mid].path;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return found;
  };
  return Object.assign(owner, { modules: starts.length });
}

/**
 * Startup CPU of one profile, in ms: `active` (every non-idle sample, garbage collection included), `gc`, and
 * `byPackage` (self time per package, plus `(gc)` and `(program)` for the engine's own time: parsing and compiling
 * the script shows up as `(program)` or in the module whose function is being compiled).
 * @param {string} profileFile a `.cpuprofile` (Chrome DevTools format)
 * @param {(line: number) => string | null} owners from {@link lineOwners} over the same bundle
 * @returns {{ active: number, gc: number, byPackage: Map<string, number> }}
 */
export function startupCpu(profileFile, owners) {
  const profile = JSON.parse(readFileSync(profileFile, "utf8"));
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const byPackage = new Map();
  const add = (key, ms) => byPackage.set(key, (byPackage.get(key) ?? 0) + ms);
  let active = 0;
  let gc = 0;
  // A sample's duration is the delta to the next sample (the last one's is unknown, counted as 1 ms).
  const deltas = profile.timeDeltas.slice(1);
  const selfMs = new Map();
  for (const [i, id] of profile.samples.entries()) selfMs.set(id, (selfMs.get(id) ?? 0) + (deltas[i] ?? 1000) / 1000);
  for (const [id, ms] of selfMs) {
    const node = nodes.get(id);
    const frame = node?.callFrame;
    if (!frame || frame.functionName === "(idle)" || frame.functionName === "(root)") continue;
    active += ms;
    if (frame.functionName === "(garbage collector)") {
      gc += ms;
      add("(gc)", ms);
      continue;
    }
    if (!frame.url) {
      add(frame.functionName || "(program)", ms);
      continue;
    }
    // The lines the samples fell on (1-based); the script's own top level (every scope-hoisted ES module's
    // statements) is one function whose frame has no line, so its ticks are what tell the modules apart.
    const ticks = (node.positionTicks ?? []).filter((t) => t.line > 0);
    const total = ticks.reduce((sum, t) => sum + t.ticks, 0);
    if (total === 0) {
      const path = frame.lineNumber >= 0 ? owners(frame.lineNumber) : null;
      add(path ? packageOf(path).name : "(bundle top level)", ms);
      continue;
    }
    for (const t of ticks) {
      const path = owners(t.line - 1);
      add(path ? packageOf(path).name : "(bundle prelude)", (ms * t.ticks) / total);
    }
  }
  return { active, gc, byPackage };
}

/** `Active: 236.6 ms (including 45.5 ms garbage collection)` of `wrangler check startup`'s summary, in ms. */
export function reportedActive(output) {
  const m = /Active:\s*([\d.]+)\s*ms/.exec(output);
  return m ? Number(m[1]) : null;
}
