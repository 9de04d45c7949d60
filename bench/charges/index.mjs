// bench/charges: what GET /v2/containers/{id}/charges and GET /v2/charges cost (issue 27 §1), in-process on a
// node:sqlite database built from the project's migrations, so the figures are not swayed by wrangler dev and the
// other benches' load.
//
// Seeds the bench account (bench/lib/seed.mjs) with N containers at USLAX, every one discharged 0-20 days before now,
// a fifth with a not-available span, a tenth picked up, and two tariffs (port and port+SCAC). Then, alternating,
// per round:
//   list     the container list's first page of 30 (its SQL: the page and its linkage, and `serializeContainer`),
//   charges  the charges of the same 30 boxes (their charge columns, availability events, port and the tariffs, then
//            `boxChargeFactsOf`, `chargesOf` and `serializeContainerCharges` with the ledger, JSON-encoded),
//   portfolio the whole portfolio at N and at the large size (the one read of src/charges/service.ts and
//            `portfolioOf`, sorted by amount, first page of 30 encoded).
// Prints p50/p99 and the ratios charges ÷ list and portfolio(large) ÷ portfolio(N).
import { mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { benchOptions } from "../lib/options.mjs";
import { fmt, machine, printTable, sourceVersion, writeResult } from "../lib/report.mjs";
import { execStatements, generateTestKey, isoSeconds, openForBulkLoad, seedAccount, uuidv7At } from "../lib/seed.mjs";
import { ROOT } from "../lib/wrangler.mjs";

export const description =
  "Charges: 30 boxes' charges as a ratio of the 30-container list page; the portfolio at 10 000 and 100 000 boxes (in-process)";

export const usage = `bench charges options (or the environment variable in brackets):
  --containers N        small database (BENCH_CONTAINERS, default 10000)
  --large-containers N  large database (BENCH_LARGE_CONTAINERS, default 100000)
  --rounds N            timed rounds (BENCH_ROUNDS, default 100; the large portfolio runs a tenth as many)`;

const ACCOUNT = "00000000-0000-7000-8000-00000000c401";
const PAGE = 30;
const DAY = 86_400_000;

function options(argv) {
  const { num } = benchOptions(argv, {
    containers: { type: "string" },
    "large-containers": { type: "string" },
    rounds: { type: "string" },
  });
  return {
    containers: num("containers", "BENCH_CONTAINERS", 10_000),
    largeContainers: num("large-containers", "BENCH_LARGE_CONTAINERS", 100_000),
    rounds: num("rounds", "BENCH_ROUNDS", 100),
  };
}

async function loadModules() {
  const esbuild = await import("esbuild");
  const dir = join(ROOT, ".wrangler", "bench-charges");
  mkdirSync(dir, { recursive: true });
  const outfile = join(dir, "charges-bundle.mjs");
  await esbuild.build({
    entryPoints: [join(ROOT, "bench", "charges", "entry.ts")],
    bundle: true,
    platform: "node",
    format: "esm",
    outfile,
    logLevel: "warning",
    banner: { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" },
  });
  return import(pathToFileURL(outfile).href);
}

function migrate(db) {
  const dir = join(ROOT, "migrations");
  for (const file of readdirSync(dir)
    .filter((f) => f.endsWith(".sql"))
    .sort()) {
    for (const statement of readFileSync(join(dir, file), "utf8").split("--> statement-breakpoint")) {
      if (statement.trim()) db.exec(statement);
    }
  }
}

async function build(file, containers) {
  const t0 = performance.now();
  rmSync(file, { force: true });
  const db = openForBulkLoad(file);
  migrate(db);
  const { referenceSeedStatements } = await import(pathToFileURL(join(ROOT, "src", "reference", "seed.ts")).href);
  execStatements(db, referenceSeedStatements());
  seedAccount(db, { accountId: ACCOUNT, key: generateTestKey(), containers });
  const now = Date.now();
  const ids = db.prepare("SELECT id, shipment_id FROM containers WHERE account_id = ? ORDER BY id").all(ACCOUNT);
  const update = db.prepare(
    `UPDATE containers SET pod_discharged_at = ?, availability_known = 1, available_for_pickup = 1, pod_full_out_at = ?
     WHERE id = ?`,
  );
  const event = db.prepare(
    `INSERT INTO transport_events (id, account_id, container_id, shipment_id, event, timestamp, data_source, created_at)
     VALUES (?, ?, ?, ?, ?, ?, 'terminal', ?)`,
  );
  db.exec("BEGIN");
  ids.forEach(({ id, shipment_id }, i) => {
    const discharged = now - ((i * 7919) % 20) * DAY - 3_600_000;
    const fullOut = i % 10 === 0 ? isoSeconds(discharged + 6 * DAY) : null;
    update.run(isoSeconds(discharged), fullOut, id);
    const at = isoSeconds(discharged + 3_600_000);
    event.run(uuidv7At(discharged), ACCOUNT, id, shipment_id, "container.transport.available", at, at);
    if (i % 5 === 0) {
      const off = isoSeconds(discharged + 2 * DAY);
      const on = isoSeconds(discharged + 3 * DAY);
      event.run(uuidv7At(discharged + 1), ACCOUNT, id, shipment_id, "container.transport.not_available", off, off);
      event.run(uuidv7At(discharged + 2), ACCOUNT, id, shipment_id, "container.transport.available", on, on);
    }
  });
  const tariff = db.prepare(
    `INSERT INTO tariffs (id, account_id, name, kind, scac, port_code, free_days, free_days_basis, clock_starts_at, tiers,
       created_at, updated_at) VALUES (?, ?, ?, 'demurrage', ?, 'USLAX', ?, ?, 'discharged', ?, ?, ?)`,
  );
  const tiers = JSON.stringify([
    { from_day: 1, to_day: 4, rate_per_day: "150.00", currency_code: "USD" },
    { from_day: 5, to_day: null, rate_per_day: "300.00", currency_code: "USD" },
  ]);
  const created = isoSeconds(now - DAY);
  tariff.run(uuidv7At(now - DAY), ACCOUNT, "LA", null, 4, "calendar", tiers, created, created);
  tariff.run(uuidv7At(now - DAY + 1), ACCOUNT, "LA Maersk", "MAEU", 5, "business", tiers, created, created);
  db.exec("COMMIT");
  console.log(`· ${file}: ${containers} containers (${((performance.now() - t0) / 1000).toFixed(1)} s)`);
  return db;
}

const camel = (s) => s.replace(/_([a-z])/g, (_, c) => c.toUpperCase());
const CHARGE_COLUMNS = [
  "id",
  "number",
  "scac",
  "pod_locode",
  "pod_terminal_id",
  "equipment_length",
  "equipment_type",
  "pod_timezone",
  "pod_discharged_at",
  "availability_known",
  "available_for_pickup",
  "holds_at_pod_terminal",
  "terminal_checked_at",
  "pod_full_out_at",
  "empty_terminated_at",
  "pickup_lfd_terminal",
];

/** A row as drizzle maps it: camelCase, booleans and JSON columns decoded. */
function mapRow(row) {
  const out = {};
  for (const [k, v] of Object.entries(row)) out[camel(k)] = v;
  for (const k of ["availabilityKnown", "availableForPickup"])
    if (out[k] !== null && out[k] !== undefined) out[k] = !!out[k];
  for (const k of ["holdsAtPodTerminal", "feesAtPodTerminal", "refNumbers", "tiers"]) {
    if (typeof out[k] === "string") out[k] = JSON.parse(out[k]);
  }
  return out;
}

function statements(db) {
  const cols = CHARGE_COLUMNS.join(", ");
  return {
    listPage: db.prepare("SELECT * FROM containers WHERE account_id = ? ORDER BY created_at DESC, id DESC LIMIT 30"),
    linkageEvents: db.prepare(
      `SELECT id, container_id FROM transport_events WHERE container_id IN (${Array(PAGE).fill("?").join(",")})
       ORDER BY container_id, timestamp, id`,
    ),
    linkageRaws: db.prepare(
      `SELECT id, container_id FROM raw_events WHERE container_id IN (${Array(PAGE).fill("?").join(",")})
       ORDER BY container_id, "index"`,
    ),
    pageCharges: db.prepare(
      `SELECT ${cols} FROM containers WHERE account_id = ? AND id IN (${Array(PAGE).fill("?").join(",")})`,
    ),
    pageChanges: db.prepare(
      `SELECT container_id, event, timestamp FROM transport_events WHERE container_id IN (${Array(PAGE).fill("?").join(",")})
       AND event IN ('container.transport.available', 'container.transport.not_available') AND invalidated_at IS NULL`,
    ),
    allCharges: db.prepare(`SELECT ${cols} FROM containers WHERE account_id = ?`),
    allChanges: db.prepare(
      `SELECT container_id, event, timestamp FROM transport_events WHERE container_id IN
       (SELECT id FROM containers WHERE account_id = ?)
       AND event IN ('container.transport.available', 'container.transport.not_available') AND invalidated_at IS NULL`,
    ),
    pagePorts: db.prepare(
      "SELECT code, country_code, state_abbr FROM ports WHERE code IN (SELECT DISTINCT pod_locode FROM containers WHERE id IN (" +
        Array(PAGE).fill("?").join(",") +
        "))",
    ),
    ports: db.prepare(
      "SELECT code, country_code, state_abbr FROM ports WHERE code IN (SELECT DISTINCT pod_locode FROM containers WHERE account_id = ?)",
    ),
    tariffs: db.prepare("SELECT * FROM tariffs WHERE account_id = ?"),
  };
}

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
const stats = (times) => {
  const sorted = [...times].sort((a, b) => a - b);
  return { p50: quantile(sorted, 0.5), p99: quantile(sorted, 0.99), n: sorted.length };
};

export async function run(argv) {
  const opts = options(argv);
  const m = await loadModules();
  const dir = join(ROOT, ".wrangler", "bench-charges");
  console.log(`bench charges: ${opts.containers} and ${opts.largeContainers} containers, ${opts.rounds} rounds`);
  const small = statements(await build(join(dir, "small.sqlite"), opts.containers));
  const large = statements(await build(join(dir, "large.sqlite"), opts.largeContainers));
  const asOf = { nowMs: Date.now(), date: null };
  const query = { status: "attention", withinDays: 3, sort: "-amount" };

  const listPage = (s) => {
    const rows = s.listPage.all(ACCOUNT).map(mapRow);
    const ids = rows.map((r) => r.id);
    const events = s.linkageEvents.all(...ids);
    const raws = s.linkageRaws.all(...ids);
    for (const r of rows) {
      r.transportEventIds = events.filter((e) => e.container_id === r.id).map((e) => e.id);
      r.rawEventIds = raws.filter((e) => e.container_id === r.id).map((e) => e.id);
    }
    return JSON.stringify({ data: rows.map(m.serializeContainer) }).length;
  };
  const pageIds = small.listPage.all(ACCOUNT).map((r) => r.id);
  const chargesPage = (s) => {
    const rows = s.pageCharges.all(ACCOUNT, ...pageIds).map(mapRow);
    const changes = s.pageChanges.all(...pageIds).map(mapRow);
    const ports = s.pagePorts.all(...pageIds).map(mapRow);
    const tariffs = s.tariffs.all(ACCOUNT).map(mapRow).map(m.tariffOfRow);
    const data = rows.map((row) => {
      const facts = m.boxChargeFactsOf(
        row,
        changes.filter((c) => c.containerId === row.id),
        ports[0] ?? null,
      );
      const charges = m.chargesOf(facts, tariffs, asOf.nowMs);
      return m.serializeContainerCharges({ containerId: row.id, containerNumber: row.number, asOfDate: "", charges });
    });
    return JSON.stringify({ data }).length;
  };
  const portfolio = (s) => {
    const rows = s.allCharges.all(ACCOUNT).map(mapRow);
    const changes = s.allChanges.all(ACCOUNT).map(mapRow);
    const ports = s.ports.all(ACCOUNT).map(mapRow);
    const tariffs = s.tariffs.all(ACCOUNT).map(mapRow).map(m.tariffOfRow);
    const result = m.portfolioOf(rows, changes, ports, tariffs, asOf, query);
    return {
      selected: result.rows.length,
      bytes: JSON.stringify(result.rows.slice(0, PAGE).map((r) => r.containerId)).length,
    };
  };

  // Warm up (JIT, holiday calendars, statement caches).
  for (let i = 0; i < 5; i++) {
    listPage(small);
    chargesPage(small);
  }
  const p = portfolio(small);
  portfolio(large);
  const times = { list: [], charges: [], portfolioSmall: [], portfolioLarge: [] };
  for (let r = 0; r < opts.rounds; r++) {
    let t0 = performance.now();
    listPage(small);
    times.list.push(performance.now() - t0);
    t0 = performance.now();
    chargesPage(small);
    times.charges.push(performance.now() - t0);
    if (r % 5 === 0) {
      t0 = performance.now();
      portfolio(small);
      times.portfolioSmall.push(performance.now() - t0);
    }
    if (r % 10 === 0) {
      t0 = performance.now();
      portfolio(large);
      times.portfolioLarge.push(performance.now() - t0);
    }
  }
  const s = Object.fromEntries(Object.entries(times).map(([k, v]) => [k, stats(v)]));
  console.log("");
  printTable(
    ["operation", "runs", "p50 ms", "p99 ms"],
    [
      [`container list page (${PAGE}, SQL + serialize)`, s.list.n, fmt(s.list.p50), fmt(s.list.p99)],
      [`charges of the same ${PAGE} boxes, with ledgers`, s.charges.n, fmt(s.charges.p50), fmt(s.charges.p99)],
      [
        `portfolio at ${opts.containers} boxes (${p.selected} selected)`,
        s.portfolioSmall.n,
        fmt(s.portfolioSmall.p50),
        fmt(s.portfolioSmall.p99),
      ],
      [
        `portfolio at ${opts.largeContainers} boxes`,
        s.portfolioLarge.n,
        fmt(s.portfolioLarge.p50),
        fmt(s.portfolioLarge.p99),
      ],
    ],
  );
  const ratios = {
    chargesOverList: s.charges.p50 / s.list.p50,
    portfolioLargeOverSmall: s.portfolioLarge.p50 / s.portfolioSmall.p50,
  };
  console.log("");
  console.log(`charges of ${PAGE} boxes ÷ list page (p50): ${fmt(ratios.chargesOverList)}`);
  console.log(`portfolio ${opts.largeContainers} ÷ ${opts.containers} (p50): ${fmt(ratios.portfolioLargeOverSmall)}`);
  const file = writeResult("charges", { machine: machine(), source: sourceVersion(), options: opts, stats: s, ratios });
  console.log(`· results: ${file}`);
  return 0;
}
