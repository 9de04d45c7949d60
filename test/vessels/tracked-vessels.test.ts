import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createDatabase } from "../../src/db/client";
import { recordPositions } from "../../src/vessels/position-store";
import { trackedVessels } from "../../src/vessels/tracked-vessels";
import { createAccount } from "../helpers/api";
import { seedBoxOnVessel } from "../helpers/vessels";

// Which vessels the AIS feed follows (src/vessels/tracked-vessels.ts): the current-leg vessel of every box still at
// sea and its shipment's POD vessel, across accounts, once each; not a stopped shipment's, not a discharged box's.

const db = createDatabase(env.DB);

describe("trackedVessels", () => {
  it("names the vessels of tracked boxes once, with the MMSI we know, and leaves out stopped and discharged boxes", async () => {
    const a = await createAccount("A");
    const b = await createAccount("B");
    await recordPositions(
      db,
      { positions: [], identities: [{ imo: "9500001", mmsi: "500000001", name: "ONE" }] },
      Date.now(),
    );
    await seedBoxOnVessel(a.accountId, { eventImo: "9500001", podImo: "9500002" });
    // The same vessel for another account: followed once.
    await seedBoxOnVessel(b.accountId, { eventImo: "9500001" });
    const stopped = await seedBoxOnVessel(a.accountId, { eventImo: "9500003" });
    await env.DB.prepare("UPDATE shipments SET line_tracking_stopped_at = '2026-01-01T00:00:00Z' WHERE id = ?1")
      .bind(stopped.shipmentId)
      .run();
    const discharged = await seedBoxOnVessel(a.accountId, { eventImo: "9500004" });
    await env.DB.prepare("UPDATE containers SET pod_discharged_at = '2026-01-01T00:00:00Z' WHERE id = ?1")
      .bind(discharged.containerId)
      .run();
    // An IMO number that is not 7 digits is not a vessel.
    await seedBoxOnVessel(a.accountId, { eventImo: "IMO12" });

    expect(await trackedVessels(db)).toEqual([
      { imo: "9500001", mmsi: "500000001", name: "ONE" },
      { imo: "9500002", mmsi: null, name: null },
    ]);
    expect(await trackedVessels(db, 1)).toHaveLength(1);
  });
});
