// One load phase with autocannon (programmatic API): a fixed number of connections for a bounded time against
// 127.0.0.1, returning throughput and latency percentiles. Latencies are collected from every response with
// sub-millisecond precision (autocannon's own histogram rounds to whole milliseconds, too coarse for /health).
import autocannon from "autocannon";
import { startCpuMeter } from "./cpu.mjs";

/**
 * Nearest-rank percentile of a sorted array.
 * @param {Float64Array} sorted
 * @param {number} p 0..100
 */
function percentile(sorted, p) {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
}

/**
 * @typedef {object} LoadResult
 * @property {string} name
 * @property {number} rps           mean requests per second over the measured run (completed responses / duration)
 * @property {number} p50           ms
 * @property {number} p99           ms
 * @property {number} mean          ms
 * @property {number} total         responses received
 * @property {number} non2xx
 * @property {number} errors        connection errors and timeouts
 * @property {Record<string, number>} statusCodes
 * @property {number} durationSeconds
 * @property {number} connections
 * @property {number | null} serverCpuMsPerRequest  CPU time of the server process group per response (ms)
 * @property {{ server: number | null, loadgen: number, other: number | null }} cpuCores  average CPUs busy
 * @property {boolean} serverRestarted  a server process exited during the run (figures unreliable)
 */

/**
 * Runs autocannon and summarises the run.
 * @param {{ name: string, url: string, connections: number, duration: number, method?: string,
 *   headers?: Record<string, string>, setupRequest?: (req: object) => object, body?: string }} options
 *   `url` must be on 127.0.0.1; `setupRequest` may change path/body per request; `serverPgid`: process group of the
 *   server, for CPU accounting.
 * @returns {Promise<LoadResult>}
 */
export async function load({
  name,
  url,
  connections,
  duration,
  method = "GET",
  headers = {},
  setupRequest,
  body,
  serverPgid,
}) {
  const { hostname } = new URL(url);
  if (hostname !== "127.0.0.1") throw new Error(`benches only load 127.0.0.1 (got ${hostname})`);
  const times = [];
  const request = { method, headers, ...(body !== undefined ? { body } : {}) };
  if (setupRequest) request.setupRequest = setupRequest;
  const instance = autocannon({
    url,
    connections,
    duration,
    pipelining: 1,
    timeout: 30,
    requests: [request],
  });
  const meter = startCpuMeter(serverPgid);
  instance.on("response", (_client, statusCode, _bytes, responseTime) => {
    if (statusCode >= 200 && statusCode < 300) times.push(responseTime);
  });
  const result = await instance;
  const cpu = meter.stop();
  const sorted = Float64Array.from(times).sort();
  const statusCodes = Object.fromEntries(
    Object.entries(result.statusCodeStats ?? {}).map(([code, v]) => [code, Number(v.count)]),
  );
  const total = Object.values(statusCodes).reduce((a, b) => a + b, 0);
  const mean = sorted.length ? sorted.reduce((a, b) => a + b, 0) / sorted.length : Number.NaN;
  return {
    name,
    rps: result.requests.total / result.duration,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    mean,
    total,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    statusCodes,
    durationSeconds: result.duration,
    connections,
    serverCpuMsPerRequest: cpu.serverMs === null || total === 0 ? null : cpu.serverMs / total,
    cpuCores: { server: cpu.server, loadgen: cpu.loadgen, other: cpu.other },
    serverRestarted: cpu.restarted,
    autocannon: {
      requestsAverage: result.requests.average,
      latencyP50: result.latency.p50,
      latencyP99: result.latency.p99,
    },
  };
}
