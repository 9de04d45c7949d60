import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createDatabase } from "../../src/db/client";
import { toIsoSeconds } from "../../src/lib/clock";
import { vesselIdForImo } from "../../src/vessels/identity";
import {
  deleteExpiredPositions,
  findVessel,
  POSITION_RETENTION_DAYS,
  positionTrack,
  recordPositions,
} from "../../src/vessels/position-store";
import type { VesselPositionReport } from "../../src/vessels/positions/source";

// The write side of the position store (src/vessels/position-store.ts): identities, thinning against what is
// stored, the newest position on the vessel row, unknown MMSIs and out-of-range reports dropped, retention.

const db = createDatabase(env.DB);
const NOW = Date.UTC(2026, 10, 28, 12, 0, 0);
const at = (minutes: number) => toIsoSeconds(NOW + minutes * 60_000);
const DAY_MIN = 24 * 60;

function fix(v: { imo?: string; mmsi?: string }, minutes: number, lat = 10): VesselPositionReport {
  return {
    imo: v.imo ?? null,
    mmsi: v.mmsi ?? null,
    latitude: lat,
    longitude: 20,
    speedKnots: 12,
    headingDegrees: 180,
    timestamp: at(minutes),
    source: v.imo ? "simulator" : "ais",
  };
}

describe("recordPositions", () => {
  it("creates the vessel from an identity and attributes MMSI-only reports to it; an unknown MMSI is dropped", async () => {
    const result = await recordPositions(
      db,
      {
        identities: [{ imo: "9300001", mmsi: "300000001", name: "  ALPHA  " }],
        positions: [fix({ mmsi: "300000001" }, -30), fix({ mmsi: "399999999" }, -30)],
      },
      NOW,
    );
    expect(result).toEqual({ stored: 1, dropped: 1, identities: 1 });
    const vessel = await findVessel(db, "9300001");
    expect(vessel).toMatchObject({ name: "ALPHA", mmsi: "300000001", latitude: 10, positionTimestamp: at(-30) });
    // An identity repeated unchanged writes nothing.
    expect(
      (
        await recordPositions(
          db,
          { positions: [], identities: [{ imo: "9300001", mmsi: "300000001", name: "ALPHA" }] },
          NOW,
        )
      ).identities,
    ).toBe(0);
  });

  it("thins to one row per 5 minutes counting the stored rows, and always moves the vessel to the newest report", async () => {
    const v = { imo: "9300002" };
    await recordPositions(db, { positions: [fix(v, -60, 1)] }, NOW);
    const second = await recordPositions(
      db,
      { positions: [fix(v, -58, 2), fix(v, -55, 3), fix(v, -54, 4), fix(v, -49, 5), fix(v, -48, 6)] },
      NOW,
    );
    expect(second).toMatchObject({ stored: 2, dropped: 3 });
    const id = vesselIdForImo("9300002") as string;
    const track = await positionTrack(db, id, at(-120), at(0));
    expect(track.map((p) => [p.timestamp, p.latitude, p.source])).toEqual([
      [at(-60), 1, "simulator"],
      [at(-55), 3, "simulator"],
      [at(-49), 5, "simulator"],
    ]);
    // The newest report (-48) is on the vessel row even though the history skipped it; an older one never moves it back.
    expect((await findVessel(db, id))?.latitude).toBe(6);
    await recordPositions(db, { positions: [fix(v, -100, 9)] }, NOW);
    expect((await findVessel(db, id))?.positionTimestamp).toBe(at(-48));
  });

  it("drops reports out of range: bad coordinates, the future, older than the retention", async () => {
    const v = { imo: "9300003" };
    const result = await recordPositions(
      db,
      {
        positions: [
          { ...fix(v, -10), latitude: 95 },
          { ...fix(v, -10), longitude: Number.NaN },
          fix(v, 60),
          fix(v, -(POSITION_RETENTION_DAYS + 1) * DAY_MIN),
          { ...fix(v, -10), timestamp: "soon" },
        ],
      },
      NOW,
    );
    expect(result).toMatchObject({ stored: 0, dropped: 5 });
  });

  it("writes large batches within D1's bound-parameter limit", async () => {
    const positions = Array.from({ length: 300 }, (_, i) => fix({ imo: String(9400000 + (i % 30)) }, -i * 6));
    const result = await recordPositions(db, { positions }, NOW);
    expect(result.stored).toBe(300);
  });
});

describe("deleteExpiredPositions", () => {
  it("deletes rows older than the retention only", async () => {
    const v = { imo: "9300004" };
    const past = NOW - 2 * 86_400_000;
    await recordPositions(db, { positions: [fix(v, -2 * DAY_MIN - 10), fix(v, -10)] }, NOW);
    // At NOW no row is past the retention; 5.5 days later the first row (2 days 10 minutes before NOW) is.
    expect(await deleteExpiredPositions(db, NOW)).toBe(0);
    const deleted = await deleteExpiredPositions(db, past + (POSITION_RETENTION_DAYS + 0.5) * 86_400_000);
    expect(deleted).toBeGreaterThanOrEqual(1);
    const id = vesselIdForImo("9300004") as string;
    expect((await positionTrack(db, id, at(-30 * DAY_MIN), at(0))).map((p) => p.timestamp)).toEqual([at(-10)]);
  });
});
