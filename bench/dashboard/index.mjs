// bench/dashboard: the dashboard's Containers page (src/dashboard/containers-page.tsx) against the same list over the
// REST API, on a local `wrangler dev` (workerd, local D1), issue 28 §Tests and figures.
//
// Seeds one account with N containers (bench/lib/seed.mjs; default 10 000, 2 per shipment; every third box gets a
// pickup LFD so the LFD sort has values both ways), a signed-in admin user and a live session in `web_sessions` (the
// token hashed with SHA-256, as src/sessions/session.ts `createSession` writes it), then for each view measures time to
// first byte (the response's headers received, Node's http client) of
//
//   GET /app/containers[?sort=…]                        the page: filter form, 50 rows with charges, paging
//   GET /v2/containers?page[size]=50[&sort=…]           the same list over the API (JSON:API, no include)
//
// alternating the two, --requests times each after a warm-up, and prints the medians and their ratio page ÷ API. The
// page reads the list through the same service plus its `shipment` include and the page's charges (a second D1
// round trip), and renders HTML. Before the load, it prints the D1 query plan (EXPLAIN QUERY PLAN on the persisted
// SQLite file) of each sort's page query, to show which orders walk an index and which sort the account's rows.
import { writeFileSync } from "node:fs";
import { request } from "node:http";
import { join, relative } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { pathToFileURL } from "node:url";
import { benchOptions } from "../lib/options.mjs";
import { fmt, machine, printTable, printTargets, sourceVersion, writeResult } from "../lib/report.mjs";
import {
  execStatements,
  generateTestKey,
  hashKey,
  isoSeconds,
  openForBulkLoad,
  seedAccount,
  uuidv7At,
} from "../lib/seed.mjs";
import { applyMigrations, d1SqliteFile, ROOT, startDev, wipePersistDir } from "../lib/wrangler.mjs";

export const description =
  "Dashboard: Containers page at 10 000 boxes, time to first byte ÷ the same list over the API";

export const usage = `bench dashboard options (or the environment variable in brackets):
  --containers N   containers seeded (BENCH_CONTAINERS, default 10000)
  --requests N     timed requests per view and side, alternated (BENCH_REQUESTS, default 40)
  --port P         port of the bench's wrangler dev on 127.0.0.1 (BENCH_PORT, default 8790)
  --keep-state     keep .wrangler/bench-dashboard afterwards (the API key and session cookie in bench-api-key and
                   bench-session-cookie there)
  --check          exit 1 when a target fails (BENCH_CHECK=1)`;

const ACCOUNT_ID = "00000000-0000-7000-8000-00000000da5b";
/** The page renders HTML and reads its charges besides the API's list: within 3 × the API's time to first byte. */
const TARGET_RATIO = 3;
const VIEWS = [
  { name: "newest first", page: "", api: "" },
  { name: "sort=pickup_lfd", page: "?sort=pickup_lfd", api: "&sort=pickup_lfd" },
  { name: "sort=-pod_eta_at", page: "?sort=-pod_eta_at", api: "&sort=-pod_eta_at" },
  { name: "status=on_ship&sort=scac", page: "?status=on_ship&sort=scac", api: "&filter[status]=on_ship&sort=scac" },
];
/** The page query of each sort as listPage sends it (src/containers/list-order.ts), for EXPLAIN QUERY PLAN. */
const PLANS = [
  ["newest first", "ORDER BY created_at DESC, id DESC"],
  ["sort=number", "ORDER BY number, id"],
  ["sort=scac", "ORDER BY (scac IS NULL), scac, id"],
  ["sort=pod_locode", "ORDER BY (pod_locode IS NULL), pod_locode, id"],
  ["sort=pickup_lfd", "ORDER BY (pickup_lfd IS NULL), pickup_lfd, id"],
  ["sort=-pickup_lfd", "ORDER BY (pickup_lfd IS NULL) DESC, pickup_lfd DESC, id DESC"],
  ["sort=updated_at", "ORDER BY updated_at, id"],
  [
    "sort=current_status",
    `ORDER BY (CASE "current_status" WHEN 'new' THEN 0 WHEN 'on_ship' THEN 1 WHEN 'grounded' THEN 2 WHEN 'available' THEN 3 WHEN 'not_available' THEN 4 WHEN 'awaiting_inland_transfer' THEN 5 WHEN 'on_rail' THEN 6 WHEN 'off_dock' THEN 7 WHEN 'picked_up' THEN 8 WHEN 'delivered' THEN 9 WHEN 'empty_returned' THEN 10 END), id`,
  ],
  ["sort=available_for_pickup", "ORDER BY (CASE available_for_pickup WHEN 1 THEN 0 WHEN 0 THEN 1 ELSE 2 END), id"],
  [
    "sort=pod_eta_at",
    "ORDER BY (SELECT coalesce(pod_eta_at, '~') FROM shipments WHERE shipments.id = containers.shipment_id), id",
  ],
];

function options(argv) {
  const { num, flag } = benchOptions(argv, {
    containers: { type: "string" },
    requests: { type: "string" },
    port: { type: "string" },
    "keep-state": { type: "boolean" },
    check: { type: "boolean" },
  });
  return {
    containers: Math.floor(num("containers", "BENCH_CONTAINERS", 10_000, 100)),
    requests: Math.floor(num("requests", "BENCH_REQUESTS", 40)),
    port: Math.floor(num("port", "BENCH_PORT", 8790)),
    keepState: flag("keep-state"),
    check: flag("check", "BENCH_CHECK"),
  };
}

const step = (text) => console.log(`· ${text}`);

/** Migrations, reference data, the account with its boxes, some LFDs, a user and a session; returns key and cookie. */
async function prepare(persistDir, count) {
  wipePersistDir(persistDir);
  await applyMigrations(persistDir, { cwd: ROOT });
  const { referenceSeedStatements } = await import(pathToFileURL(join(ROOT, "src", "reference", "seed.ts")).href);
  const key = generateTestKey();
  const token = generateTestKey()
    .replace(/[^A-Za-z0-9]/g, "")
    .padEnd(43, "x")
    .slice(0, 43);
  const db = openForBulkLoad(d1SqliteFile(persistDir));
  try {
    execStatements(db, referenceSeedStatements());
    seedAccount(db, { accountId: ACCOUNT_ID, key, containers: count });
    const now = Date.now();
    db.exec("BEGIN");
    // Every third box has an LFD (a day apart, some past), so the LFD sort has values and missing ones.
    db.prepare(
      `UPDATE containers SET pickup_lfd = strftime('%Y-%m-%dT07:59:59Z', 'now', ((rowid % 40) - 10) || ' days')
       WHERE account_id = ? AND rowid % 3 = 0`,
    ).run(ACCOUNT_ID);
    const userId = uuidv7At(now - 1000);
    db.prepare(
      "INSERT INTO users (id, account_id, email, name, role, created_at) VALUES (?, ?, 'bench@example.test', 'Bench', 'admin', ?)",
    ).run(userId, ACCOUNT_ID, isoSeconds(now));
    db.prepare(
      `INSERT INTO web_sessions (id, token_hash, user_id, account_id, created_at, last_seen_at, rotated_at, expires_at,
         user_agent, csrf_token) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'bench', ?)`,
    ).run(
      uuidv7At(now),
      hashKey(token),
      userId,
      ACCOUNT_ID,
      isoSeconds(now),
      isoSeconds(now),
      isoSeconds(now),
      isoSeconds(now + 7 * 86_400_000),
      "benchcsrf0000000000000000000000",
    );
    db.exec("COMMIT");
  } finally {
    db.close();
  }
  // For poking at a kept state (--keep-state) by hand or in a browser: the key and the session cookie.
  writeFileSync(join(persistDir, "bench-api-key"), `${key}\n`, { mode: 0o600 });
  writeFileSync(join(persistDir, "bench-session-cookie"), `__Host-session=${token}\n`, { mode: 0o600 });
  return { key, cookie: `__Host-session=${token}` };
}

/** EXPLAIN QUERY PLAN of each order's page query over the account's boxes, one line per step. */
function queryPlans(file) {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    return PLANS.map(([name, order]) => {
      const rows = db
        .prepare(`EXPLAIN QUERY PLAN SELECT id FROM containers WHERE account_id = ? ${order} LIMIT 50`)
        .all(ACCOUNT_ID);
      return [name, rows.map((r) => r.detail).join(" | ")];
    });
  } finally {
    db.close();
  }
}

/** Milliseconds from sending `path` to its response headers (time to first byte), the body drained. */
function ttfb(baseUrl, path, headers) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const req = request(`${baseUrl}${path}`, { headers }, (res) => {
      const ms = performance.now() - t0;
      const chunks = [];
      res.on("data", (c) => chunks.push(c));
      res.on("end", () => resolve({ ms, status: res.statusCode, body: Buffer.concat(chunks).toString("utf8") }));
    });
    req.on("error", reject);
    req.end();
  });
}

const median = (list) => {
  const s = [...list].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

export async function run(argv) {
  const opts = options(argv);
  const persistDir = join(ROOT, ".wrangler", "bench-dashboard");
  console.log(`bench dashboard: ${opts.containers} containers, ${opts.requests} requests per view and side`);
  let t0 = performance.now();
  const { key, cookie } = await prepare(persistDir, opts.containers);
  step(`seeded ${relative(ROOT, persistDir)} (${((performance.now() - t0) / 1000).toFixed(1)} s)`);
  const plans = queryPlans(d1SqliteFile(persistDir));
  console.log("");
  printTable(["order", "EXPLAIN QUERY PLAN of the page query"], plans);
  t0 = performance.now();
  const dev = await startDev({
    cwd: ROOT,
    persistDir,
    port: opts.port,
    vars: { RATE_LIMIT_DEFAULT: "1000000000" },
    logFile: join(ROOT, "bench", "results", "wrangler-dashboard.log"),
  });
  const rows = [];
  const targets = [];
  const results = [];
  try {
    step(`wrangler dev ready on ${dev.baseUrl} (${((performance.now() - t0) / 1000).toFixed(1)} s)`);
    const pageHeaders = { cookie };
    const apiHeaders = { authorization: `Token ${key}` };
    for (const view of VIEWS) {
      const pagePath = `/app/containers${view.page}`;
      const apiPath = `/v2/containers?page[size]=50${view.api}`;
      const first = await ttfb(dev.baseUrl, pagePath, pageHeaders);
      const api = await ttfb(dev.baseUrl, apiPath, apiHeaders);
      const pageRows = (first.body.match(/<tr data-id=/g) ?? []).length;
      const apiRows = api.status === 200 ? JSON.parse(api.body).data.length : 0;
      if (first.status !== 200 || api.status !== 200 || pageRows !== 50 || apiRows !== 50) {
        throw new Error(
          `${view.name}: page ${first.status} with ${pageRows} rows, API ${api.status} with ${apiRows} rows (expected 200 and 50): ${first.body.slice(0, 300)}`,
        );
      }
      for (let i = 0; i < 5; i++) {
        await ttfb(dev.baseUrl, pagePath, pageHeaders);
        await ttfb(dev.baseUrl, apiPath, apiHeaders);
      }
      const pageMs = [];
      const apiMs = [];
      for (let i = 0; i < opts.requests; i++) {
        pageMs.push((await ttfb(dev.baseUrl, pagePath, pageHeaders)).ms);
        apiMs.push((await ttfb(dev.baseUrl, apiPath, apiHeaders)).ms);
      }
      const ratio = median(pageMs) / median(apiMs);
      rows.push([view.name, fmt(median(pageMs), 1), fmt(median(apiMs), 1), fmt(ratio)]);
      results.push({ view: view.name, pageMs, apiMs, pageMedian: median(pageMs), apiMedian: median(apiMs), ratio });
      targets.push({ name: `${view.name}: page TTFB ÷ API TTFB`, value: ratio, op: "≤", threshold: TARGET_RATIO });
    }
  } finally {
    await dev.stop();
    if (!opts.keepState) wipePersistDir(persistDir);
  }
  console.log("");
  printTable(["view (50 rows)", "page TTFB p50 ms", "API TTFB p50 ms", "page ÷ API"], rows);
  const ok = printTargets(targets);
  const file = writeResult("dashboard", {
    machine: machine(),
    source: sourceVersion(),
    containers: opts.containers,
    requests: opts.requests,
    plans,
    results,
  });
  console.log(`\nresults: ${relative(ROOT, file)}`);
  return opts.check && !ok ? 1 : 0;
}
