// bench/ais: AIS position ingestion (issue 25 §5), positions/s through the real path as a ratio of a no-op consumer.
//
// A local fake aisstream.io (test/fixtures/fake-ais-server.ts, the tests' real WebSocket server, imported as it is) on
// a free 127.0.0.1 port; `wrangler dev --local` on a snapshot of the working tree with AISSTREAM_URL pointing at it and
// AISSTREAM_API_KEY set; a fresh D1 seeded with V vessels (IMO + MMSI) each carrying one tracked box. The cron
// (`/__scheduled`, what the every-minute trigger runs) makes the AisFeed object follow them: it connects and
// subscribes to their MMSIs. Then the fake pushes N PositionReport envelopes (encoded beforehand) round-robin over the
// vessels as fast as the socket takes them (fix times `--spacing` seconds apart per vessel, default 10 s as AIS class A under way), and
// the bench polls `/__scheduled` every 100 ms (each poll also writes what the feed has buffered) and reads the feed's
// status line from wrangler's log until every position was received and nothing is left buffered. The rate is
// N ÷ (time from the first frame sent to that point).
//
// Two runs, each on a fresh wrangler and database: "ingest" (parse, filter by followed vessel, thin to one row per
// vessel per 5 minutes, write batches to D1) and "no-op" (BENCH_AIS_SINK=noop: the same socket and parsing, the sink
// counts and drops). The ratio ingest ÷ no-op is the cost of ingestion over merely reading the stream. Bounded: N
// messages, and each run's wait is capped (--timeout). 127.0.0.1 only. Each run also checks that the API key never
// appears in wrangler's log (the Worker's console lines included).
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { startFakeAisServer } from "../../test/fixtures/fake-ais-server.ts";
import { benchOptions } from "../lib/options.mjs";
import { fmt, machine, printTable, printTargets, sourceVersion, writeResult } from "../lib/report.mjs";
import { isoSeconds, openForBulkLoad, uuidv7At } from "../lib/seed.mjs";
import { applyMigrations, d1SqliteFile, ROOT, snapshotProject, startDev, wipePersistDir } from "../lib/wrangler.mjs";

export const description =
  "AIS: positions/s ingested by the AisFeed from a local fake aisstream.io, ratio to a no-op consumer";

export const usage = `bench ais options (or the environment variable in brackets):
  --messages N   position messages pushed per run (BENCH_AIS_MESSAGES, default 100000)
  --vessels V    followed vessels the messages go round-robin over (BENCH_AIS_VESSELS, default 50; at most 50: one socket)
  --spacing S    seconds between two fixes of one vessel (BENCH_AIS_SPACING, default 10)
  --timeout S    longest wait for one run to take every message (BENCH_AIS_TIMEOUT, default 180)
  --port P       wrangler dev port (BENCH_PORT, default 8799)
  --check        exit 1 when a target fails (BENCH_CHECK=1)`;

/** Ingestion keeps at least this share of a consumer that does nothing with the reports. */
const TARGET_RATIO = 0.5;
const API_KEY = "bench-ais-key-0000000000000000";
/**
 * How often the bench runs the cron to read the feed's status (ms): the resolution of the end time. 100 000 messages
 * take seconds, so it is a few per cent of a run; each poll costs a cron run on the Worker's thread in both runs.
 */
const POLL_MS = 100;

function options(argv) {
  const { num, flag } = benchOptions(argv, {
    messages: { type: "string" },
    vessels: { type: "string" },
    spacing: { type: "string" },
    timeout: { type: "string" },
    port: { type: "string" },
    check: { type: "boolean" },
  });
  return {
    messages: Math.floor(num("messages", "BENCH_AIS_MESSAGES", 100_000)),
    vessels: Math.min(50, Math.floor(num("vessels", "BENCH_AIS_VESSELS", 50))),
    spacing: num("spacing", "BENCH_AIS_SPACING", 10),
    timeout: Math.floor(num("timeout", "BENCH_AIS_TIMEOUT", 180)),
    port: Math.floor(num("port", "BENCH_PORT", 8799)),
    check: flag("check", "BENCH_CHECK"),
  };
}

/** IMO number and MMSI of bench vessel `i`: 7 and 9 digits. */
const vesselOf = (i) => ({ imo: String(9_600_000 + i), mmsi: String(636_000_000 + i) });

/** V vessels known with their MMSI, one account, one tracked box on each (its latest event names the vessel). */
function seed(persistDir, vesselCount) {
  const db = openForBulkLoad(d1SqliteFile(persistDir));
  const now = Date.now();
  const at = isoSeconds(now - 3_600_000);
  db.exec("BEGIN");
  try {
    const accountId = uuidv7At(now - 86_400_000);
    db.prepare("INSERT INTO accounts (id, name, entitlements, created_at) VALUES (?, 'Bench AIS', '[]', ?)").run(
      accountId,
      at,
    );
    const vessel = db.prepare("INSERT INTO vessels (id, imo, mmsi, name, updated_at) VALUES (?, ?, ?, ?, ?)");
    const shipment = db.prepare(
      `INSERT INTO shipments (id, account_id, bill_of_lading_number, normalized_number, shipping_line_scac, created_at,
         updated_at) VALUES (?, ?, ?, ?, 'MAEU', ?, ?)`,
    );
    const container = db.prepare(
      "INSERT INTO containers (id, account_id, shipment_id, number, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)",
    );
    const event = db.prepare(
      `INSERT INTO transport_events (id, account_id, container_id, shipment_id, event, timestamp, vessel_name, vessel_imo,
         data_source, created_at) VALUES (?, ?, ?, ?, 'container.transport.vessel_departed', ?, ?, ?, 'shipping_line', ?)`,
    );
    for (let i = 0; i < vesselCount; i++) {
      const { imo, mmsi } = vesselOf(i);
      const name = `BENCH VESSEL ${i}`;
      vessel.run(`7e55e100-0000-8000-8000-${imo.padStart(12, "0")}`, imo, mmsi, name, at);
      const shipmentId = uuidv7At(now - 1000 * (i + 1));
      const containerId = uuidv7At(now - 1000 * (i + 1) + 1);
      const bl = `BAIS${String(i).padStart(8, "0")}`;
      shipment.run(shipmentId, accountId, bl, bl, at, at);
      container.run(containerId, accountId, shipmentId, `BAIU${String(i).padStart(7, "0")}`, at, at);
      event.run(uuidv7At(now - 500 * i), accountId, containerId, shipmentId, at, name, imo, at);
    }
    db.exec("COMMIT");
  } catch (err) {
    db.exec("ROLLBACK");
    throw err;
  } finally {
    db.close();
  }
}

/** The last `AIS feed status {...}` line of wrangler's log, parsed, or null. */
function lastStatus(logFile) {
  const lines = readFileSync(logFile, "utf8").split("\n");
  for (let i = lines.length - 1; i >= 0; i--) {
    const at = lines[i].indexOf("AIS feed status ");
    if (at >= 0) {
      try {
        return JSON.parse(lines[i].slice(at + "AIS feed status ".length).trim());
      } catch {
        // A line cut by a concurrent write: the next poll reads a whole one.
      }
    }
  }
  return null;
}

async function control(fake, path, body) {
  const res = await fetch(`http://127.0.0.1:${fake.port}/control/${path}`, {
    method: body === undefined ? "GET" : "POST",
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`fake AIS ${path}: ${res.status}`);
  return res.json();
}

/** One run: fresh database and wrangler, `sink` "ingest" or "noop". */
async function runOnce(opts, fake, sink) {
  const dir = join(ROOT, ".wrangler", `bench-ais-${sink}`);
  const src = snapshotProject(join(dir, "src"));
  const persistDir = join(dir, "state");
  wipePersistDir(persistDir);
  await applyMigrations(persistDir, { cwd: src });
  seed(persistDir, opts.vessels);
  const logFile = join(ROOT, "bench", "results", `ais-${sink}-wrangler.log`);
  const vars = { AISSTREAM_URL: fake.url, AISSTREAM_API_KEY: API_KEY };
  if (sink === "noop") vars.BENCH_AIS_SINK = "noop";
  const dev = await startDev({
    cwd: src,
    persistDir,
    port: opts.port,
    vars,
    logFile,
    logLevel: "log",
    testScheduled: true,
  });
  try {
    await control(fake, "reset", {});
    const cron = async () => {
      const res = await fetch(`${dev.baseUrl}/__scheduled?cron=${encodeURIComponent("* * * * *")}`);
      await res.arrayBuffer();
    };
    const deadline = Date.now() + opts.timeout * 1000;
    // Subscribed: the fake has an open, subscribed socket.
    await cron();
    for (;;) {
      const state = await control(fake, "state");
      if (state.connections === 1) break;
      if (Date.now() > deadline) throw new Error(`${sink}: the feed never subscribed (log: ${logFile})`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const mmsis = Array.from({ length: opts.vessels }, (_, i) => vesselOf(i).mmsi);
    const perVessel = Math.ceil(opts.messages / opts.vessels);
    const startMs = Date.now() - perVessel * opts.spacing * 1000 - 60_000;
    await control(fake, "prepare", { count: opts.messages, mmsis, startMs, stepMs: opts.spacing * 1000 });
    const t0 = performance.now();
    const flood = await control(fake, "flood", {});
    let status = null;
    for (;;) {
      await cron();
      await new Promise((r) => setTimeout(r, POLL_MS));
      status = lastStatus(logFile);
      if (status && status.positions >= opts.messages && status.buffered === 0) break;
      if (Date.now() > deadline) {
        throw new Error(
          `${sink}: ${status?.positions ?? 0}/${opts.messages} positions within the timeout (log: ${logFile})`,
        );
      }
    }
    // The last poll's line is written after its flush: the time is taken at the poll that showed completion.
    const seconds = (performance.now() - t0) / 1000;
    await dev.stop();
    // The Worker's own lines reached the log (the status lines above), and the key never did.
    if (readFileSync(logFile, "utf8").includes(API_KEY)) throw new Error(`${sink}: the AIS key appears in ${logFile}`);
    return { sink, seconds, perSecond: opts.messages / seconds, flood, status, keyInLog: false };
  } finally {
    await dev.stop();
    if (!process.env.BENCH_KEEP_STATE) rmSync(dir, { recursive: true, force: true });
  }
}

export async function run(argv) {
  const opts = options(argv);
  console.log(
    `${opts.messages.toLocaleString("en")} PositionReports over ${opts.vessels} followed vessels (fixes ${opts.spacing} s ` +
      "apart), pushed by a local fake aisstream.io to the AisFeed under wrangler dev; ingest vs no-op consumer",
  );
  const fake = await startFakeAisServer({ apiKey: API_KEY });
  const runs = [];
  try {
    for (const sink of ["noop", "ingest"]) {
      const r = await runOnce(opts, fake, sink);
      console.log(`  ${sink}: ${fmt(r.perSecond, 0)} positions/s (${fmt(r.seconds, 2)} s)`);
      runs.push(r);
    }
  } finally {
    await fake.close();
  }
  const [noop, ingest] = runs;
  console.log("\nPositions ingested per second");
  printTable(
    ["consumer", "positions/s", "seconds", "received", "malformed", "stored rows", "dropped by the store", "D1 errors"],
    runs.map((r) => [
      r.sink,
      Math.round(r.perSecond),
      fmt(r.seconds, 2),
      r.status.positions,
      r.status.malformed,
      r.status.stored,
      r.status.dropped + (r.status.untracked ?? 0),
      r.status.flushErrors,
    ]),
  );
  const ratio = ingest.perSecond / noop.perSecond;
  console.log(`\ningest ÷ no-op: ${fmt(ratio, 3)}`);
  const targets = [{ name: "ingest positions/s ÷ no-op positions/s", value: ratio, op: "≥", threshold: TARGET_RATIO }];
  const passed = printTargets(targets);
  const file = writeResult("ais", { options: opts, machine: machine(), source: sourceVersion(), runs, ratio, targets });
  console.log(`\nresults: ${file}`);
  return opts.check && !passed ? 1 : 0;
}
