import { env } from "cloudflare:test";
import { type ArchiveDeps, RAW_EVENTS_CURSOR, runArchive } from "../../src/archive/job";
import { FakeClock } from "../../src/lib/clock";
import { newId } from "../../src/lib/ids";

// Rows and runs of the retention job's tests (test/archive/): stopped boxes with raw events, and runs at a fixed time.

/** When the seeded shipments stopped tracking. */
export const STOPPED_AT = "2025-07-01T00:00:00Z";
/** 92 days after STOPPED_AT: past the default 90. */
export const AFTER = Date.parse("2025-10-01T00:00:00Z");

/** A shipment with one container and `raws` raw events on shard `d1`; tracking stopped at `stoppedAt` (null: tracked). */
export async function seedBox(d1: D1Database, accountId: string, raws: number, stoppedAt: string | null = STOPPED_AT) {
  const shipmentId = newId();
  const containerId = newId();
  const now = "2025-06-01T00:00:00Z";
  const statements = [
    d1
      .prepare(
        `INSERT INTO shipments (id, account_id, bill_of_lading_number, normalized_number, shipping_line_scac,
           line_tracking_stopped_at, line_tracking_stopped_reason, created_at, updated_at)
         VALUES (?1, ?2, ?3, ?3, 'MAEU', ?4, ?5, ?6, ?6)`,
      )
      .bind(
        shipmentId,
        accountId,
        `BL${containerId.slice(-10)}`,
        stoppedAt,
        stoppedAt ? "all_containers_terminated" : null,
        now,
      ),
    d1
      .prepare(
        `INSERT INTO containers (id, account_id, shipment_id, number, ref_numbers, scac, current_status,
           holds_at_pod_terminal, created_at, updated_at)
         VALUES (?1, ?2, ?3, 'MSCU1234565', '[]', 'MAEU', 'new', '[]', ?4, ?4)`,
      )
      .bind(containerId, accountId, shipmentId, now),
  ];
  const rawIds: string[] = [];
  for (let i = 0; i < raws; i++) {
    const id = newId();
    rawIds.push(id);
    statements.push(
      d1
        .prepare(
          `INSERT INTO raw_events (id, account_id, container_id, "index", event, original_event, timestamp, estimated,
             actual_on, location, location_locode, vessel_name, vessel_imo, voyage_number, timezone, data_source,
             payload, created_at)
           VALUES (?1, ?2, ?3, ?4, ?5, 'Vessel Départ ✓', ?6, ?7, ?8, 'Yantian', 'CNYTN', 'SANDBOX EXPRESS', '9811000',
             '001E', 'Asia/Shanghai', 'shipping_line', ?9, ?10)`,
        )
        .bind(
          id,
          accountId,
          containerId,
          i,
          i % 2 ? "vessel_departed" : "vessel_loaded",
          `2025-04-${String(10 + (i % 18)).padStart(2, "0")}T03:00:00Z`,
          i % 3 === 0 ? 1 : 0,
          i % 3 === 0 ? null : "2025-04-10",
          JSON.stringify({ carrier: { code: `E${i}`, nested: [1, 2.5, null, "ü"] } }),
          // Two months, so a box's rows make two objects.
          i % 2 ? "2025-05-20T00:00:00Z" : "2025-06-02T00:00:00Z",
        ),
    );
  }
  await d1.batch(statements);
  return { shipmentId, containerId, rawIds };
}

/** A run's dependencies on shard `d1` at `nowMs`. */
export function archiveDeps(nowMs: number, overrides: Partial<ArchiveDeps> = {}, d1: D1Database = env.DB): ArchiveDeps {
  return {
    d1,
    bucket: env.ARCHIVE_BUCKET,
    clock: new FakeClock(nowMs),
    config: { afterDays: 90, rowsPerRun: 500 },
    ...overrides,
  };
}

/**
 * Archives whatever earlier tests of this file left eligible, so a test's bounded runs see only its own rows, then
 * forgets the raw events walk's cursor: each test seeds shipments stopped at STOPPED_AT, before the cursor a drain
 * leaves (in production a stop is always recorded at the time it happens, after the cursor).
 */
export async function drainArchive(d1: D1Database = env.DB): Promise<void> {
  for (let i = 0; i < 50; i++) {
    const r = await runArchive(archiveDeps(AFTER, {}, d1));
    if (r.rawEvents === 0 && r.notifications === 0) {
      await d1.prepare("DELETE FROM maintenance_cursors WHERE name = ?1").bind(RAW_EVENTS_CURSOR).run();
      return;
    }
  }
  throw new Error("archive did not drain");
}
