import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { runArchive } from "../../src/archive/job";
import { FakeClock } from "../../src/lib/clock";
import { newId } from "../../src/lib/ids";
import { createAccountWithWebUser, web } from "../helpers/web-session";

// The container page's timeline (src/dashboard/container-data.ts loadTimeline) after the retention archive
// (src/archive/, issue 29 §2) moved the box's raw events to R2: the page shows them as GET /raw_events serves them,
// read through the same service, instead of losing them with the D1 rows.

const STOPPED_AT = "2025-07-01T00:00:00Z";
/** 92 days after STOPPED_AT: past the default 90. */
const AFTER = Date.parse("2025-10-01T00:00:00Z");

/** A stopped shipment with one container and `raws` raw events behind no milestone. */
async function seedStoppedBox(accountId: string, raws: number): Promise<string> {
  const shipmentId = newId();
  const containerId = newId();
  const now = "2025-06-01T00:00:00Z";
  const statements = [
    env.DB.prepare(
      `INSERT INTO shipments (id, account_id, bill_of_lading_number, normalized_number, shipping_line_scac,
         line_tracking_stopped_at, line_tracking_stopped_reason, created_at, updated_at)
       VALUES (?1, ?2, ?3, ?3, 'MAEU', ?4, 'all_containers_terminated', ?5, ?5)`,
    ).bind(shipmentId, accountId, `BL${containerId.slice(-10)}`, STOPPED_AT, now),
    env.DB.prepare(
      `INSERT INTO containers (id, account_id, shipment_id, number, ref_numbers, scac, current_status,
         holds_at_pod_terminal, created_at, updated_at)
       VALUES (?1, ?2, ?3, 'MSCU1234565', '[]', 'MAEU', 'new', '[]', ?4, ?4)`,
    ).bind(containerId, accountId, shipmentId, now),
  ];
  for (let i = 0; i < raws; i++) {
    statements.push(
      env.DB.prepare(
        `INSERT INTO raw_events (id, account_id, container_id, "index", event, original_event, timestamp, estimated,
           location, data_source, payload, created_at)
         VALUES (?1, ?2, ?3, ?4, 'vessel_departed', ?5, '2025-04-10T03:00:00Z', 0, 'Yantian', 'shipping_line', '{}', ?6)`,
      ).bind(newId(), accountId, containerId, i, `Archived departure ${i}`, now),
    );
  }
  await env.DB.batch(statements);
  return containerId;
}

describe("container page after archiving", () => {
  it("still shows the box's carrier events once they are in R2 and no longer in D1", async () => {
    const account = await createAccountWithWebUser("viewer");
    const containerId = await seedStoppedBox(account.accountId, 3);
    const page = async () => (await web(`/app/containers/${containerId}`, { user: account.user })).text();
    const before = await page();
    expect(before).toContain("Carrier events behind no milestone (3)");
    expect(before).toContain("Archived departure 2");

    const run = await runArchive({
      d1: env.DB,
      bucket: env.ARCHIVE_BUCKET,
      clock: new FakeClock(AFTER),
      config: { afterDays: 90, rowsPerRun: 500 },
    });
    expect(run.rawEvents).toBe(3);
    const left = await env.DB.prepare("SELECT COUNT(*) AS n FROM raw_events WHERE container_id = ?1")
      .bind(containerId)
      .first<{ n: number }>();
    expect(left?.n).toBe(0);

    const after = await page();
    expect(after).toContain("Carrier events behind no milestone (3)");
    for (const i of [0, 1, 2]) expect(after).toContain(`Archived departure ${i}`);
    // The live refresh reads the same timeline.
    const live = await (await web(`/app/containers/${containerId}/live`, { user: account.user })).text();
    expect(live).toContain("Archived departure 1");
  });
});
