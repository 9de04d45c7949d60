// bench/api: REST API throughput and latency against a local `wrangler dev` (workerd, local D1 and Durable Objects).
//
// Seeds one account with N containers (2 per shipment) and their account_resource_counts rows into a bench-private
// persistence directory, starts wrangler dev on 127.0.0.1:8788 with the rate limits raised out of the way, and loads
// each endpoint with autocannon for a bounded time, one after the other:
//
//   GET  /health                                            baseline (no auth, no D1, no Durable Object)
//   GET  /v2/containers/{id}                                ids spread over the whole table
//   GET  /v2/containers?page[size]=30&include=shipment      first page, newest first
//   POST /v2/tracking_requests                              unique request_number per request (scac TEST)
//   GET  /v2/search?query=USLAX                             whole-term match of every shipment and container
//   GET  /v2/search?query=BNCU                              prefix of every container number
//   GET  /v2/search?query=0001234                           inside a few numbers (the page is not filled: every
//                                                           match class is asked)
//
// Figures are reported as ratios to /health in the same run, which cancels most of the machine's speed.
//
// Then the many-tenants case (issue 11 §1; --tenants N, default 100, 0 skips it): a second wrangler dev at the
// default limits of wrangler.toml (100/min), N accounts with their own containers, and GET /v2/containers/{id}
// round-robin over their keys, so no two requests in flight share a RateLimiter call (each is a different account's
// Durable Object, so nothing coalesces). Since session 5 an account's RateLimiter leases the isolate 5 admissions for
// 3 s while half its limit is free, from the account's second request within 3 s (src/ratelimit/leases.ts): an
// account's next requests within those 3 s need no call and no durable write. How many requests a lease serves
// depends on each account's request rate, that is on throughput ÷ N: about 4–5 at 150–200 req/s with 100 accounts
// (a quiet machine), about 1 (a call per request, as before leases) when the machine is so busy that an account sees
// less than one request per 3 s. N accounts allow
// N × 100 requests per rolling minute, which a quiet machine exceeds within a minute (300+ req/s), so every round
// (warm-up and measured phase) has N accounts of its own, fresh: each account stays within its limit for a phase of
// 12 s below 800 req/s. The run reports 200s and 429s apart, and counts the ratio only when no request was refused
// (a 429 skips D1 and would flatter it).
// With --large, the first list page is measured again at 1 000 000 containers (fresh database), and its p50
// latency is compared with the 10 000-container run: the page must not get slower as the table grows; so is the first
// search page of each search query.
import { existsSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join, relative, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { groupCpu } from "../lib/cpu.mjs";
import { load } from "../lib/load.mjs";
import { benchOptions } from "../lib/options.mjs";
import { reportProfile, startProfile } from "../lib/profile.mjs";
import { fmt, machine, printTable, printTargets, sourceVersion, writeResult } from "../lib/report.mjs";
import { execStatements, generateTestKey, openForBulkLoad, seedAccount } from "../lib/seed.mjs";
import { applyMigrations, d1SqliteFile, ROOT, snapshotProject, startDev, wipePersistDir } from "../lib/wrangler.mjs";

export const description =
  "REST API: /health, GET /containers/{id}, first list page with include=shipment, POST /tracking_requests (ratios to /health)";

export const usage = `bench api options (or the environment variable in brackets):
  --containers N        containers seeded for the main run (BENCH_CONTAINERS, default 10000)
  --large               also measure the first list page at --large-containers (BENCH_LARGE=1)
  --large-containers N  (BENCH_LARGE_CONTAINERS, default 1000000)
  --duration S          seconds of load per endpoint (BENCH_DURATION, default 10)
  --warmup S            seconds of unrecorded load before each endpoint (BENCH_WARMUP, default 2)
  --connections N       concurrent connections (BENCH_CONNECTIONS, default 10)
  --rounds N            measure every endpoint N times, interleaved, and report medians (BENCH_ROUNDS, default 1)
  --tenants N           accounts of the many-tenants case at the default limits; 0 skips it (BENCH_TENANTS,
                        default 100)
  --only-tenants        run only the many-tenants case (BENCH_ONLY_TENANTS=1)
  --endpoints LIST      only these endpoints of the main run, comma-separated ids: health, getById, list,
                        searchExact, searchPrefix, searchContains, create (BENCH_ENDPOINTS; e.g. health,create)
  --compare REF         measure git REF (the baseline, e.g. main) and the Worker under test (the working tree, or
                        --ref/--tree) side by side in one run: two wrangler dev (ports --port and --port + 1),
                        phases alternating between them in every round, each phase after both servers went idle;
                        prints both tables and the ratios new ÷ base (BENCH_COMPARE). Skips --large and tenants
  --profile ID          CPU-profile the Worker (devtools protocol on wrangler's inspector port) during each measured
                        phase of endpoint ID (e.g. create): bench/results/profile-<ID>-<round>.cpuprofile and the
                        heaviest functions by self and total time (BENCH_PROFILE)
  --tenants-shm         keep the many-tenants case's Durable Object SQLite files on /dev/shm: local workerd
                        fsyncs every commit on its thread, which a disk makes the bottleneck; this shows the cost
                        without it (BENCH_TENANTS_SHM=1)
  --port P              port of the bench's wrangler dev on 127.0.0.1 (BENCH_PORT, default 8788)
  --keep-state          keep .wrangler/bench-state* (with the API key in bench-api-key) and the source
                        snapshot .wrangler/bench-src afterwards
  --check               exit 1 when a target fails (BENCH_CHECK=1)
  --ref REF             measure git commit REF (e.g. HEAD) instead of the working tree (BENCH_REF)
  --tree DIR            measure the Worker in DIR (wrangler.toml, src/, migrations/ laid out as here, e.g. a
                        patched copy) instead of the working tree`;

const ACCOUNT_ID = "00000000-0000-7000-8000-00000000b0b0";
const TARGETS = { getById: 0.4, list: 0.3, largeListLatency: 1.5, tenantsGetById: 0.5 };
/** Containers seeded per account of the many-tenants case. */
const TENANT_CONTAINERS = 20;
/** The default bucket's limit the many-tenants case runs at (wrangler.toml, docs/api.md §Rate limits). */
const DEFAULT_LIMIT = 100;
/** Account id of tenant `i` of the many-tenants case. */
const tenantAccountId = (i) => `00000000-0000-7000-8001-${i.toString(16).padStart(12, "0")}`;
/** An extra account that checks, before the load, that the limit in force is the default one. */
const LIMIT_PROBE_ACCOUNT_ID = "00000000-0000-7000-8002-000000000001";
const LIST_PATH = "/v2/containers?page[size]=30&include=shipment";
/**
 * Search queries (docs/api.md §Search) over the seed of bench/lib/seed.mjs: the POD's UN/LOCODE matches every shipment
 * and container whole, the owner code starts every container number, and the digits are inside one container number
 * and a few BL numbers, so that page asks all three match classes.
 */
const SEARCHES = [
  { id: "searchExact", query: "USLAX", minRows: 25 },
  { id: "searchPrefix", query: "BNCU", minRows: 25 },
  { id: "searchContains", query: "0001234", minRows: 1 },
];
const SEARCH_IDS = SEARCHES.map((q) => q.id);

function options(argv) {
  const { values, num, flag } = benchOptions(argv, {
    containers: { type: "string" },
    large: { type: "boolean" },
    "large-containers": { type: "string" },
    duration: { type: "string" },
    warmup: { type: "string" },
    connections: { type: "string" },
    port: { type: "string" },
    "keep-state": { type: "boolean" },
    check: { type: "boolean" },
    ref: { type: "string" },
    tree: { type: "string" },
    rounds: { type: "string" },
    tenants: { type: "string" },
    "only-tenants": { type: "boolean" },
    "tenants-shm": { type: "boolean" },
    endpoints: { type: "string" },
    profile: { type: "string" },
    compare: { type: "string" },
  });
  return {
    containers: Math.floor(num("containers", "BENCH_CONTAINERS", 10_000, 30)),
    large: flag("large", "BENCH_LARGE"),
    largeContainers: Math.floor(num("large-containers", "BENCH_LARGE_CONTAINERS", 1_000_000, 30)),
    duration: num("duration", "BENCH_DURATION", 10),
    warmup: num("warmup", "BENCH_WARMUP", 2, 0),
    connections: Math.floor(num("connections", "BENCH_CONNECTIONS", 10)),
    rounds: Math.floor(num("rounds", "BENCH_ROUNDS", 1)),
    tenants: Math.floor(num("tenants", "BENCH_TENANTS", 100, 0)),
    onlyTenants: flag("only-tenants", "BENCH_ONLY_TENANTS"),
    tenantsShm: flag("tenants-shm", "BENCH_TENANTS_SHM"),
    endpoints: (values.endpoints ?? process.env.BENCH_ENDPOINTS ?? "")
      .split(",")
      .map((x) => x.trim())
      .filter(Boolean),
    profile: values.profile ?? (process.env.BENCH_PROFILE || undefined),
    compare: values.compare ?? (process.env.BENCH_COMPARE || undefined),
    port: Math.floor(num("port", "BENCH_PORT", 8788)),
    keepState: values["keep-state"] === true,
    check: flag("check", "BENCH_CHECK"),
    ref: values.ref ?? (process.env.BENCH_REF || undefined),
    tree: values.tree ? resolve(values.tree) : undefined,
  };
}

const step = (text) => console.log(`· ${text}`);
const seconds = (t0) => `${((performance.now() - t0) / 1000).toFixed(1)} s`;
const group = (n) => n.toLocaleString("en-US").replaceAll(",", " ");

/** Fresh database in `persistDir`: migrations, reference data, the bench account with `count` containers. */
async function prepareDatabase(project, persistDir, count) {
  let t0 = performance.now();
  wipePersistDir(persistDir);
  await applyMigrations(persistDir, { cwd: project });
  step(`migrations applied to ${relative(ROOT, persistDir)} (${seconds(t0)})`);

  t0 = performance.now();
  const { referenceSeedStatements } = await import(pathToFileURL(join(project, "src", "reference", "seed.ts")).href);
  const key = generateTestKey();
  const db = openForBulkLoad(d1SqliteFile(persistDir));
  try {
    const reference = referenceSeedStatements();
    execStatements(db, reference);
    const seeded = seedAccount(db, {
      accountId: ACCOUNT_ID,
      key,
      containers: count,
      onProgress: (done) => {
        if (count >= 500_000) step(`  ${group(done)} containers…`);
      },
    });
    const seedSeconds = (performance.now() - t0) / 1000;
    step(
      `seeded ${reference.length} reference rows, ${group(count)} containers on ${group(seeded.shipments)} shipments ` +
        `and their account_resource_counts (${seedSeconds.toFixed(1)} s)`,
    );
    // For poking at a kept state (--keep-state) by hand: the key, and a few container ids.
    writeFileSync(join(persistDir, "bench-api-key"), `${key}\n`, { mode: 0o600 });
    writeFileSync(join(persistDir, "bench-container-ids"), `${seeded.sampleIds.slice(0, 20).join("\n")}\n`);
    return { key, sampleIds: seeded.sampleIds, seedSeconds };
  } finally {
    db.close();
  }
}

/** One request to each endpoint, checked, so a misconfigured run fails before it measures error pages. */
async function sanityCheck(baseUrl, endpoints, count) {
  const problems = [];
  for (const e of endpoints) {
    const req = e.sample();
    const res = await fetch(`${baseUrl}${req.path}`, {
      method: req.method,
      headers: req.headers,
      body: req.body,
    });
    const text = await res.text();
    if (res.status !== e.expect) {
      problems.push(`${e.name}: HTTP ${res.status} (expected ${e.expect}): ${text.slice(0, 300)}`);
      continue;
    }
    if (e.id === "list") {
      const doc = JSON.parse(text);
      if (doc.data?.length !== 30) problems.push(`list: ${doc.data?.length} rows, expected 30`);
      if (doc.meta?.total !== count) problems.push(`list: meta.total ${doc.meta?.total}, expected ${count}`);
      if (!(doc.included?.length > 0)) problems.push("list: no included shipments");
    }
    const search = SEARCHES.find((q) => q.id === e.id);
    if (search) {
      const doc = JSON.parse(text);
      if (!(doc.data?.length >= search.minRows)) {
        problems.push(`${e.name}: ${doc.data?.length} results, expected at least ${search.minRows}`);
      }
    }
  }
  if (problems.length > 0) throw new Error(`sanity check failed:\n  ${problems.join("\n  ")}`);
}

/** The endpoints under test; request bodies and ids vary per request. */
function endpoints(key, sampleIds, runTag) {
  const auth = { authorization: `Token ${key}` };
  let idCursor = 0;
  let counter = 0;
  const nextId = () => sampleIds[idCursor++ % sampleIds.length];
  const postBody = () =>
    JSON.stringify({
      data: {
        type: "tracking_request",
        attributes: { request_type: "bill_of_lading", request_number: `BENCH-${runTag}-${++counter}`, scac: "TEST" },
      },
    });
  const postHeaders = { ...auth, "content-type": "application/vnd.api+json" };
  return [
    {
      id: "health",
      name: "GET /health",
      expect: 200,
      sample: () => ({ method: "GET", path: "/health", headers: {} }),
      load: { path: "/health" },
    },
    {
      id: "getById",
      name: "GET /v2/containers/{id}",
      expect: 200,
      sample: () => ({ method: "GET", path: `/v2/containers/${nextId()}`, headers: auth }),
      load: {
        path: `/v2/containers/${sampleIds[0]}`,
        headers: auth,
        setupRequest: (req) => ({ ...req, path: `/v2/containers/${nextId()}` }),
      },
    },
    {
      id: "list",
      name: "GET /v2/containers?page[size]=30&include=shipment",
      expect: 200,
      sample: () => ({ method: "GET", path: LIST_PATH, headers: auth }),
      load: { path: LIST_PATH, headers: auth },
    },
    ...SEARCHES.map(({ id, query }) => {
      const path = `/v2/search?query=${query}`;
      return {
        id,
        name: `GET ${path}`,
        expect: 200,
        sample: () => ({ method: "GET", path, headers: auth }),
        load: { path, headers: auth },
      };
    }),
    {
      id: "create",
      name: "POST /v2/tracking_requests",
      expect: 201,
      sample: () => ({ method: "POST", path: "/v2/tracking_requests", headers: postHeaders, body: postBody() }),
      load: {
        path: "/v2/tracking_requests",
        method: "POST",
        headers: postHeaders,
        body: postBody(),
        setupRequest: (req) => ({ ...req, body: postBody() }),
      },
    },
  ];
}

/**
 * Fewer responses than connections in a phase means most requests took longer than the phase: the load figures say
 * nothing about latency then (p50 > the phase's duration), so latency comes from {@link probe} instead.
 */
const PROBE_REQUESTS = 5;
const PROBE_TIMEOUT_MS = 300_000;

/**
 * Latency of an endpoint too slow for the load phase to say anything: `PROBE_REQUESTS` requests one after the
 * other (after the load phase's requests have drained), each timed; p50 and p99 are taken from those.
 */
async function probe(baseUrl, e) {
  const times = [];
  const statusCodes = {};
  for (let i = 0; i < PROBE_REQUESTS; i++) {
    const req = e.sample();
    const t0 = performance.now();
    const res = await fetch(`${baseUrl}${req.path}`, {
      method: req.method,
      headers: req.headers,
      body: req.body,
      signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
    });
    await res.arrayBuffer();
    const ms = performance.now() - t0;
    statusCodes[res.status] = (statusCodes[res.status] ?? 0) + 1;
    if (res.status === e.expect) times.push(ms);
  }
  times.sort((a, b) => a - b);
  const at = (p) => times[Math.min(times.length - 1, Math.ceil((p / 100) * times.length) - 1)] ?? Number.NaN;
  return {
    latencySource: `${PROBE_REQUESTS} sequential requests`,
    p50: at(50),
    p99: at(99),
    probeStatusCodes: statusCodes,
  };
}

/**
 * Waits until the server process groups `pgids` are idle (under {@link IDLE_CORES} of a CPU over 300 ms, at most
 * {@link SETTLE_MAX_MS}): the work a phase left behind (queue consumers still draining what the creates enqueued)
 * then neither runs into the next phase nor escapes its own.
 * @returns server CPU ms the first group spent meanwhile (the phase's leftover work), or null without /proc.
 */
async function settle(pgids) {
  const t0 = performance.now();
  const first = groupCpu(pgids[0]);
  for (;;) {
    const before = pgids.map((g) => groupCpu(g)?.ms ?? 0);
    await new Promise((r) => setTimeout(r, 300));
    const after = pgids.map((g) => groupCpu(g)?.ms ?? 0);
    const busiest = Math.max(...after.map((ms, i) => (ms - (before[i] ?? 0)) / 300));
    if (busiest < IDLE_CORES || performance.now() - t0 > SETTLE_MAX_MS) break;
  }
  const last = groupCpu(pgids[0]);
  return first && last ? last.ms - first.ms : null;
}
const IDLE_CORES = 0.1;
const SETTLE_MAX_MS = 20_000;

/** One warm-up and measured phase of an endpoint; a phase during which wrangler restarted is run again. */
async function phase(dev, e, opts, label) {
  const common = {
    name: e.name,
    url: `${dev.baseUrl}${e.load.path}`,
    method: e.load.method ?? "GET",
    headers: e.load.headers ?? {},
    body: e.load.body,
    setupRequest: e.load.setupRequest,
    serverPgid: dev.pid,
  };
  const connections = e.connections ?? opts.connections;
  let r;
  for (let attempt = 1; ; attempt++) {
    const warm = opts.warmup > 0 ? await load({ ...common, connections, duration: opts.warmup }) : undefined;
    const profiler = opts.profile === e.id ? await startProfile(dev.inspectorPort) : undefined;
    r = await load({ ...common, connections, duration: opts.duration });
    if (profiler) {
      const file = join(
        ROOT,
        "bench",
        "results",
        `profile-${e.id}-${label.replace(/\W+/g, "_")}-${attempt}.cpuprofile`,
      );
      r.profile = { file, ...summaryOf(reportProfile(await profiler.stop(), file, { requests: r.total })) };
    }
    // Responses of the warm-up too: they count against rate limits (the many-tenants case).
    r.warmupTotal = warm?.total ?? 0;
    if (!r.serverRestarted || attempt === 3) break;
    step(`${label}: ${e.name}: wrangler restarted the Worker during the run (a source file changed?); again`);
  }
  if (r.total < connections) {
    step(
      `${label}: ${e.name}: only ${r.total} responses in ${opts.duration} s; timing ${PROBE_REQUESTS} requests one at a time`,
    );
    Object.assign(r, await probe(dev.baseUrl, e), {
      serverCpuMsPerRequest: null,
      loadedP50AtLeastMs: opts.duration * 1000,
    });
  }
  if (opts.settlePgids) {
    // What the phase left behind (the consumer of the creates' queue messages) belongs to its requests.
    const leftover = await settle(opts.settlePgids);
    r.leftoverCpuMsPerRequest = leftover === null || !r.total ? null : leftover / r.total;
    r.serverCpuMsPerRequestWithLeftover =
      r.serverCpuMsPerRequest === null || r.leftoverCpuMsPerRequest === null
        ? null
        : r.serverCpuMsPerRequest + r.leftoverCpuMsPerRequest;
  }
  const bad = r.non2xx + r.errors;
  step(
    `${label}: ${e.name}${e.connections ? ` [${connections} conn]` : ""}: ${fmt(r.rps, 0)} req/s, p50 ${fmt(r.p50)} ms, ` +
      `p99 ${fmt(r.p99)} ms, server CPU ${fmt(r.serverCpuMsPerRequest)} ms/req` +
      `${r.leftoverCpuMsPerRequest !== undefined ? ` (+ ${fmt(r.leftoverCpuMsPerRequest)} after the phase)` : ""}` +
      `, other load ${fmt(r.cpuCores.other)} CPUs` +
      `${bad ? `, ${r.non2xx} non-2xx ${JSON.stringify(r.statusCodes)}, ${r.errors} errors` : ""}`,
  );
  return r;
}

/** The part of a profile summary kept in the result file: the 30 heaviest functions by self and total ms. */
function summaryOf(s) {
  return { sampledMs: s.sampledMs, idleMs: s.idleMs, self: s.self.slice(0, 30), total: s.total.slice(0, 30) };
}

/** Median of the finite values (NaN when there are none). */
function median(values) {
  const v = values.filter((x) => typeof x === "number" && Number.isFinite(x)).sort((a, b) => a - b);
  if (v.length === 0) return Number.NaN;
  return v.length % 2 ? v[(v.length - 1) / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
}

/**
 * Measures the endpoints in order, `opts.rounds` times over (round 1 all endpoints, then round 2, …, so slow drift
 * in the machine's load spreads over all of them); with several rounds each figure is the median over the rounds.
 */
async function measure(dev, list, opts, label) {
  const perEndpoint = list.map(() => []);
  for (let round = 1; round <= opts.rounds; round++) {
    const tag = opts.rounds > 1 ? `${label} #${round}` : label;
    for (const [i, e] of list.entries()) {
      // The many-tenants endpoint switches to its round's own fresh accounts.
      e.useRound?.(round);
      perEndpoint[i].push(await phase(dev, e, opts, tag));
    }
  }
  return list.map((e, i) => combineRounds(e, perEndpoint[i], opts, label));
}

/** One endpoint's figures over its rounds: the round itself for one, else medians (sums for counts). */
function combineRounds(e, rounds, opts, label) {
  const r =
    rounds.length === 1
      ? { ...rounds[0] }
      : {
          ...rounds[0],
          rps: median(rounds.map((x) => x.rps)),
          p50: median(rounds.map((x) => x.p50)),
          p99: median(rounds.map((x) => x.p99)),
          mean: median(rounds.map((x) => x.mean)),
          total: rounds.reduce((a, x) => a + x.total, 0),
          warmupTotal: rounds.reduce((a, x) => a + (x.warmupTotal ?? 0), 0),
          statusCodes: rounds.reduce((a, x) => {
            for (const [code, n] of Object.entries(x.statusCodes)) a[code] = (a[code] ?? 0) + n;
            return a;
          }, {}),
          non2xx: rounds.reduce((a, x) => a + x.non2xx, 0),
          errors: rounds.reduce((a, x) => a + x.errors, 0),
          serverCpuMsPerRequest: median(rounds.map((x) => x.serverCpuMsPerRequest)),
          leftoverCpuMsPerRequest: median(rounds.map((x) => x.leftoverCpuMsPerRequest)),
          serverCpuMsPerRequestWithLeftover: median(rounds.map((x) => x.serverCpuMsPerRequestWithLeftover)),
          cpuCores: {
            server: median(rounds.map((x) => x.cpuCores.server)),
            loadgen: median(rounds.map((x) => x.cpuCores.loadgen)),
            other: Math.max(...rounds.map((x) => x.cpuCores.other ?? 0)),
          },
          serverRestarted: rounds.some((x) => x.serverRestarted),
          loadedP50AtLeastMs: rounds.some((x) => x.loadedP50AtLeastMs !== undefined) ? opts.duration * 1000 : undefined,
          latencySource: rounds.find((x) => x.latencySource)?.latencySource,
          rounds,
        };
  if (r.loadedP50AtLeastMs === undefined) delete r.loadedP50AtLeastMs;
  if (r.latencySource === undefined) delete r.latencySource;
  if (rounds[0]?.leftoverCpuMsPerRequest === undefined) {
    delete r.leftoverCpuMsPerRequest;
    delete r.serverCpuMsPerRequestWithLeftover;
  }
  r.id = e.id;
  r.run = label;
  return r;
}

/** Prepares a database of `count` containers, runs wrangler dev on it and measures `which` endpoints. */
async function runAt(project, count, opts, which, runTag) {
  const persistDir = join(ROOT, ".wrangler", count === opts.containers ? "bench-state" : "bench-state-large");
  console.log("");
  console.log(`== ${group(count)} containers ==`);
  const { key, sampleIds, seedSeconds } = await prepareDatabase(project, persistDir, count);
  const t0 = performance.now();
  const dev = await startDev({
    cwd: project,
    persistDir,
    port: opts.port,
    vars: { RATE_LIMIT_DEFAULT: "1000000000", RATE_LIMIT_CREATE_TRACKING_REQUEST: "1000000000" },
    logFile: join(ROOT, "bench", "results", `wrangler-api-${count}.log`),
  });
  try {
    step(`wrangler dev ready on ${dev.baseUrl} (${seconds(t0)})`);
    const all = endpoints(key, sampleIds, `${runTag}-${count}`);
    const selected = which.map((w) => {
      const [id, connections] = w.split("@");
      const e = all.find((x) => x.id === id);
      return connections ? { ...e, id: `${id}@${connections}`, connections: Number(connections) } : e;
    });
    await sanityCheck(
      dev.baseUrl,
      all.filter((e) => which.some((w) => w.split("@")[0] === e.id)),
      count,
    );
    const results = await measure(dev, selected, opts, group(count));
    if (!dev.alive()) throw new Error("wrangler dev died during the run");
    return { containers: count, seedSeconds, results };
  } finally {
    await dev.stop();
    if (!opts.keepState) rmSync(persistDir, { recursive: true, force: true });
  }
}

/**
 * Fresh database for the many-tenants case: migrations, reference data, `tenants` × `rounds` accounts (a fresh set of
 * `tenants` for each round) with `TENANT_CONTAINERS` containers and one key each, and the limit-probe account.
 */
async function prepareTenants(project, persistDir, tenants, rounds) {
  const t0 = performance.now();
  wipePersistDir(persistDir);
  await applyMigrations(persistDir, { cwd: project });
  const { referenceSeedStatements } = await import(pathToFileURL(join(project, "src", "reference", "seed.ts")).href);
  const db = openForBulkLoad(d1SqliteFile(persistDir));
  try {
    execStatements(db, referenceSeedStatements());
    const accounts = Array.from({ length: tenants * rounds }, (_, i) => {
      const key = generateTestKey();
      const { sampleIds } = seedAccount(db, { accountId: tenantAccountId(i), key, containers: TENANT_CONTAINERS });
      return { key, ids: sampleIds };
    });
    const probeKey = generateTestKey();
    const probe = seedAccount(db, { accountId: LIMIT_PROBE_ACCOUNT_ID, key: probeKey, containers: 1 });
    step(
      `seeded ${tenants} accounts per round × ${rounds} round(s) with ${TENANT_CONTAINERS} containers each (${seconds(t0)})`,
    );
    return { accounts, probe: { key: probeKey, ids: probe.sampleIds } };
  } finally {
    db.close();
  }
}

/**
 * The many-tenants endpoint: GET /v2/containers/{id}, request n by account n mod N of the round's own N accounts
 * (`accounts` holds N × rounds; `useRound(r)` switches to round r's set), each on its own container.
 */
function tenantsEndpoint(accounts, tenants) {
  let n = 0;
  let offset = 0;
  const next = () => {
    const account = accounts[offset + (n % tenants)];
    const id = account.ids[Math.floor(n / tenants) % account.ids.length];
    n++;
    return { path: `/v2/containers/${id}`, headers: { authorization: `Token ${account.key}` } };
  };
  const first = next();
  return {
    id: "tenantsGetById",
    name: `GET /v2/containers/{id}, ${tenants} accounts round-robin`,
    expect: 200,
    useRound: (round) => {
      offset = (round - 1) * tenants;
      n = 0;
    },
    sample: () => ({ method: "GET", ...next() }),
    load: {
      path: first.path,
      headers: first.headers,
      setupRequest: (req) => {
        const r = next();
        return { ...req, path: r.path, headers: { ...req.headers, ...r.headers } };
      },
    },
  };
}

/**
 * Proves the limit in force is the default one and the RateLimiter enforces it: the probe account's first
 * `DEFAULT_LIMIT` requests are admitted and the next one is refused with 429.
 */
async function checkDefaultLimit(baseUrl, probe) {
  const statuses = [];
  for (let i = 0; i <= DEFAULT_LIMIT; i++) {
    const res = await fetch(`${baseUrl}/v2/containers/${probe.ids[0]}`, {
      headers: { authorization: `Token ${probe.key}` },
    });
    await res.arrayBuffer();
    statuses.push(res.status);
  }
  const admitted = statuses.filter((s) => s === 200).length;
  if (admitted !== DEFAULT_LIMIT || statuses[DEFAULT_LIMIT] !== 429) {
    throw new Error(
      `limit check: ${admitted} of ${DEFAULT_LIMIT + 1} admitted, last ${statuses[DEFAULT_LIMIT]} ` +
        `(expected ${DEFAULT_LIMIT} and a 429): is the default limit not ${DEFAULT_LIMIT}/min?`,
    );
  }
  step(`limit check: ${DEFAULT_LIMIT} of ${DEFAULT_LIMIT + 1} requests of one account admitted, the last one 429`);
}

/** The many-tenants case: its own wrangler dev at the default limits, /health and the round-robin get-by-id. */
async function runTenants(project, opts) {
  const persistDir = join(ROOT, ".wrangler", "bench-state-tenants");
  console.log("");
  console.log(
    `== ${opts.tenants} accounts at the default limits (${DEFAULT_LIMIT}/min each)` +
      `${opts.tenantsShm ? ", Durable Object storage on tmpfs" : ""} ==`,
  );
  const { accounts, probe } = await prepareTenants(project, persistDir, opts.tenants, opts.rounds);
  let shmDir;
  if (opts.tenantsShm) {
    if (!existsSync("/dev/shm")) throw new Error("--tenants-shm needs /dev/shm");
    // Where wrangler dev keeps Durable Object storage under --persist-to; D1 stays on disk.
    shmDir = mkdtempSync("/dev/shm/bench-api-do-");
    symlinkSync(shmDir, join(persistDir, "v3", "do"));
    step(`Durable Object storage on ${shmDir} (tmpfs)`);
  }
  const t0 = performance.now();
  const dev = await startDev({
    cwd: project,
    persistDir,
    port: opts.port,
    logFile: join(ROOT, "bench", "results", "wrangler-api-tenants.log"),
  });
  try {
    step(`wrangler dev ready on ${dev.baseUrl}, limits from wrangler.toml (${seconds(t0)})`);
    await checkDefaultLimit(dev.baseUrl, probe);
    const health = endpoints("", [""], "tenants").find((e) => e.id === "health");
    const tenants = tenantsEndpoint(accounts, opts.tenants);
    // One request per account first: a wrong key or id fails here rather than in the figures.
    for (let round = 1; round <= opts.rounds; round++) {
      tenants.useRound(round);
      for (let i = 0; i < opts.tenants; i++) await sanityCheck(dev.baseUrl, [tenants], 0);
    }
    const results = await measure(dev, [health, tenants], opts, `${opts.tenants} accounts`);
    if (!dev.alive()) throw new Error("wrangler dev died during the run");
    const r = results.find((x) => x.id === "tenantsGetById");
    // Each round has its own accounts: requests per account in one round (warm-up included).
    const perAccount = (r.total + (r.warmupTotal ?? 0)) / opts.tenants / opts.rounds;
    r.status200 = r.statusCodes["200"] ?? 0;
    r.status429 = r.statusCodes["429"] ?? 0;
    // With several rounds the status counts are summed over them (see measure), so is the time.
    const measuredSeconds = (r.rounds ?? [r]).reduce((a, x) => a + x.durationSeconds, 0);
    r.rps200 = r.status200 / measuredSeconds;
    step(
      `${opts.tenants} accounts: ${r.status200} × 200 and ${r.status429} × 429 in the measured ${fmt(measuredSeconds, 0)} s ` +
        `(${fmt(r.rps200, 0)} admitted req/s; about ${fmt(perAccount, 0)} requests per account in its round, limit ${DEFAULT_LIMIT} per rolling 60 s)`,
    );
    // A lease at the default limit, by the measured tree's own rule (src/ratelimit/leases.ts), serves an account's
    // requests for its duration: how many fall in one depends on how often each account is asked, so say it (a busy
    // machine leaves them nearly unused).
    const { leaseCredits, leaseDurationMs } = await import(
      pathToFileURL(join(project, "src", "ratelimit", "leases.ts")).href
    );
    const credits = leaseCredits(DEFAULT_LIMIT, 0);
    const leaseSeconds = leaseDurationMs(DEFAULT_LIMIT) / 1000;
    r.secondsPerAccountRequest = opts.tenants / r.rps;
    step(
      `${opts.tenants} accounts: one request per account every ${fmt(r.secondsPerAccountRequest, 2)} s under load; a lease ` +
        `(${credits} credits, ${fmt(leaseSeconds, 0)} s) can serve about ` +
        `${fmt(Math.min(credits, Math.floor(leaseSeconds / r.secondsPerAccountRequest)), 0)} requests after the one that takes it`,
    );
    return {
      containers: opts.tenants * TENANT_CONTAINERS,
      tenants: opts.tenants,
      durableObjectStorage: shmDir ? "tmpfs" : "disk",
      results,
    };
  } finally {
    await dev.stop();
    if (shmDir) rmSync(shmDir, { recursive: true, force: true });
    if (!opts.keepState) rmSync(persistDir, { recursive: true, force: true });
  }
}

/**
 * Throughput ratio to /health predicted from server CPU per request (`/health` CPU ÷ endpoint CPU): what the
 * ratio would be if the server were the only thing on the machine, CPU-bound. Less sensitive to other load.
 */
function cpuRatio(health, r) {
  const h = health?.serverCpuMsPerRequest;
  const x = r.serverCpuMsPerRequest;
  return h && x ? h / x : Number.NaN;
}

function printRun(run) {
  const health = run.results.find((r) => r.id === "health");
  console.log("");
  console.log(
    `Results ${run.tenants ? `with ${run.tenants} accounts at the default limits` : `at ${group(run.containers)} containers`} (${run.results[0]?.connections} connections, ` +
      `${fmt(run.results[0]?.durationSeconds, 0)} s each` +
      `${run.results[0]?.rounds ? `, medians of ${run.results[0].rounds.length} rounds` : ""})`,
  );
  printTable(
    ["endpoint", "req/s", "p50 ms", "p99 ms", "× /health req/s", "server CPU ms/req", "× /health by CPU", "non-2xx"],
    run.results.map((r) => [
      `${r.connections === health?.connections ? r.name : `${r.name} [${r.connections} conn]`}${r.latencySource ? " *" : ""}`,
      fmt(r.rps, 0),
      fmt(r.p50),
      fmt(r.p99),
      health ? fmt(r.rps / health.rps) : "n/a",
      fmt(r.serverCpuMsPerRequest),
      fmt(cpuRatio(health, r)),
      r.non2xx + r.errors,
    ]),
  );
  const probed = run.results.find((r) => r.latencySource);
  if (probed) console.log(`* too slow to measure under load: latency from ${probed.latencySource}`);
}

/** Runs the api bench with the bench-specific command-line arguments; resolves to the process exit code. */
export async function run(argv) {
  const opts = options(argv);
  const m = machine();
  const runTag = Date.now().toString(36).toUpperCase();
  console.log(
    `bench api: ${opts.connections} connections, ${opts.warmup} s warm-up + ${opts.duration} s per endpoint` +
      `${opts.rounds > 1 ? ` × ${opts.rounds} rounds (medians)` : ""}, ` +
      `127.0.0.1:${opts.port}, ${group(opts.containers)} containers${opts.large ? ` (+ ${group(opts.largeContainers)} with --large)` : ""}`,
  );
  console.log(
    `machine: ${m.cpus} × ${m.cpuModel}, Node ${m.node}, wrangler ${m.wrangler}` +
      `${m.wranglerDevObservability ? " (local trace collector on)" : ""}, load average ${loadavg()
        .map((l) => l.toFixed(2))
        .join(" ")}`,
  );
  if (cpus().length <= 4) {
    console.log(
      `note: autocannon (the load generator, in this Node process) and workerd share these ${cpus().length} CPUs, so absolute ` +
        "figures understate the Worker; compare the ratios to /health, measured in the same conditions.",
    );
  }

  // The Worker as it is now: edits to src/ during the run neither reload it nor change what is measured.
  if (opts.ref && opts.tree) throw new Error("--ref and --tree exclude each other");
  const project = snapshotProject(join(ROOT, ".wrangler", "bench-src"), { ref: opts.ref, from: opts.tree });
  if (opts.tree) step(`measuring the Worker in ${opts.tree}, not the working tree`);
  if (opts.ref)
    step(`measuring git ${opts.ref} (${sourceVersion(opts.ref).commit.slice(0, 12)}), not the working tree`);
  let baseProject;
  try {
    if (opts.compare) {
      baseProject = snapshotProject(join(ROOT, ".wrangler", "bench-src-base"), { ref: opts.compare });
      step(`baseline: git ${opts.compare} (${sourceVersion(opts.compare).commit.slice(0, 12)})`);
      return await runCompare(project, baseProject, opts, m, runTag);
    }
    return await runAll(project, opts, m, runTag);
  } finally {
    if (!opts.keepState) {
      rmSync(project, { recursive: true, force: true });
      if (baseProject) rmSync(baseProject, { recursive: true, force: true });
    }
  }
}

/**
 * `--compare REF`: the baseline (git REF) and the Worker under test, each with its own database and wrangler dev,
 * measured in one run: in every round each endpoint is measured on both, one right after the other (which goes
 * first alternates between rounds), and every phase starts once both servers are idle, so a slow drift of the
 * machine's load hits both alike and neither's queue backlog runs into the other's phase.
 */
async function runCompare(project, baseProject, opts, m, runTag) {
  const all = ["health", "getById", "list", ...SEARCH_IDS, "create"];
  const unknown = opts.endpoints.filter((id) => !all.includes(id));
  if (unknown.length > 0) throw new Error(`--endpoints: unknown ${unknown.join(", ")}; known: ${all.join(", ")}`);
  const which = opts.endpoints.length > 0 ? all.filter((id) => opts.endpoints.includes(id)) : all;
  const versions = [
    {
      name: "base",
      label: `base ${opts.compare}`,
      project: baseProject,
      state: "bench-state-base",
      port: opts.port + 1,
    },
    { name: "new", label: opts.ref ? `new ${opts.ref}` : "new", project, state: "bench-state", port: opts.port },
  ];
  const devs = [];
  try {
    for (const v of versions) {
      console.log(`\n== ${v.label}: ${group(opts.containers)} containers ==`);
      v.persistDir = join(ROOT, ".wrangler", v.state);
      const prepared = await prepareDatabase(v.project, v.persistDir, opts.containers);
      const t0 = performance.now();
      v.dev = await startDev({
        cwd: v.project,
        persistDir: v.persistDir,
        port: v.port,
        vars: { RATE_LIMIT_DEFAULT: "1000000000", RATE_LIMIT_CREATE_TRACKING_REQUEST: "1000000000" },
        logFile: join(ROOT, "bench", "results", `wrangler-api-compare-${v.name}.log`),
      });
      devs.push(v.dev);
      step(`${v.label}: wrangler dev ready on ${v.dev.baseUrl} (${seconds(t0)})`);
      const list = endpoints(prepared.key, prepared.sampleIds, `${runTag}-${v.name}`);
      v.list = which.map((id) => list.find((e) => e.id === id));
      await sanityCheck(v.dev.baseUrl, v.list, opts.containers);
      v.rounds = v.list.map(() => []);
    }
    const pgids = devs.map((d) => d.pid);
    await settle(pgids);
    for (let round = 1; round <= opts.rounds; round++) {
      const order = round % 2 === 1 ? versions : [...versions].reverse();
      for (let i = 0; i < which.length; i++) {
        for (const v of order) {
          const e = v.list[i];
          const tag = `${v.name}${opts.rounds > 1 ? ` #${round}` : ""}`;
          v.rounds[i].push(await phase(v.dev, e, { ...opts, settlePgids: [v.dev.pid, ...pgids] }, tag));
        }
      }
    }
    for (const v of versions) {
      if (!v.dev.alive()) throw new Error(`${v.label}: wrangler dev died during the run`);
      v.results = v.list.map((e, i) => combineRounds(e, v.rounds[i], opts, v.label));
    }
  } finally {
    for (const d of devs) await d.stop();
    if (!opts.keepState)
      for (const v of versions) if (v.persistDir) rmSync(v.persistDir, { recursive: true, force: true });
  }
  const runs = versions.map((v) => ({ version: v.label, containers: opts.containers, results: v.results }));
  for (const [i, run] of runs.entries()) {
    console.log(`\n${versions[i].label}:`);
    printRun(run);
  }
  printComparison(versions);
  const all2xx = runs.every((r) => r.results.every((x) => x.non2xx + x.errors === 0));
  const file = writeResult("api", {
    bench: "api",
    finishedAt: new Date().toISOString(),
    source: { new: opts.tree ? { tree: opts.tree } : sourceVersion(opts.ref), base: sourceVersion(opts.compare) },
    machine: m,
    options: opts,
    runs,
  });
  console.log(`\nresults written to ${relative(ROOT, file)}`);
  return all2xx ? 0 : 1;
}

/** The two versions of a `--compare` run side by side: ratios to their own `/health`, and new ÷ base. */
function printComparison([base, next]) {
  const healthOf = (v) => v.results.find((r) => r.id === "health");
  const hb = healthOf(base);
  const hn = healthOf(next);
  const withLeftover = (r) => r.serverCpuMsPerRequestWithLeftover ?? r.serverCpuMsPerRequest;
  console.log(`\n${next.label} ÷ ${base.label} (medians; server CPU includes what a phase left to do after it)`);
  printTable(
    [
      "endpoint",
      "× /health base",
      "× /health new",
      "new ÷ base",
      "CPU ms/req base",
      "CPU ms/req new",
      "p50 base",
      "p50 new",
      "p99 base",
      "p99 new",
    ],
    base.results.map((b, i) => {
      const n = next.results[i];
      const rb = hb ? b.rps / hb.rps : Number.NaN;
      const rn = hn ? n.rps / hn.rps : Number.NaN;
      return [
        b.name,
        fmt(rb),
        fmt(rn),
        fmt(rn / rb),
        fmt(withLeftover(b)),
        fmt(withLeftover(n)),
        fmt(b.p50),
        fmt(n.p50),
        fmt(b.p99),
        fmt(n.p99),
      ];
    }),
  );
}

async function runAll(project, opts, m, runTag) {
  const runs = [];
  let main;
  if (!opts.onlyTenants) {
    const which = opts.large
      ? ["health", "getById", "list", "list@1", ...SEARCH_IDS, "create"]
      : ["health", "getById", "list", ...SEARCH_IDS, "create"];
    const unknown = opts.endpoints.filter((id) => !which.includes(id));
    if (unknown.length > 0) throw new Error(`--endpoints: unknown ${unknown.join(", ")}; known: ${which.join(", ")}`);
    main = await runAt(
      project,
      opts.containers,
      opts,
      opts.endpoints.length > 0 ? which.filter((id) => opts.endpoints.includes(id)) : which,
      runTag,
    );
    runs.push(main);
    printRun(main);
  }
  let large;
  if (main && opts.large) {
    large = await runAt(
      project,
      opts.largeContainers,
      opts,
      ["health", "getById", "list", "list@1", ...SEARCH_IDS],
      runTag,
    );
    runs.push(large);
    printRun(large);
  }
  let tenants;
  if (opts.tenants > 0) {
    tenants = await runTenants(project, opts);
    runs.push(tenants);
    printRun(tenants);
  }

  const by = (r, id) => r.results.find((x) => x.id === id);
  const health = main ? by(main, "health").rps : Number.NaN;
  const targets =
    !main || !by(main, "health") || !by(main, "getById") || !by(main, "list")
      ? []
      : [
          {
            name: "GET /containers/{id} req/s ÷ /health req/s",
            value: by(main, "getById").rps / health,
            op: "≥",
            threshold: TARGETS.getById,
            alt: cpuRatio(by(main, "health"), by(main, "getById")),
          },
          {
            name: "GET /containers (list page) req/s ÷ /health req/s",
            value: by(main, "list").rps / health,
            op: "≥",
            threshold: TARGETS.list,
            alt: cpuRatio(by(main, "health"), by(main, "list")),
          },
        ];
  if (tenants) {
    const h = by(tenants, "health");
    const t = by(tenants, "tenantsGetById");
    targets.push({
      name: `GET /containers/{id}, ${opts.tenants} accounts at ${DEFAULT_LIMIT}/min, req/s ÷ /health req/s`,
      // Only a run with no 429 measures what it claims: every request admitted, each paying its RateLimiter call.
      value: t.status429 === 0 ? t.rps / h.rps : Number.NaN,
      op: "≥",
      threshold: TARGETS.tenantsGetById,
      alt: cpuRatio(h, t),
    });
    if (t.status429 > 0) {
      console.log(
        `\nwarning: the many-tenants run had ${t.status429} responses 429 (the load went over ${opts.tenants} × ` +
          `${DEFAULT_LIMIT} per minute): its ratio is not counted; use more --tenants or a shorter --duration.`,
      );
    }
  }
  if (large) {
    // p50 under the same load as the rest of the table. When the large run was too slow to measure under load,
    // its p50 is only known to exceed the phase's duration: the ratio is then a lower bound.
    const small = by(main, "list");
    const big = by(large, "list");
    const small1 = by(main, "list@1");
    const big1 = by(large, "list@1");
    const cpu = (a, b) => (b?.serverCpuMsPerRequest ?? Number.NaN) / (a?.serverCpuMsPerRequest ?? Number.NaN);
    targets.push({
      name: `list p50 at ${group(opts.largeContainers)} ÷ p50 at ${group(opts.containers)}`,
      value: (big.loadedP50AtLeastMs ?? big.p50) / small.p50,
      lowerBound: big.loadedP50AtLeastMs !== undefined,
      op: "≤",
      threshold: TARGETS.largeListLatency,
      alt: Number.isFinite(cpu(small, big)) ? cpu(small, big) : cpu(small1, big1),
    });
    console.log(
      `\nFirst list page p50 with ${opts.connections} connections: ${fmt(small.p50)} ms at ${group(opts.containers)}, ` +
        `${big.loadedP50AtLeastMs ? `over ${fmt(big.loadedP50AtLeastMs, 0)} ms (${big.latencySource}: ${fmt(big.p50)} ms)` : `${fmt(big.p50)} ms`} ` +
        `at ${group(opts.largeContainers)}. With 1 connection: ${fmt(small1.p50)} ms and ${fmt(big1.p50)} ms ` +
        `(ratio ${fmt(big1.p50 / small1.p50)}; server CPU per request ratio ${fmt(cpu(small1, big1))}).`,
    );
  }
  if (large) {
    // The first search page of each query must not get slower as the account grows either (docs/api.md §Search).
    for (const { id } of SEARCHES) {
      const small = by(main, id);
      const big = by(large, id);
      targets.push({
        name: `${big.name} p50 at ${group(opts.largeContainers)} ÷ p50 at ${group(opts.containers)}`,
        value: (big.loadedP50AtLeastMs ?? big.p50) / small.p50,
        lowerBound: big.loadedP50AtLeastMs !== undefined,
        op: "≤",
        threshold: TARGETS.largeListLatency,
        alt: (big.serverCpuMsPerRequest ?? Number.NaN) / (small.serverCpuMsPerRequest ?? Number.NaN),
      });
    }
  }
  const allPass = printTargets(targets);
  const all = runs.flatMap((r) => r.results);
  const busy = all.filter((r) => (r.cpuCores.other ?? 0) > 0.25);
  if (busy.length > 0) {
    const worst = Math.max(...busy.map((r) => r.cpuCores.other));
    console.log(
      `\nwarning: other processes kept up to ${fmt(worst)} of the ${cpus().length} CPUs busy during ${busy.length} of ` +
        `${all.length} phases; throughput and latency are understated there (server CPU ms/req is less affected).`,
    );
  }
  const restarted = all.filter((r) => r.serverRestarted);
  if (restarted.length > 0)
    console.log(`warning: wrangler restarted the Worker during: ${restarted.map((r) => r.name).join("; ")}`);
  const invalid = all.filter((r) => r.non2xx + r.errors > 0);
  if (invalid.length > 0) {
    console.log(`\nwarning: ${invalid.map((r) => `${r.run} ${r.name}`).join("; ")} had non-2xx responses or errors`);
  }
  const file = writeResult("api", {
    bench: "api",
    finishedAt: new Date().toISOString(),
    source: opts.tree ? { tree: opts.tree } : sourceVersion(opts.ref),
    machine: m,
    options: opts,
    runs,
    targets,
  });
  console.log(`\nresults written to ${relative(ROOT, file)}`);
  if (invalid.length > 0) return 1;
  return opts.check && !allPass ? 1 : 0;
}
