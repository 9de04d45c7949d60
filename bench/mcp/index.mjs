// bench/mcp: the MCP tool server's latency next to the REST API's, in the same run against one local `wrangler dev`.
//
// Seeds one account with N containers (bench/lib/seed.mjs), starts wrangler dev with the rate limits out of the way,
// opens MCP sessions on /mcp (initialize + notifications/initialized, as a client does), then loads, one after the
// other, with the same connections and duration (autocannon, bench/lib/load.mjs):
//
//   GET  /v2/containers/{id}                                   the REST baseline (ids spread over the table)
//   GET  /v2/containers/{id}?include=shipment,pod_terminal     REST with what get_container reads by default
//   POST /mcp ping                                             the MCP transport alone (no tool, no D1)
//   POST /mcp tools/call get_container {id}                    streamable HTTP, one session per connection
//
// Target (issue 6): tools/call get_container p50 within 2× the REST GET /containers/{id} p50.
// A tools/call answers HTTP 200 even when the tool fails (`isError`), so every tool result of the sanity checks
// before and after the load is read and must be a success for the same container.
import { rmSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join, relative, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { load } from "../lib/load.mjs";
import { benchOptions } from "../lib/options.mjs";
import { fmt, machine, printTable, printTargets, sourceVersion, writeResult } from "../lib/report.mjs";
import { execStatements, generateTestKey, openForBulkLoad, seedAccount } from "../lib/seed.mjs";
import { applyMigrations, d1SqliteFile, ROOT, snapshotProject, startDev, wipePersistDir } from "../lib/wrangler.mjs";

export const description = "MCP: tools/call get_container p50/p99 next to REST GET /containers/{id} (same run)";

export const usage = `bench mcp options (or the environment variable in brackets):
  --containers N        containers seeded (BENCH_MCP_CONTAINERS, default 1000)
  --duration S          seconds of load per endpoint (BENCH_DURATION, default 10)
  --warmup S            seconds of unrecorded load before each endpoint (BENCH_WARMUP, default 2)
  --connections N       concurrent connections, and MCP sessions (BENCH_CONNECTIONS, default 10)
  --rounds N            measure every endpoint N times, interleaved, and report medians (BENCH_ROUNDS, default 1)
  --port P              port of the bench's wrangler dev on 127.0.0.1 (BENCH_MCP_PORT, default 8789)
  --from DIR            bench the Worker in DIR (a copy of this project with other sources, to compare a variant
                        in the same conditions) instead of this checkout
  --keep-state          keep .wrangler/bench-mcp-state and the source snapshot .wrangler/bench-mcp-src
  --check               exit 1 when the target fails (BENCH_CHECK=1)`;

const ACCOUNT_ID = "00000000-0000-7000-8000-00000000b0c0";
/** tools/call get_container p50 ÷ REST GET /containers/{id} p50 must stay at or under this (issue 6). */
const TARGET_P50_RATIO = 2;
/** The protocol version the bench's client asks for (McpAgent speaks the 2025-era protocol, docs/mcp.md §Conformance). */
const PROTOCOL_VERSION = "2025-06-18";

function options(argv) {
  const { values, num, flag } = benchOptions(argv, {
    containers: { type: "string" },
    duration: { type: "string" },
    warmup: { type: "string" },
    connections: { type: "string" },
    rounds: { type: "string" },
    port: { type: "string" },
    from: { type: "string" },
    "keep-state": { type: "boolean" },
    check: { type: "boolean" },
  });
  return {
    containers: Math.floor(num("containers", "BENCH_MCP_CONTAINERS", 1000, 10)),
    duration: num("duration", "BENCH_DURATION", 10),
    warmup: num("warmup", "BENCH_WARMUP", 2, 0),
    connections: Math.floor(num("connections", "BENCH_CONNECTIONS", 10)),
    rounds: Math.floor(num("rounds", "BENCH_ROUNDS", 1)),
    port: Math.floor(num("port", "BENCH_MCP_PORT", 8789)),
    from: values.from === undefined ? ROOT : resolve(values.from),
    keepState: values["keep-state"] === true,
    check: flag("check", "BENCH_CHECK"),
  };
}

const step = (text) => console.log(`· ${text}`);

/** The JSON-RPC messages of an MCP response: a JSON body, or the `data:` lines of an SSE stream. */
function rpcMessages(contentType, text) {
  if (!contentType?.includes("text/event-stream")) return text.trim() ? [JSON.parse(text)] : [];
  return text
    .split("\n")
    .filter((line) => line.startsWith("data:"))
    .map((line) => line.slice(5).trim())
    .filter((data) => data !== "")
    .map((data) => JSON.parse(data));
}

/** Headers of every MCP request of the bench (plus `mcp-session-id` once a session exists). */
function mcpHeaders(key, sessionId) {
  return {
    authorization: `Token ${key}`,
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": PROTOCOL_VERSION,
    ...(sessionId ? { "mcp-session-id": sessionId } : {}),
  };
}

/** Opens one MCP session as a client does (initialize, then notifications/initialized); returns its id. */
async function openSession(baseUrl, key) {
  const res = await fetch(`${baseUrl}/mcp`, {
    method: "POST",
    headers: mcpHeaders(key),
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: {
        protocolVersion: PROTOCOL_VERSION,
        capabilities: {},
        clientInfo: { name: "bench-mcp", version: "1.0.0" },
      },
    }),
  });
  const text = await res.text();
  const sessionId = res.headers.get("mcp-session-id");
  if (res.status !== 200 || !sessionId) {
    throw new Error(`initialize: HTTP ${res.status}, session ${sessionId}: ${text.slice(0, 300)}`);
  }
  const init = rpcMessages(res.headers.get("content-type"), text).find((m) => m.id === 0);
  if (!init?.result?.protocolVersion) throw new Error(`initialize: no result: ${text.slice(0, 300)}`);
  const ack = await fetch(`${baseUrl}/mcp`, {
    method: "POST",
    headers: mcpHeaders(key, sessionId),
    body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
  });
  await ack.arrayBuffer();
  if (ack.status !== 202 && ack.status !== 200) throw new Error(`notifications/initialized: HTTP ${ack.status}`);
  return sessionId;
}

/** Ends a session (DELETE /mcp), so its Durable Object is torn down. Failures are ignored. */
async function closeSession(baseUrl, key, sessionId) {
  try {
    const res = await fetch(`${baseUrl}/mcp`, { method: "DELETE", headers: mcpHeaders(key, sessionId) });
    await res.arrayBuffer();
  } catch {
    // the bench's state is wiped anyway
  }
}

function toolCallBody(rpcId, containerId) {
  return JSON.stringify({
    jsonrpc: "2.0",
    id: rpcId,
    method: "tools/call",
    params: { name: "get_container", arguments: { id: containerId } },
  });
}

/**
 * Calls get_container once per id over `sessionId` and checks the tool result: not `isError`, and the structured
 * content is about that container (its id appears in it). Throws with the answer otherwise.
 */
async function checkToolCalls(baseUrl, key, sessionId, ids) {
  for (const [i, id] of ids.entries()) {
    const res = await fetch(`${baseUrl}/mcp`, {
      method: "POST",
      headers: mcpHeaders(key, sessionId),
      body: toolCallBody(1_000_000 + i, id),
    });
    const text = await res.text();
    const reply = rpcMessages(res.headers.get("content-type"), text).find((m) => m.id === 1_000_000 + i);
    const result = reply?.result;
    if (
      res.status !== 200 ||
      !result ||
      result.isError ||
      !JSON.stringify(result.structuredContent ?? {}).includes(id)
    ) {
      throw new Error(`tools/call get_container ${id}: HTTP ${res.status}: ${text.slice(0, 400)}`);
    }
  }
}

/** The endpoints under test. Ids rotate over the seeded sample; MCP requests rotate over the sessions. */
function endpoints(key, sampleIds, sessions) {
  const auth = { authorization: `Token ${key}` };
  let cursor = 0;
  const nextId = () => sampleIds[cursor++ % sampleIds.length];
  let rpcId = 0;
  let sessionCursor = 0;
  return [
    {
      id: "rest",
      name: "REST GET /v2/containers/{id}",
      load: {
        path: `/v2/containers/${sampleIds[0]}`,
        headers: auth,
        setupRequest: (req) => ({ ...req, path: `/v2/containers/${nextId()}` }),
      },
    },
    {
      id: "restInclude",
      name: "REST GET /v2/containers/{id}?include=shipment,pod_terminal",
      load: {
        path: `/v2/containers/${sampleIds[0]}?include=shipment,pod_terminal`,
        headers: auth,
        setupRequest: (req) => ({ ...req, path: `/v2/containers/${nextId()}?include=shipment,pod_terminal` }),
      },
    },
    {
      // The transport's floor: the same session lookup, agent and SSE path, but no tool and no D1 read.
      id: "mcpPing",
      name: "MCP ping",
      load: {
        path: "/mcp",
        method: "POST",
        headers: mcpHeaders(key, sessions[0]),
        body: JSON.stringify({ jsonrpc: "2.0", id: 0, method: "ping" }),
        setupRequest: (req) => ({
          ...req,
          headers: mcpHeaders(key, sessions[sessionCursor++ % sessions.length]),
          body: JSON.stringify({ jsonrpc: "2.0", id: ++rpcId, method: "ping" }),
        }),
      },
    },
    {
      id: "mcp",
      name: "MCP tools/call get_container",
      load: {
        path: "/mcp",
        method: "POST",
        headers: mcpHeaders(key, sessions[0]),
        body: toolCallBody(0, sampleIds[0]),
        setupRequest: (req) => ({
          ...req,
          headers: mcpHeaders(key, sessions[sessionCursor++ % sessions.length]),
          body: toolCallBody(++rpcId, nextId()),
        }),
      },
    },
  ];
}

async function phase(dev, e, opts, label) {
  const common = {
    name: e.name,
    url: `${dev.baseUrl}${e.load.path}`,
    method: e.load.method ?? "GET",
    headers: e.load.headers ?? {},
    body: e.load.body,
    setupRequest: e.load.setupRequest,
    serverPgid: dev.pid,
    connections: opts.connections,
  };
  let r;
  for (let attempt = 1; ; attempt++) {
    if (opts.warmup > 0) await load({ ...common, duration: opts.warmup });
    r = await load({ ...common, duration: opts.duration });
    if (!r.serverRestarted || attempt === 3) break;
    step(`${label}: ${e.name}: wrangler restarted the Worker during the run; again`);
  }
  const bad = r.non2xx + r.errors;
  step(
    `${label}: ${e.name}: ${fmt(r.rps, 0)} req/s, p50 ${fmt(r.p50)} ms, p99 ${fmt(r.p99)} ms, ` +
      `server CPU ${fmt(r.serverCpuMsPerRequest)} ms/req, other load ${fmt(r.cpuCores.other)} CPUs` +
      `${bad ? `, ${r.non2xx} non-2xx ${JSON.stringify(r.statusCodes)}, ${r.errors} errors` : ""}`,
  );
  return r;
}

function median(values) {
  const v = values.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (v.length === 0) return Number.NaN;
  return v.length % 2 ? v[(v.length - 1) / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
}

/** Runs the mcp bench; resolves to the process exit code. */
export async function run(argv) {
  const opts = options(argv);
  const m = machine();
  console.log(
    `bench mcp: ${opts.connections} connections (${opts.connections} MCP sessions), ${opts.warmup} s warm-up + ` +
      `${opts.duration} s per endpoint${opts.rounds > 1 ? ` × ${opts.rounds} rounds (medians)` : ""}, ` +
      `127.0.0.1:${opts.port}, ${opts.containers} containers`,
  );
  console.log(
    `machine: ${m.cpus} × ${m.cpuModel}, Node ${m.node}, wrangler ${m.wrangler}, load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}`,
  );
  if (cpus().length <= 4) {
    console.log(
      `note: autocannon and workerd share these ${cpus().length} CPUs; compare MCP with REST, measured alike in this run.`,
    );
  }
  if (opts.from !== ROOT) console.log(`sources: ${opts.from}`);
  const project = snapshotProject(join(ROOT, ".wrangler", "bench-mcp-src"), { from: opts.from });
  const persistDir = join(ROOT, ".wrangler", "bench-mcp-state");
  try {
    wipePersistDir(persistDir);
    await applyMigrations(persistDir, { cwd: project });
    const key = generateTestKey();
    const db = openForBulkLoad(d1SqliteFile(persistDir));
    let sampleIds;
    try {
      const { referenceSeedStatements } = await import(
        pathToFileURL(join(project, "src", "reference", "seed.ts")).href
      );
      execStatements(db, referenceSeedStatements());
      ({ sampleIds } = seedAccount(db, { accountId: ACCOUNT_ID, key, containers: opts.containers }));
    } finally {
      db.close();
    }
    step(`seeded ${opts.containers} containers into ${relative(ROOT, persistDir)}`);

    const dev = await startDev({
      cwd: project,
      persistDir,
      port: opts.port,
      vars: { RATE_LIMIT_DEFAULT: "1000000000", RATE_LIMIT_CREATE_TRACKING_REQUEST: "1000000000" },
      logFile: join(ROOT, "bench", "results", "wrangler-mcp.log"),
    });
    const sessions = [];
    try {
      step(`wrangler dev ready on ${dev.baseUrl}`);
      for (let i = 0; i < opts.connections; i++) sessions.push(await openSession(dev.baseUrl, key));
      step(`${sessions.length} MCP sessions open`);
      const check = sampleIds.slice(0, 3);
      await checkToolCalls(dev.baseUrl, key, sessions[0], check);
      const rest = await fetch(`${dev.baseUrl}/v2/containers/${check[0]}`, {
        headers: { authorization: `Token ${key}` },
      });
      await rest.arrayBuffer();
      if (rest.status !== 200) throw new Error(`REST GET /v2/containers/{id}: HTTP ${rest.status}`);

      const list = endpoints(key, sampleIds, sessions);
      const perEndpoint = list.map(() => []);
      for (let round = 1; round <= opts.rounds; round++) {
        const label = opts.rounds > 1 ? `round ${round}` : "run";
        for (const [i, e] of list.entries()) perEndpoint[i].push(await phase(dev, e, opts, label));
      }
      // The tools still answer correctly after the load (a 200 can carry a tool error).
      await checkToolCalls(dev.baseUrl, key, sessions[sessions.length - 1], sampleIds.slice(-3));
      if (!dev.alive()) throw new Error("wrangler dev died during the run");

      const results = list.map((e, i) => {
        const rounds = perEndpoint[i];
        return {
          id: e.id,
          name: e.name,
          rps: median(rounds.map((r) => r.rps)),
          p50: median(rounds.map((r) => r.p50)),
          p99: median(rounds.map((r) => r.p99)),
          serverCpuMsPerRequest: median(rounds.map((r) => r.serverCpuMsPerRequest)),
          non2xx: rounds.reduce((a, r) => a + r.non2xx + r.errors, 0),
          otherCpus: Math.max(...rounds.map((r) => r.cpuCores.other ?? 0)),
          rounds,
        };
      });
      const by = (id) => results.find((r) => r.id === id);
      console.log("");
      console.log(
        `Results (${opts.connections} connections, ${opts.duration} s each${opts.rounds > 1 ? `, medians of ${opts.rounds} rounds` : ""})`,
      );
      printTable(
        ["endpoint", "req/s", "p50 ms", "p99 ms", "p50 × REST", "server CPU ms/req", "non-2xx"],
        results.map((r) => [
          r.name,
          fmt(r.rps, 0),
          fmt(r.p50),
          fmt(r.p99),
          fmt(r.p50 / by("rest").p50),
          fmt(r.serverCpuMsPerRequest),
          r.non2xx,
        ]),
      );
      const targets = [
        {
          name: "tools/call get_container p50 ÷ REST GET /containers/{id} p50",
          value: by("mcp").p50 / by("rest").p50,
          op: "≤",
          threshold: TARGET_P50_RATIO,
          alt: by("mcp").serverCpuMsPerRequest / by("rest").serverCpuMsPerRequest,
        },
      ];
      const pass = printTargets(targets);
      console.log("(by server CPU: MCP server CPU per call ÷ REST server CPU per request)");
      const busy = results.filter((r) => r.otherCpus > 0.25);
      if (busy.length > 0) {
        console.log(
          `\nwarning: other processes kept up to ${fmt(Math.max(...busy.map((r) => r.otherCpus)))} CPUs busy; figures are understated.`,
        );
      }
      const file = writeResult("mcp", {
        bench: "mcp",
        finishedAt: new Date().toISOString(),
        source: sourceVersion(),
        machine: m,
        options: opts,
        results,
        targets,
      });
      console.log(`\nresults written to ${relative(ROOT, file)}`);
      const invalid = results.some((r) => r.non2xx > 0);
      if (invalid) console.log("warning: some requests answered non-2xx or failed");
      return invalid || (opts.check && !pass) ? 1 : 0;
    } finally {
      for (const s of sessions) await closeSession(dev.baseUrl, key, s);
      await dev.stop();
    }
  } finally {
    if (!opts.keepState) {
      rmSync(persistDir, { recursive: true, force: true });
      rmSync(project, { recursive: true, force: true });
    }
  }
}
