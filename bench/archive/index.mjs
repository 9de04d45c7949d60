// bench/archive: the retention archive (issue 29 §2, src/archive/) against a local `wrangler dev` (workerd, local D1
// and R2), end to end:
//
// 1. Seeds N boxes (one account, N/2 shipments) with R raw events each, shaped like the simulator's rows, and two
//    webhook notifications per box (the catalog's `container.transport.vessel_arrived` example body, 5.9 KB) with two
//    delivery attempts each. The shipments of the first half stopped tracking 200 days ago and their notifications
//    finished then; the second half is live (tracked; notifications finished an hour ago), the same sizes.
// 2. Measures bytes per row in D1 (dbstat: table and its indexes) for raw_events, webhook_notifications and
//    webhook_deliveries, with wrangler stopped.
// 3. Starts wrangler dev with `--test-scheduled`, reads the bodies of an archived-to-be box (its raw events, the
//    container) and notification, runs the cron (`/__scheduled`) until nothing more moves, reads them again, RESTARTS
//    wrangler dev and reads them a third time: all three must be byte-identical.
// 4. Measures the manifest (archive_objects, archived_raw_events, archived_rows, with indexes) per archived row and the
//    R2 bytes per row.
// 5. Latency, interleaved in one run: each round reads an archived box's raw events, a live box's, an archived
//    notification and a live one (sequential requests, one connection), and reports medians and the archived/live
//    ratios.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { benchOptions } from "../lib/options.mjs";
import { fmt, machine, printTable, sourceVersion, writeResult } from "../lib/report.mjs";
import { generateTestKey, isoSeconds, openForBulkLoad, seedAccount, uuidv7At } from "../lib/seed.mjs";
import { applyMigrations, d1SqliteFile, ROOT, snapshotProject, startDev, wipePersistDir } from "../lib/wrangler.mjs";

export const description =
  "Retention: raw events and finished notifications to R2 (bytes per row freed, manifest cost, byte-identical reads across a restart, archived vs live read latency)";

export const usage = `bench archive options (or the environment variable in brackets):
  --boxes N      boxes seeded, half archived (BENCH_ARCHIVE_BOXES, default 400)
  --raws R       raw events per box (BENCH_ARCHIVE_RAWS, default 40)
  --rounds K     latency rounds, each reading the four resources --requests times (BENCH_ROUNDS, default 5)
  --requests M   requests per resource per round (BENCH_REQUESTS, default 20)
  --rows-per-run ARCHIVE_ROWS_PER_RUN of the run, also the most rows one object holds, so what a point read of an
                 archived resource fetches and inflates (BENCH_ARCHIVE_ROWS_PER_RUN, default 500, the deployed default)
  --port P       port of the bench's wrangler dev on 127.0.0.1 (BENCH_PORT, default 8796)`;

const SRC_DIR = join(ROOT, ".wrangler", "bench-archive-src");
const STATE_DIR = join(ROOT, ".wrangler", "bench-archive-state");

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? Number.NaN : s[Math.floor(s.length / 2)];
}

/** Bytes of `tables` (the tables and all their indexes) in the SQLite file, from dbstat. */
function bytesOf(db, tables) {
  const list = tables.map((t) => `'${t}'`).join(",");
  const row = db
    .prepare(
      `SELECT SUM(pgsize) AS bytes FROM dbstat WHERE name IN (${list})
         OR name IN (SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name IN (${list}))`,
    )
    .get();
  return Number(row.bytes ?? 0);
}

/** Per-row bytes of one table: its pages and its indexes' pages over its row count. */
function perRow(db, table) {
  const rows = Number(db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get().n);
  return { rows, bytes: bytesOf(db, [table]), perRow: rows ? bytesOf(db, [table]) / rows : Number.NaN };
}

function seed(file, { boxes, raws }) {
  const db = openForBulkLoad(file);
  const accountId = uuidv7At(Date.now() - 400 * 86_400_000);
  const key = generateTestKey();
  seedAccount(db, { accountId, key, containers: boxes });
  const now = Date.now();
  const stopped = isoSeconds(now - 200 * 86_400_000);
  const recent = isoSeconds(now - 3_600_000);
  const containers = db.prepare("SELECT id, shipment_id FROM containers ORDER BY id").all();
  const half = Math.floor(containers.length / 2);
  const webhookId = uuidv7At(now - 300 * 86_400_000);
  const template = JSON.parse(readFileSync(join(ROOT, "bench", "archive", "notification.json"), "utf8"));
  db.exec("BEGIN");
  db.prepare(
    `INSERT INTO webhooks (id, account_id, url, active, events, headers, secret, created_at, updated_at)
     VALUES (?, ?, 'https://hooks.example.com/in', 1, '["container.transport.vessel_arrived"]', '[]', 'whsec_x', ?, ?)`,
  ).run(webhookId, accountId, stopped, stopped);
  const stopShipment = db.prepare(
    "UPDATE shipments SET line_tracking_stopped_at = ?, line_tracking_stopped_reason = 'all_containers_terminated' WHERE id = ?",
  );
  const insertRaw = db.prepare(
    `INSERT INTO raw_events (id, account_id, container_id, "index", event, original_event, timestamp, estimated, actual_on,
       estimated_on, location, location_locode, vessel_name, vessel_imo, voyage_number, timezone, data_source, payload,
       created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'shipping_line', ?, ?)`,
  );
  const insertNotification = db.prepare(
    `INSERT INTO webhook_notifications (id, account_id, webhook_id, event, reference_object_type, reference_object_id,
       payload, delivery_status, attempts, next_attempt_at, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, 'succeeded', 2, NULL, ?, ?)`,
  );
  const insertAttempt = db.prepare(
    `INSERT INTO webhook_deliveries (id, notification_id, attempt, status_code, latency_ms, error, created_at, seq)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const EVENTS = ["empty_out", "full_in", "vessel_loaded", "vessel_departed", "vessel_arrived", "vessel_discharged"];
  const sample = {};
  let t = now - 300 * 86_400_000;
  containers.forEach((c, i) => {
    const archived = i < half;
    if (archived) stopShipment.run(stopped, c.shipment_id);
    const rawIds = [];
    for (let r = 0; r < raws; r++) {
      t += 1000;
      const id = uuidv7At(t);
      rawIds.push(id);
      const event = EVENTS[r % EVENTS.length];
      const at = isoSeconds(t);
      const estimated = r % 4 === 3 ? 1 : 0;
      const atSea = event.startsWith("vessel");
      insertRaw.run(
        id,
        accountId,
        c.id,
        r,
        event,
        `${event.replaceAll("_", " ")} (carrier wording)`,
        at,
        estimated,
        estimated ? null : at.slice(0, 10),
        estimated ? at.slice(0, 10) : null,
        "Malmo",
        "SEMMA",
        atSea ? "BENCH EXPRESS" : null,
        atSea ? "9000001" : null,
        atSea ? "001E" : null,
        "Europe/Stockholm",
        JSON.stringify({
          source: "simulator",
          journey: `sim:MAEU:${i}`,
          container: `BNCU${i}`,
          event,
          estimated: !!estimated,
          timestamp: at,
        }),
        isoSeconds(t + 120_000),
      );
    }
    const notificationIds = [];
    for (let n = 0; n < 2; n++) {
      t += 1000;
      const id = uuidv7At(t);
      notificationIds.push(id);
      const finished = archived ? stopped : recent;
      insertNotification.run(
        id,
        accountId,
        webhookId,
        template.event,
        template.reference_object_type,
        template.reference_object_id,
        template.payload.replaceAll("{{ID}}", id),
        isoSeconds(t),
        finished,
      );
      insertAttempt.run(uuidv7At(t + 1), id, 1, 500, 120, "HTTP 500", finished, 1);
      insertAttempt.run(uuidv7At(t + 2), id, 2, 204, 85, null, finished, 2);
    }
    if (i === 0) sample.archived = { containerId: c.id, notificationId: notificationIds[0], rawIds };
    if (i === half) sample.live = { containerId: c.id, notificationId: notificationIds[0], rawIds };
  });
  db.exec("COMMIT");
  const before = {
    raw_events: perRow(db, "raw_events"),
    webhook_notifications: perRow(db, "webhook_notifications"),
    webhook_deliveries: perRow(db, "webhook_deliveries"),
  };
  db.close();
  return { accountId, key, sample, before };
}

async function read(baseUrl, key, path) {
  const res = await fetch(`${baseUrl}/v2${path}`, { headers: { Authorization: `Token ${key}` } });
  return `${res.status} ${await res.text()}`;
}

async function readAll(baseUrl, key, sample) {
  const paths = [
    `/containers/${sample.containerId}/raw_events`,
    `/containers/${sample.containerId}`,
    `/webhook_notifications/${sample.notificationId}?include=webhook_notification_logs`,
  ];
  return Promise.all(paths.map((p) => read(baseUrl, key, p)));
}

export async function run(argv) {
  const { num } = benchOptions(argv, {
    boxes: { type: "string" },
    raws: { type: "string" },
    rounds: { type: "string" },
    requests: { type: "string" },
    port: { type: "string" },
    "rows-per-run": { type: "string" },
  });
  const boxes = num("boxes", "BENCH_ARCHIVE_BOXES", 400, 2);
  const raws = num("raws", "BENCH_ARCHIVE_RAWS", 40);
  const rounds = num("rounds", "BENCH_ROUNDS", 5);
  const requests = num("requests", "BENCH_REQUESTS", 20);
  const port = num("port", "BENCH_PORT", 8796);
  const rowsPerRun = num("rows-per-run", "BENCH_ARCHIVE_ROWS_PER_RUN", 500);

  snapshotProject(SRC_DIR);
  wipePersistDir(STATE_DIR);
  await applyMigrations(STATE_DIR, { cwd: SRC_DIR });
  const file = d1SqliteFile(STATE_DIR);
  console.log(`seeding ${boxes} boxes × ${raws} raw events, 2 notifications × 2 attempts each …`);
  const { key, sample, before } = seed(file, { boxes, raws });

  const vars = {
    RATE_LIMIT_DEFAULT: "1000000000",
    ARCHIVE_ROWS_PER_RUN: String(rowsPerRun),
  };
  const logFile = join(ROOT, "bench", "results", "archive-wrangler.log");
  let dev = await startDev({ cwd: SRC_DIR, persistDir: STATE_DIR, port, vars, logFile, testScheduled: true });
  let bodiesBefore;
  let bodiesAfter;
  let bodiesRestarted;
  const runs = [];
  try {
    bodiesBefore = await readAll(dev.baseUrl, key, sample.archived);
    const liveBefore = await readAll(dev.baseUrl, key, sample.live);
    // The cron's handler runs in the background (waitUntil): call it until the stopped half is gone from D1.
    for (let i = 0; i < 200; i++) {
      const t0 = performance.now();
      const res = await fetch(`${dev.baseUrl}/__scheduled?cron=*+*+*+*+*`);
      await res.text();
      await new Promise((r) => setTimeout(r, 500));
      runs.push(performance.now() - t0);
      // What is still to move (read from the SQLite file wrangler keeps open: a reader beside the writer is safe).
      const check = spawnSync(
        "sqlite3",
        [
          file,
          `SELECT (SELECT COUNT(*) FROM raw_events r JOIN containers c ON c.id = r.container_id
                   JOIN shipments s ON s.id = c.shipment_id WHERE s.line_tracking_stopped_at IS NOT NULL)
                + (SELECT COUNT(*) FROM webhook_notifications WHERE updated_at < '${isoSeconds(Date.now() - 100 * 86_400_000)}')`,
        ],
        { encoding: "utf8" },
      );
      if (check.status !== 0) throw new Error(`sqlite3: ${check.stderr}`);
      if (Number(check.stdout.trim()) === 0) break;
    }
    bodiesAfter = await readAll(dev.baseUrl, key, sample.archived);
    const liveAfter = await readAll(dev.baseUrl, key, sample.live);
    if (JSON.stringify(liveAfter) !== JSON.stringify(liveBefore)) throw new Error("the live box's bodies changed");
    await dev.stop();
    dev = await startDev({ cwd: SRC_DIR, persistDir: STATE_DIR, port, vars, logFile, testScheduled: true });
    bodiesRestarted = await readAll(dev.baseUrl, key, sample.archived);

    const timing = { rawArchived: [], rawLive: [], notificationArchived: [], notificationLive: [], health: [] };
    const one = async (path, into, withKey = true) => {
      const t0 = performance.now();
      const res = await fetch(`${dev.baseUrl}${path}`, withKey ? { headers: { Authorization: `Token ${key}` } } : {});
      await res.arrayBuffer();
      if (!res.ok) throw new Error(`${path}: ${res.status}`);
      into.push(performance.now() - t0);
    };
    const roundMedians = [];
    for (let r = 0; r < rounds; r++) {
      const m = { rawArchived: [], rawLive: [], notificationArchived: [], notificationLive: [], health: [] };
      for (let i = 0; i < requests; i++) {
        await one("/health", m.health, false);
        await one(`/v2/containers/${sample.archived.containerId}/raw_events`, m.rawArchived);
        await one(`/v2/containers/${sample.live.containerId}/raw_events`, m.rawLive);
        await one(
          `/v2/webhook_notifications/${sample.archived.notificationId}?include=webhook_notification_logs`,
          m.notificationArchived,
        );
        await one(
          `/v2/webhook_notifications/${sample.live.notificationId}?include=webhook_notification_logs`,
          m.notificationLive,
        );
      }
      for (const k of Object.keys(timing)) timing[k].push(...m[k]);
      roundMedians.push(Object.fromEntries(Object.entries(m).map(([k, v]) => [k, median(v)])));
    }
    await dev.stop();
    dev = null;

    const db = openForBulkLoad(file);
    const archivedNotifications = Number(db.prepare("SELECT COUNT(*) AS n FROM archived_rows").get().n);
    const archivedRaw = Number(
      db.prepare("SELECT COALESCE(SUM(json_array_length(events)), 0) AS n FROM archived_raw_events").get().n,
    );
    const archivedRows = archivedNotifications + archivedRaw;
    const manifest = {
      rawEventsIndexPerRow: bytesOf(db, ["archived_raw_events"]) / archivedRaw,
      notificationIndexPerRow: bytesOf(db, ["archived_rows"]) / archivedNotifications,
      objectsPerArchivedRow: bytesOf(db, ["archive_objects"]) / archivedRows,
    };
    const objects = db
      .prepare(
        "SELECT kind, COUNT(*) AS objects, SUM(rows) AS rows, SUM(bytes) AS bytes FROM archive_objects GROUP BY kind",
      )
      .all();
    const manifestBytes = bytesOf(db, ["archive_objects", "archived_rows", "archived_raw_events"]);
    const after = {
      raw_events: perRow(db, "raw_events"),
      webhook_notifications: perRow(db, "webhook_notifications"),
      webhook_deliveries: perRow(db, "webhook_deliveries"),
    };
    db.close();

    const identical =
      JSON.stringify(bodiesBefore) === JSON.stringify(bodiesAfter) &&
      JSON.stringify(bodiesAfter) === JSON.stringify(bodiesRestarted);
    console.log(`\nbodies before archiving = after = after a wrangler dev restart: ${identical}`);
    printTable(
      ["table", "rows before", "D1 bytes/row (table+indexes)", "rows after"],
      Object.keys(before).map((t) => [t, before[t].rows, fmt(before[t].perRow, 0), after[t].rows]),
    );
    printTable(
      ["R2 kind", "objects", "rows", "gz bytes/row"],
      objects.map((o) => [o.kind, o.objects, o.rows, fmt(o.bytes / o.rows, 1)]),
    );
    const objectCount = objects.reduce((n, o) => n + o.objects, 0);
    console.log(
      `manifest bytes (dbstat, with indexes): ${fmt(manifest.rawEventsIndexPerRow, 1)} per archived raw event ` +
        `(archived_raw_events), ${fmt(manifest.notificationIndexPerRow, 1)} per archived notification (archived_rows), ` +
        `${fmt(manifest.objectsPerArchivedRow, 1)} per archived row for archive_objects (${archivedRows} rows, ${objectCount} objects)`,
    );
    const med = (k) => median(timing[k]);
    printTable(
      ["read (median ms)", "archived", "live", "archived/live"],
      [
        [
          "GET /containers/{id}/raw_events",
          fmt(med("rawArchived")),
          fmt(med("rawLive")),
          fmt(med("rawArchived") / med("rawLive")),
        ],
        [
          "GET /webhook_notifications/{id}",
          fmt(med("notificationArchived")),
          fmt(med("notificationLive")),
          fmt(med("notificationArchived") / med("notificationLive")),
        ],
        ["GET /health (baseline)", fmt(med("health")), "", ""],
      ],
    );
    writeResult("archive", {
      machine: machine(),
      source: sourceVersion(),
      boxes,
      raws,
      before,
      after,
      objects,
      manifestBytes,
      manifest,
      archivedRows,
      identical,
      timing: Object.fromEntries(Object.keys(timing).map((k) => [k, med(k)])),
      roundMedians,
    });
    return identical ? 0 : 1;
  } finally {
    if (dev) await dev.stop();
  }
}
