// `npm run bench -- capacity`: what a tracked box costs (issue 29 §1). N boxes (container numbers of a simulated
// line) are tracked through the API of a private `wrangler dev` with the journey simulator at a high
// SIMULATION_SPEED, one webhook (every event of the catalog) pointing at a local receiver on 127.0.0.1, until every
// box's journey has ended (its Tracker stopped after the empty return) and every notification was delivered, or a
// bounded time. The Worker runs with BENCH_CAPACITY=1 (src/tracking/bench-capacity.ts: every binding call counted,
// D1 rows as D1's meta reports them) and BENCH_ENGINE=trace (one log line per poll with its D1 work and the interval
// production would have waited). Then, with wrangler stopped: bytes per table (with its indexes) of the D1 file
// (`dbstat`) against the same file before tracking, Tracker and RateLimiter Durable Object files, and production's
// poll schedule for the same boxes replayed offline (bench/capacity/schedule.ts), which turns the fast run's few
// polls per journey into production's count. docs/SCALING.md §Capacity and cost per box is written from its output.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { createServer } from "node:http";
import { loadavg } from "node:os";
import { join, relative } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { pathToFileURL } from "node:url";
import { containerNumber } from "../engine/index.mjs";
import { startCpuMeter } from "../lib/cpu.mjs";
import { benchOptions } from "../lib/options.mjs";
import { fmt, machine, printTable, sourceVersion, writeResult } from "../lib/report.mjs";
import { execStatements, generateTestKey, openForBulkLoad, seedAccount } from "../lib/seed.mjs";
import { applyMigrations, d1SqliteFile, ROOT, snapshotProject, startDev, wipePersistDir } from "../lib/wrangler.mjs";

export const description =
  "capacity: N boxes through whole simulated journeys with a webhook; D1/DO bytes per box, meters per box-day";

export const usage = `bench capacity options (or the environment variable in brackets):
  --boxes N             boxes tracked (BENCH_CAPACITY_BOXES, default 10000)
  --speed S             SIMULATION_SPEED, simulated days per real minute (BENCH_CAPACITY_SPEED, default 20); a box
                        polled only a few times per journey skips the changes in between, which are notifications
                        when seen live: --speed 2 (about 60 polls per box) comes close to production
  --concurrency N       concurrent POST /v2/tracking_requests (default 20)
  --timeout S           at most this many seconds from the first POST to steady state (BENCH_CAPACITY_TIMEOUT,
                        default 1500); the run reports what it measured by then
  --schedule-sample N   boxes whose production poll schedule is replayed offline (default 500)
  --port P              port of the bench's wrangler dev on 127.0.0.1 (BENCH_CAPACITY_PORT, default 8794)
  --keep-state          keep .wrangler/bench-capacity-state and the snapshot .wrangler/bench-capacity-src`;

const ACCOUNT_ID = "00000000-0000-7000-8000-0000000ca9a1";
const SCAC = "MAEU";
const OWNER = "MSKU";
/** Tables whose rows the retention of issue 29 §2 moves to R2 (90 days after tracking stops). */
const ARCHIVED = new Set(["raw_events", "webhook_notifications", "webhook_deliveries"]);

function options(argv) {
  const { values, num } = benchOptions(argv, {
    boxes: { type: "string" },
    speed: { type: "string" },
    concurrency: { type: "string" },
    timeout: { type: "string" },
    "schedule-sample": { type: "string" },
    port: { type: "string" },
    "keep-state": { type: "boolean" },
  });
  return {
    boxes: Math.floor(num("boxes", "BENCH_CAPACITY_BOXES", 10_000)),
    speed: num("speed", "BENCH_CAPACITY_SPEED", 20, 0.000001),
    concurrency: Math.floor(num("concurrency", null, 20)),
    timeout: num("timeout", "BENCH_CAPACITY_TIMEOUT", 1500),
    scheduleSample: Math.floor(num("schedule-sample", null, 500)),
    port: Math.floor(num("port", "BENCH_CAPACITY_PORT", 8794)),
    keepState: values["keep-state"] === true,
  };
}

function step(text) {
  console.log(`[capacity ${new Date().toISOString().slice(11, 19)}] ${text}`);
}

/** A receiver on 127.0.0.1 that answers every POST 200 and counts requests and body bytes. */
function startReceiver() {
  const stats = { requests: 0, bytes: 0 };
  const server = createServer((req, res) => {
    let bytes = 0;
    req.on("data", (c) => {
      bytes += c.length;
    });
    req.on("end", () => {
      stats.requests++;
      stats.bytes += bytes;
      res.writeHead(200, { "content-type": "text/plain" }).end("ok");
    });
  });
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => resolve({ port: server.address().port, stats, stop: () => server.close() }));
  });
}

/** Bytes per table of a SQLite file, each table with its indexes (`dbstat`, grouped by `sqlite_master.tbl_name`). */
function tableBytes(file) {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    const owner = new Map(
      db
        .prepare("SELECT name, tbl_name FROM sqlite_master")
        .all()
        .map((r) => [r.name, r.tbl_name]),
    );
    const out = {};
    for (const r of db.prepare("SELECT name, sum(pgsize) AS bytes FROM dbstat GROUP BY name").all()) {
      const table = owner.get(r.name) ?? r.name;
      out[table] = (out[table] ?? 0) + Number(r.bytes);
    }
    return out;
  } finally {
    db.close();
  }
}

function rowCounts(file, tables) {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    const out = {};
    for (const t of tables) {
      try {
        out[t] = Number(db.prepare(`SELECT count(*) AS n FROM "${t}"`).get().n);
      } catch {
        out[t] = null;
      }
    }
    return out;
  } finally {
    db.close();
  }
}

/** Progress read from the D1 file (read-only, wrangler running). */
function progress(file) {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    const q = (sql) => Number(db.prepare(sql).get().n);
    return {
      requests: q(`SELECT count(*) AS n FROM tracking_requests WHERE account_id = '${ACCOUNT_ID}'`),
      pendingRequests: q(`SELECT count(*) AS n FROM tracking_requests WHERE status = 'pending'`),
      containers: q("SELECT count(*) AS n FROM containers"),
      finished: q("SELECT count(*) AS n FROM containers WHERE current_status IN ('empty_returned', 'delivered')"),
      notifications: q("SELECT count(*) AS n FROM webhook_notifications"),
      undelivered: q("SELECT count(*) AS n FROM webhook_notifications WHERE delivery_status = 'pending'"),
    };
  } catch {
    return null; // the file is being checkpointed; read again next time
  } finally {
    db.close();
  }
}

/** Bytes of the Durable Objects of one class under the persistence directory: files (+ WAL) and stored keys/values. */
function objectStorage(persistDir, className) {
  const doDir = join(persistDir, "v3", "do");
  const dirs = existsSync(doDir) ? readdirSync(doDir).filter((d) => d.endsWith(`-${className}`)) : [];
  let objects = 0;
  let fileBytes = 0;
  let kvBytes = 0;
  let sqlBytes = 0;
  for (const d of dirs) {
    for (const f of readdirSync(join(doDir, d)).filter((x) => x.endsWith(".sqlite"))) {
      const path = join(doDir, d, f);
      const wal = existsSync(`${path}-wal`) ? statSync(`${path}-wal`).size : 0;
      const db = new DatabaseSync(path, { readOnly: true });
      try {
        const tables = db
          .prepare("SELECT name FROM sqlite_master WHERE type = 'table'")
          .all()
          .map((r) => r.name);
        if (tables.length === 1 && tables[0] === "_cf_ALARM") continue; // the namespace's alarm file
        objects++;
        fileBytes += statSync(path).size + wal;
        if (tables.includes("_cf_KV")) {
          kvBytes += Number(
            db.prepare("SELECT coalesce(sum(length(key) + length(value)), 0) AS b FROM _cf_KV").get().b,
          );
        }
        for (const r of db.prepare("SELECT name, sum(pgsize) AS b FROM dbstat GROUP BY name").all()) {
          if (!String(r.name).startsWith("_cf_") && !String(r.name).startsWith("sqlite_")) sqlBytes += Number(r.b);
        }
      } finally {
        db.close();
      }
    }
  }
  return { objects, fileBytes, kvBytes, sqlBytes };
}

function traceLines(logFile) {
  const out = [];
  for (const m of readFileSync(logFile, "utf8").matchAll(/bench-engine (\{[^\n]*\})/g)) {
    try {
      out.push(JSON.parse(m[1]));
    } catch {
      // a line cut by a concurrent write
    }
  }
  return out;
}

async function pool(items, limit, fn) {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        await fn(items[i], i);
      }
    }),
  );
}

async function api(baseUrl, key, method, path, body) {
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { authorization: `Token ${key}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: HTTP ${res.status} ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : null;
}

/** The reference catalog's event names (src/webhooks/catalog.ts `WEBHOOK_EVENTS`), read from the snapshot. */
function catalogEvents(project) {
  const text = readFileSync(join(project, "src", "webhooks", "catalog.ts"), "utf8");
  const block = text.slice(text.indexOf("export const WEBHOOK_EVENTS"));
  return [...block.slice(0, block.indexOf("];")).matchAll(/"([a-z_.]+)"/g)].map((m) => m[1]);
}

/** Production's poll schedule (bench/capacity/schedule.ts, bundled by esbuild) for `numbers`. */
async function productionSchedules(numbers) {
  const esbuild = await import("esbuild");
  const dir = join(ROOT, ".wrangler", "bench-capacity");
  mkdirSync(dir, { recursive: true });
  const outfile = join(dir, "schedule-bundle.mjs");
  await esbuild.build({
    entryPoints: [join(ROOT, "bench", "capacity", "schedule.ts")],
    bundle: true,
    platform: "node",
    format: "esm",
    outfile,
    logLevel: "warning",
    banner: { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" },
  });
  const { productionSchedule } = await import(pathToFileURL(outfile).href);
  return numbers.map((n) => productionSchedule(SCAC, n));
}

const delta = (a, b) => {
  const out = {};
  for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) out[k] = (b[k] ?? 0) - (a[k] ?? 0);
  return out;
};
const sumKeys = (o, re) => Object.entries(o).reduce((s, [k, v]) => (re.test(k) ? s + v : s), 0);

export async function run(argv) {
  const opts = options(argv);
  const m = machine();
  console.log(
    `bench capacity: ${opts.boxes} boxes (${SCAC}, simulator at ${opts.speed} days/min), webhooks on, ` +
      `127.0.0.1:${opts.port}; ${m.cpus} × ${m.cpuModel}, Node ${m.node}, wrangler ${m.wrangler}, ` +
      `load average ${loadavg()
        .map((l) => l.toFixed(2))
        .join(" ")}`,
  );
  const srcDir = join(ROOT, ".wrangler", "bench-capacity-src");
  const persistDir = join(ROOT, ".wrangler", "bench-capacity-state");
  const logFile = join(ROOT, "bench", "results", `wrangler-capacity-${Date.now()}.log`);
  const project = snapshotProject(srcDir);
  const receiver = await startReceiver();
  let dev;
  try {
    wipePersistDir(persistDir);
    await applyMigrations(persistDir, { cwd: project });
    const key = generateTestKey();
    const d1File = d1SqliteFile(persistDir);
    const db = openForBulkLoad(d1File);
    try {
      const { referenceSeedStatements } = await import(
        pathToFileURL(join(project, "src", "reference", "seed.ts")).href
      );
      execStatements(db, referenceSeedStatements());
      seedAccount(db, { accountId: ACCOUNT_ID, key, containers: 0 });
    } finally {
      db.close();
    }
    const before = tableBytes(d1File);
    const speedUp = opts.speed * 1440;
    dev = await startDev({
      cwd: project,
      persistDir,
      port: opts.port,
      logFile,
      vars: {
        SIMULATOR_ENABLED: "true",
        SIMULATION_SPEED: String(opts.speed),
        RATE_LIMIT_DEFAULT: "1000000000",
        RATE_LIMIT_CREATE_TRACKING_REQUEST: "1000000000",
        RATE_LIMIT_REFRESH_CONTAINER: "1000000000",
        WEBHOOK_ALLOW_INSECURE_HOSTS: "127.0.0.1",
        BENCH_ENGINE: "trace",
        BENCH_CAPACITY: "1",
      },
    });
    step(`wrangler dev on ${dev.baseUrl} (log: ${relative(ROOT, logFile)}); receiver on 127.0.0.1:${receiver.port}`);
    const events = catalogEvents(project);
    await api(dev.baseUrl, key, "POST", "/v2/webhooks", {
      data: { type: "webhook", attributes: { url: `http://127.0.0.1:${receiver.port}/hook`, events } },
    });
    const tally = async () => (await fetch(`${dev.baseUrl}/__bench/capacity`)).json();
    const t0 = await tally();
    const cpu = startCpuMeter(dev.pid);
    const started = Date.now();
    const boxes = Array.from({ length: opts.boxes }, (_, i) => containerNumber(OWNER, 200_000 + i));
    step(`tracking ${opts.boxes} boxes (${opts.concurrency} concurrent POST /v2/tracking_requests)`);
    let posted = 0;
    const posting = pool(boxes, opts.concurrency, async (number) => {
      await api(dev.baseUrl, key, "POST", "/v2/tracking_requests", {
        data: {
          type: "tracking_request",
          attributes: { request_type: "container", request_number: number, scac: SCAC },
        },
      });
      posted++;
    });
    let postedAt = null;
    posting.then(() => {
      postedAt = Date.now();
    });
    const deadline = started + opts.timeout * 1000;
    let last = null;
    let steady = false;
    for (;;) {
      await new Promise((r) => setTimeout(r, 10_000));
      const p = progress(d1File);
      if (p) last = p;
      if (last) {
        step(
          `${Math.round((Date.now() - started) / 1000)} s: posted ${posted}, containers ${last.containers}, ` +
            `journeys ended ${last.finished}, notifications ${last.notifications} (undelivered ${last.undelivered}), ` +
            `received ${receiver.stats.requests}`,
        );
      }
      if (!dev.alive()) throw new Error("wrangler dev died during the run");
      if (postedAt && last && last.finished >= opts.boxes && last.undelivered === 0) {
        steady = true;
        break;
      }
      if (Date.now() > deadline) break;
    }
    await posting.catch(() => undefined);
    const t1 = await tally();
    const cpuUsed = cpu.stop();
    const wallS = (Date.now() - started) / 1000;
    await dev.stop();
    dev = null;
    const final = progress(d1File) ?? last;

    // Bytes: D1 per table (with indexes), the Durable Objects.
    const after = tableBytes(d1File);
    const tables = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
    const rows = rowCounts(d1File, tables);
    const growth = tables
      .map((t) => ({ table: t, bytes: (after[t] ?? 0) - (before[t] ?? 0), rows: rows[t] }))
      .filter((r) => r.bytes !== 0)
      .sort((a, b) => b.bytes - a.bytes);
    const boxesTracked = final.containers;
    const d1PerBox = growth.reduce((s, r) => s + r.bytes, 0) / boxesTracked;
    const archivedPerBox = growth.filter((r) => ARCHIVED.has(r.table)).reduce((s, r) => s + r.bytes, 0) / boxesTracked;
    const tracker = objectStorage(persistDir, "Tracker");
    const limiter = objectStorage(persistDir, "RateLimiter");

    // Polls: the run's, and production's for the same boxes.
    const lines = traceLines(logFile).filter((l) => l.box !== undefined && l.joining === 0);
    const changed = lines.filter((l) => l.events > 0);
    const unchanged = lines.filter((l) => l.events === 0);
    const mean = (list, f) => (list.length ? list.reduce((s, l) => s + (l[f] ?? 0), 0) / list.length : Number.NaN);
    const sample = boxes.slice(0, Math.min(opts.scheduleSample, boxes.length));
    const schedules = await productionSchedules(sample);
    const prodPolls = schedules.reduce((s, x) => s + x.polls, 0) / schedules.length;
    const journeyDays = schedules.reduce((s, x) => s + x.days, 0) / schedules.length;
    const runPolls = lines.length / boxesTracked;

    // Meters over the run, per box; production adds (prodPolls − runPolls) unchanged polls per box.
    const d = delta(t0, t1);
    const perBox = (v) => v / boxesTracked;
    const pollMsgs = d["worker.queue.terminal-polls.messages"] ?? 0;
    const pollShare = {
      workerRequests: (d["worker.queue.terminal-polls.invocations"] ?? 0) / Math.max(1, pollMsgs),
      doRequests:
        ((d["do.TRACKER.pollPlan"] ?? 0) + (d["do.TRACKER.applyPoll"] ?? 0) + (d["do.TRACKER.alarm"] ?? 0)) /
        Math.max(1, lines.length),
      queueSent: (d["queue.TERMINAL_POLLS_QUEUE.sent"] ?? 0) / Math.max(1, lines.length),
      queueRead: pollMsgs / Math.max(1, lines.length),
      rowsRead: mean(unchanged, "rowsRead"),
      rowsWritten: mean(unchanged, "rowsWritten"),
    };
    const queueRead = sumKeys(d, /^worker\.queue\..*\.messages$/);
    const workerRequests =
      (d["worker.fetch"] ?? 0) + sumKeys(d, /^worker\.queue\..*\.invocations$/) + (d["worker.scheduled"] ?? 0);
    const doRequests = sumKeys(d, /^do\.[A-Z_]+\.(requests|alarm)$/);
    const doWallMs = sumKeys(d, /^do\.[A-Z_]+\.wallMs$/);
    const rowsRead = sumKeys(d, /^d1\..*\.rowsRead$/);
    const rowsWritten = sumKeys(d, /^d1\..*\.rowsWritten$/);
    const queueSent = sumKeys(d, /^queue\..*\.sent$/);
    const outbound = sumKeys(d, /^outbound\./);
    // Durable Object storage rows (src/tracking/bench-capacity.ts meterObjectStorage, the Tracker's key-value and
    // alarm calls): production's extra polls are charged the run's mean per poll (subscribe included: a bound).
    const doRowsRead = sumKeys(d, /^dostorage\..*\.rowsRead$/);
    const doRowsWritten = sumKeys(d, /^dostorage\..*\.rowsWritten$/);
    const perPoll = (v) => v / Math.max(1, lines.length);
    const extra = Math.max(0, prodPolls - runPolls);
    const meters = [
      ["Workers requests as run (fetch + queue batches)", perBox(workerRequests), extra * pollShare.workerRequests],
      // Production's queue traffic is sparse (a box's polls hours apart), so a batch may hold one message: the bound.
      [
        "Workers requests, bound (fetch + 1 per queue message)",
        perBox((d["worker.fetch"] ?? 0) + queueRead),
        extra * pollShare.queueRead,
      ],
      ["Durable Object requests (calls + alarms)", perBox(doRequests), extra * pollShare.doRequests],
      ["Durable Object wall time, caller's view (s)", perBox(doWallMs) / 1000, null],
      ["Durable Object storage rows read (bound)", perBox(doRowsRead), extra * perPoll(doRowsRead)],
      ["Durable Object storage rows written (bound)", perBox(doRowsWritten), extra * perPoll(doRowsWritten)],
      ["D1 rows read", perBox(rowsRead), extra * pollShare.rowsRead],
      ["D1 rows written", perBox(rowsWritten), extra * pollShare.rowsWritten],
      ["Queue messages written", perBox(queueSent), extra * pollShare.queueSent],
      ["Queue messages read (deliveries)", perBox(queueRead), extra * pollShare.queueRead],
      ["Outbound requests", perBox(outbound), 0],
      ["Server CPU, all wrangler processes (ms)", perBox(cpuUsed.serverMs ?? Number.NaN), null],
    ].map(([name, run, add]) => ({
      name,
      run,
      production: add === null ? null : run + add,
      perDay: add === null ? null : (run + add) / journeyDays,
    }));

    console.log("");
    console.log(
      `Run: ${boxesTracked} boxes in ${fmt(wallS, 0)} s, ${steady ? "steady state reached" : "NOT steady (timeout)"}; ` +
        `journeys ended ${final.finished}; notifications ${final.notifications}, delivered ${receiver.stats.requests}, ` +
        `undelivered ${final.undelivered}; server CPU ${fmt(cpuUsed.server ?? Number.NaN)} cores, other load ` +
        `${fmt(cpuUsed.other ?? Number.NaN)}`,
    );
    console.log("");
    console.log(`D1 growth per tracked box, by table with its indexes (${boxesTracked} boxes)`);
    printTable(
      ["table", "rows", "rows/box", "bytes/box", "share"],
      growth.map((r) => [
        r.table + (ARCHIVED.has(r.table) ? " *" : ""),
        r.rows ?? "",
        r.rows === null ? "" : fmt(r.rows / boxesTracked, 1),
        fmt(r.bytes / boxesTracked, 0),
        `${fmt((100 * r.bytes) / boxesTracked / d1PerBox, 1)} %`,
      ]),
    );
    console.log(
      `total ${fmt(d1PerBox, 0)} bytes/box; * archived by retention (issue 29 §2): ${fmt(archivedPerBox, 0)} bytes/box; ` +
        `per delivered notification (webhook_notifications + webhook_deliveries): ` +
        `${fmt(growth.filter((r) => r.table.startsWith("webhook_")).reduce((s, r) => s + r.bytes, 0) / Math.max(1, receiver.stats.requests), 0)} bytes`,
    );
    console.log("");
    console.log("Durable Object storage");
    printTable(
      ["class", "objects", "file + WAL bytes/object", "stored bytes/object (KV + SQL tables)"],
      [
        [
          "Tracker",
          tracker.objects,
          fmt(tracker.fileBytes / Math.max(1, tracker.objects), 0),
          fmt((tracker.kvBytes + tracker.sqlBytes) / Math.max(1, tracker.objects), 0),
        ],
        [
          "RateLimiter",
          limiter.objects,
          fmt(limiter.fileBytes / Math.max(1, limiter.objects), 0),
          fmt((limiter.kvBytes + limiter.sqlBytes) / Math.max(1, limiter.objects), 0),
        ],
      ],
    );
    console.log("");
    console.log(
      `Polls: ${lines.length} in the run (${fmt(runPolls, 1)}/box: ${changed.length} changed, ${unchanged.length} unchanged); ` +
        `production schedule of ${schedules.length} of the boxes: ${fmt(prodPolls, 1)} polls over ${fmt(journeyDays, 1)} days ` +
        `(${fmt(prodPolls / journeyDays, 2)} polls/box/day)`,
    );
    if (runPolls < 20) {
      console.log(
        `note: ${fmt(runPolls, 1)} polls per box: a box seen in few states skips the changes in between (ETA, ` +
          "availability, LFD), so notifications (and their bytes) are undercounted; --speed 2 polls a box ~60 times",
      );
    }
    console.log(
      `D1 per poll: unchanged ${fmt(mean(unchanged, "batches"))} batches, ${fmt(mean(unchanged, "statements"))} statements, ` +
        `${fmt(mean(unchanged, "rowsRead"), 1)} rows read, ${fmt(mean(unchanged, "rowsWritten"), 1)} written, ${fmt(mean(unchanged, "sqlMs"), 2)} ms SQL; ` +
        `changed ${fmt(mean(changed, "batches"))} batches, ${fmt(mean(changed, "statements"))} statements, ` +
        `${fmt(mean(changed, "rowsRead"), 1)} rows read, ${fmt(mean(changed, "rowsWritten"), 1)} written, ${fmt(mean(changed, "sqlMs"), 2)} ms SQL`,
    );
    console.log("");
    console.log("Meters per box (run: measured; production: + the unchanged polls production makes on top)");
    printTable(
      ["meter", "per box, run", "per box journey, production", "per box per day, production"],
      meters.map((r) => [
        r.name,
        fmt(r.run, 1),
        r.production === null ? "" : fmt(r.production, 1),
        r.perDay === null ? "" : fmt(r.perDay, 2),
      ]),
    );
    console.log("");
    console.log("Tally over the run (GET /__bench/capacity, end − start)");
    printTable(
      ["counter", "total", "per box"],
      Object.entries(d)
        .filter(([k, v]) => v !== 0 && !k.startsWith("d1heavy."))
        .map(([k, v]) => [k, fmt(v, 0), fmt(v / boxesTracked, 2)]),
    );
    const heavy = Object.entries(d)
      .filter(([k]) => k.startsWith("d1heavy.") && k.endsWith(".rowsRead"))
      .map(([k, v]) => ({ sql: k.slice(8, -9), rowsRead: v, statements: d[`${k.slice(0, -9)}.statements`] ?? 0 }))
      .sort((a, b) => b.rowsRead - a.rowsRead)
      .slice(0, 12);
    if (heavy.length > 0) {
      console.log("");
      console.log(`Statements that read ≥ 100 rows (of ${fmt(rowsRead, 0)} rows read in all)`);
      printTable(
        ["SQL (first 120 characters)", "statements", "rows read", "rows read/statement"],
        heavy.map((h) => [h.sql, h.statements, fmt(h.rowsRead, 0), fmt(h.rowsRead / Math.max(1, h.statements), 0)]),
      );
    }
    const out = writeResult("capacity", {
      bench: "capacity",
      finishedAt: new Date().toISOString(),
      source: sourceVersion(),
      machine: m,
      options: opts,
      steady,
      wallSeconds: wallS,
      cpu: cpuUsed,
      progress: final,
      receiver: receiver.stats,
      d1: { before, after, growth, perBox: d1PerBox, archivedPerBox },
      durableObjects: { tracker, limiter },
      polls: {
        run: lines.length,
        runPerBox: runPolls,
        changed: changed.length,
        unchanged: unchanged.length,
        productionPerBox: prodPolls,
        journeyDays,
        scheduleSample: schedules.length,
        perPoll: {
          unchanged: Object.fromEntries(
            ["batches", "statements", "rowsRead", "rowsWritten", "sqlMs", "unmetered"].map((f) => [
              f,
              mean(unchanged, f),
            ]),
          ),
          changed: Object.fromEntries(
            ["batches", "statements", "rowsRead", "rowsWritten", "sqlMs", "unmetered"].map((f) => [
              f,
              mean(changed, f),
            ]),
          ),
        },
        pollShare,
      },
      speedUp,
      meters,
      tally: d,
    });
    step(`results: ${relative(ROOT, out)}`);
    return 0;
  } finally {
    if (dev) await dev.stop();
    receiver.stop();
    if (!opts.keepState) {
      rmSync(persistDir, { recursive: true, force: true });
      rmSync(srcDir, { recursive: true, force: true });
    }
  }
}
