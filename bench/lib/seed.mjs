// Seeds a bench database directly in the SQLite file miniflare keeps for the local D1 binding, with Node's
// built-in node:sqlite (one transaction, prepared statements): a million containers take well under a minute,
// where `wrangler d1 execute --file` would take far longer. Only call this while no wrangler process is running
// on that persistence directory, after the migrations have created the tables.
import { createHash, randomBytes } from "node:crypto";
import { DatabaseSync } from "node:sqlite";

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** A fresh local API key in the Worker's format: `svc_test_` + 43 base62 characters (scripts/lib/api-keys.mjs). */
export function generateTestKey() {
  let out = "";
  while (out.length < 43) {
    for (const byte of randomBytes(64)) if (byte < 248 && out.length < 43) out += BASE62[byte % 62];
  }
  return `svc_test_${out}`;
}

/** What api_keys.key_hash stores: lowercase hex SHA-256 of the whole key. */
export function hashKey(key) {
  return createHash("sha256").update(key, "utf8").digest("hex");
}

/** ISO 8601 UTC to the second, as the Worker writes timestamps (`2026-01-01T00:00:00Z`). */
export function isoSeconds(ms) {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
}

let pool = Buffer.alloc(0);
let poolOffset = 0;
/** A UUID v7 for time `ms` (time-ordered like the Worker's ids), from a pooled random buffer for speed. */
export function uuidv7At(ms) {
  if (poolOffset + 10 > pool.length) {
    pool = randomBytes(65536);
    poolOffset = 0;
  }
  const b = Buffer.alloc(16);
  b.writeUIntBE(ms, 0, 6);
  pool.copy(b, 6, poolOffset, poolOffset + 10);
  poolOffset += 10;
  b[6] = (b[6] & 0x0f) | 0x70;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = b.toString("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** Opens the D1 SQLite file for a bulk load (callers must close it). */
export function openForBulkLoad(file) {
  const db = new DatabaseSync(file);
  db.exec("PRAGMA synchronous = OFF; PRAGMA cache_size = -262144; PRAGMA temp_store = MEMORY;");
  return db;
}

/** Runs many SQL statements (e.g. the reference seed) in one transaction. */
export function execStatements(db, statements) {
  db.exec("BEGIN");
  try {
    for (const sql of statements) db.exec(sql);
    db.exec("COMMIT");
  } catch (err) {
    db.exec("ROLLBACK");
    throw err;
  }
}

const STATUSES = ["new", "on_ship", "on_ship", "on_ship", "available", "not_available", "grounded", "picked_up"];

/**
 * Inserts one account with one API key, `containers` containers on `ceil(containers / perShipment)` shipments
 * (newest first = highest index; created one second apart, ending a day before now), and the account's
 * `account_resource_counts` rows, so the list endpoints can answer `meta.total` without counting.
 * @param {DatabaseSync} db
 * @param {{ accountId: string, key: string, containers: number, perShipment?: number, onProgress?: (done: number) => void }} options
 * @returns {{ shipments: number, sampleIds: string[] }} `sampleIds`: up to 2 000 container ids
 *   spread over the table (for the get-by-id load)
 */
export function seedAccount(db, { accountId, key, containers, perShipment = 2, onProgress }) {
  const now = Date.now();
  const start = now - 86_400_000 - containers * 1000;
  const created = isoSeconds(now - 86_400_000);
  const shipmentCount = Math.ceil(containers / perShipment);
  const sampleEvery = Math.max(1, Math.floor(containers / 2000));
  const sampleIds = [];

  const insertShipment = db.prepare(
    `INSERT INTO shipments (id, account_id, bill_of_lading_number, normalized_number, ref_numbers, tags, shipping_line_scac,
       port_of_lading_locode, port_of_lading_name, port_of_discharge_locode, port_of_discharge_name, pod_vessel_name,
       pod_vessel_imo, pod_voyage_number, pol_etd_at, pol_atd_at, pod_eta_at, pol_timezone, pod_timezone, created_at, updated_at)
     VALUES (?, ?, ?, ?, '[]', '[]', 'MAEU', 'CNYTN', 'Yantian', 'USLAX', 'Los Angeles', 'BENCH EXPRESS', '9000001', '001E', ?, ?, ?,
       'Asia/Shanghai', 'America/Los_Angeles', ?, ?)`,
  );
  const insertContainer = db.prepare(
    `INSERT INTO containers (id, account_id, shipment_id, number, ref_numbers, seal_number, equipment_type, equipment_length,
       equipment_height, weight_in_lbs, current_status, availability_known, holds_at_pod_terminal, fees_at_pod_terminal,
       pol_full_in_at, pol_vessel_loaded_at, pol_vessel_departed_at, pod_timezone, pod_locode, scac, created_at, updated_at)
     VALUES (?, ?, ?, ?, '[]', ?, 'dry', 40, 'high_cube', 48000, ?, 0, '[]', '[]', ?, ?, ?, 'America/Los_Angeles', 'USLAX', 'MAEU', ?, ?)`,
  );

  db.exec("BEGIN");
  try {
    db.prepare("INSERT INTO accounts (id, name, entitlements, created_at) VALUES (?, 'Bench', '[]', ?)").run(
      accountId,
      created,
    );
    db.prepare(
      "INSERT INTO api_keys (id, account_id, name, key_hash, prefix, created_at) VALUES (?, ?, 'bench', ?, ?, ?)",
    ).run(uuidv7At(now - 86_400_000), accountId, hashKey(key), key.slice(0, 13), created);

    let shipmentId = "";
    for (let i = 0; i < containers; i++) {
      const ms = start + i * 1000;
      const at = isoSeconds(ms);
      if (i % perShipment === 0) {
        shipmentId = uuidv7At(ms);
        const bl = `BNCH${String(i / perShipment).padStart(9, "0")}`;
        const etd = isoSeconds(ms + 3 * 86_400_000);
        insertShipment.run(shipmentId, accountId, bl, bl, etd, etd, isoSeconds(ms + 20 * 86_400_000), at, at);
      }
      const id = uuidv7At(ms);
      if (i % sampleEvery === 0 && sampleIds.length < 2000) sampleIds.push(id);
      const loaded = isoSeconds(ms + 2 * 86_400_000);
      insertContainer.run(
        id,
        accountId,
        shipmentId,
        `BNCU${String(i).padStart(7, "0")}`,
        `SL${i}`,
        STATUSES[i % STATUSES.length],
        isoSeconds(ms + 86_400_000),
        loaded,
        loaded,
        at,
        at,
      );
      if (onProgress && (i + 1) % 100_000 === 0) onProgress(i + 1);
    }
    const counts = db.prepare(
      `INSERT INTO account_resource_counts (account_id, resource, count) VALUES (?, ?, ?)
       ON CONFLICT(account_id, resource) DO UPDATE SET count = excluded.count`,
    );
    counts.run(accountId, "container", containers);
    counts.run(accountId, "shipment", shipmentCount);
    db.exec("COMMIT");
  } catch (err) {
    db.exec("ROLLBACK");
    throw err;
  }
  return { shipments: shipmentCount, sampleIds };
}
