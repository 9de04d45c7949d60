// `npm run bench -- terminal-batching`: terminal polls batched per terminal (issue 14). Runs
// bench/engine/terminal-batching.bench.ts in workerd (vitest with bench/engine/vitest.terminal-batching.config.ts: the
// project's Worker, real Tracker Durable Objects and D1, BENCH_ENGINE=trace), which tracks N boxes at one terminal
// served by the real Port of Virginia adapter (bulk limit 100) over a local fake of its API, each request to it held
// for a round-trip latency, then polls every box through the real terminal-polls consumer in queue batches of 100,
// from the same steady state: once per box (the adapter without pollBatch: today's per-box polling) and once batched,
// then once more batched with every box changed. Prints requests to the provider, polls per second and D1 round trips
// per poll of each, and the ratios.
import { spawn } from "node:child_process";
import { join } from "node:path";
import { benchOptions } from "../lib/options.mjs";
import { fmt, machine, printTable, printTargets, sourceVersion, writeResult } from "../lib/report.mjs";
import { ROOT } from "../lib/wrangler.mjs";

export const description =
  "terminal-batching: N boxes at one terminal polled per box vs batched; provider requests, polls/s, D1 per poll";

export const usage = `bench terminal-batching options (or the environment variable in brackets):
  --boxes N        boxes at the terminal (BENCH_TB_BOXES, default 1000)
  --latency MS     round trip of each request to the fake provider, ms (BENCH_TB_LATENCY_MS, default 100)
  --check          exit 1 when a target fails (BENCH_CHECK=1)`;

/** Issue 14: at least 5× fewer requests to the provider for 1 000 boxes at one terminal; D1 per poll unchanged. */
const MIN_REQUEST_RATIO = 5;

/** Runs the workerd part and returns the JSON line it printed. */
function runWorkerd(boxes, latencyMs) {
  return new Promise((resolve, reject) => {
    const child = spawn(
      join(ROOT, "node_modules", ".bin", "vitest"),
      ["run", "--config", "bench/engine/vitest.terminal-batching.config.ts"],
      {
        cwd: ROOT,
        env: { ...process.env, BENCH_TB_BOXES: String(boxes), BENCH_TB_LATENCY_MS: String(latencyMs) },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let out = "";
    child.stdout.on("data", (chunk) => {
      out += chunk;
    });
    child.stderr.on("data", (chunk) => {
      out += chunk;
    });
    child.on("error", reject);
    child.on("close", (code) => {
      const line = out.split("\n").find((l) => l.includes("terminal-batching-result "));
      if (!line) {
        reject(new Error(`the workerd run printed no result (exit ${code}):\n${out.slice(-4000)}`));
        return;
      }
      resolve(JSON.parse(line.slice(line.indexOf("terminal-batching-result ") + "terminal-batching-result ".length)));
    });
  });
}

/** @param {string[]} argv */
export async function run(argv) {
  const { num, flag } = benchOptions(argv, {
    boxes: { type: "string" },
    latency: { type: "string" },
    check: { type: "boolean" },
  });
  const boxes = num("boxes", "BENCH_TB_BOXES", 1000);
  const latencyMs = num("latency", "BENCH_TB_LATENCY_MS", 100, 0);
  const check = flag("check", "BENCH_CHECK");
  console.log(`${boxes} boxes at one terminal (Port of Virginia adapter, fake API, ${latencyMs} ms per request)`);
  const started = Date.now();
  const result = await runWorkerd(boxes, latencyMs);
  console.log(`(set up in ${fmt(result.setupMs / 1000, 1)} s; run ${fmt((Date.now() - started) / 1000, 1)} s)\n`);
  const rows = [
    ["per box (before)", result.perBox],
    ["batched", result.batched],
    ["batched, every box changed", result.batchedChanged],
  ];
  printTable(
    ["polling", "boxes", "provider requests", "polls/s", "D1 round trips/poll"],
    rows.map(([name, r]) => [name, r.boxes, r.providerRequests, fmt(r.pollsPerSecond, 1), fmt(r.d1BatchesPerPoll)]),
  );
  const requestRatio = result.perBox.providerRequests / Math.max(1, result.batched.providerRequests);
  const speedRatio = result.batched.pollsPerSecond / result.perBox.pollsPerSecond;
  console.log(
    `\nrequests to the provider: ${fmt(requestRatio, 1)}× fewer batched; polls/s ${fmt(speedRatio, 2)}× per box`,
  );
  const targets = [
    { name: "provider requests, per box ÷ batched", value: requestRatio, op: "≥", threshold: MIN_REQUEST_RATIO },
    {
      name: "D1 round trips per unchanged poll, batched − per box",
      value: Math.abs(result.batched.d1BatchesPerPoll - result.perBox.d1BatchesPerPoll),
      op: "≤",
      threshold: 0,
    },
  ];
  const pass = printTargets(targets);
  writeResult("terminal-batching", {
    machine: machine(),
    source: sourceVersion(),
    options: { boxes, latencyMs },
    result,
    requestRatio,
    speedRatio,
    targets,
  });
  return check && !pass ? 1 : 0;
}
