import { env } from "cloudflare:test";
import { count, desc, eq, inArray } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { createDatabase } from "../../src/db/client";
import { readBatch } from "../../src/db/read-batch";
import { accounts, containers, ports, shipments, trackingRequests, transportEvents } from "../../src/db/schema";
import { createAccount } from "../helpers/api";
import { trackSandboxShipment } from "../helpers/tracking";

describe("readBatch: the same rows as drizzle's db.batch, mapped faster", () => {
  it("returns exactly what db.batch returns for whole rows, partial selections, aggregates and JSON/boolean columns", async () => {
    const account = await createAccount();
    const { containerIds, shipment } = await trackSandboxShipment(account);
    const db = createDatabase(env.DB);
    const build = () =>
      [
        db.select().from(containers).where(inArray(containers.id, containerIds)).orderBy(containers.id),
        db.select().from(shipments).where(eq(shipments.id, shipment.id)),
        db.select().from(trackingRequests).where(eq(trackingRequests.accountId, account.accountId)),
        db.select().from(accounts).where(eq(accounts.id, account.accountId)),
        db
          .select({ id: transportEvents.id, containerId: transportEvents.containerId, at: transportEvents.timestamp })
          .from(transportEvents)
          .where(inArray(transportEvents.containerId, containerIds))
          .orderBy(transportEvents.containerId, transportEvents.timestamp, transportEvents.id),
        db.select({ n: count() }).from(containers).where(eq(containers.accountId, account.accountId)),
        db.select().from(ports).orderBy(desc(ports.id)).limit(3),
        db.select().from(containers).where(eq(containers.id, "no-such-container")),
      ] as const;
    const expected = await db.batch(build());
    const actual = await readBatch(db, build());
    expect(actual).toEqual(expected);
    // The data is real: two containers with decoded JSON arrays and booleans, and a count of 2.
    expect(actual[0]).toHaveLength(2);
    expect(Array.isArray(actual[0][0]?.refNumbers)).toBe(true);
    expect(typeof actual[2][0]?.isRetrying).toBe("boolean");
    expect(actual[3][0]?.entitlements).toEqual([]);
    expect(actual[5]).toEqual([{ n: 2 }]);
    expect(actual[7]).toEqual([]);
  });

  // Like drizzle's own batch path, a selection must not repeat a column name (D1 answers a batch with one object per
  // row, so `containers.id` and `shipments.id` would collapse into one key); hence `number` beside `id` here.
  it("falls back to drizzle's own mapping for nested selections (joins)", async () => {
    const account = await createAccount();
    const { containerIds } = await trackSandboxShipment(account);
    const db = createDatabase(env.DB);
    const build = () =>
      [
        db
          .select({ container: { number: containers.number }, shipment: { id: shipments.id } })
          .from(containers)
          .innerJoin(shipments, eq(shipments.id, containers.shipmentId))
          .where(inArray(containers.id, containerIds))
          .orderBy(containers.number),
      ] as const;
    const expected = await db.batch(build());
    const actual = await readBatch(db, build());
    expect(actual).toEqual(expected);
    expect(actual[0]).toHaveLength(containerIds.length);
    expect(actual[0].every((r) => /^[A-Z]{4}\d{7}$/.test(r.container.number) && r.shipment.id.length > 0)).toBe(true);
  });
});
