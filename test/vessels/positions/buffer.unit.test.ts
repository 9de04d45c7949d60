import { describe, expect, it } from "vitest";
import { PositionBuffer } from "../../../src/vessels/positions/buffer";
import type { VesselPositionReport } from "../../../src/vessels/positions/source";

// The AIS feed's buffer (src/vessels/positions/buffer.ts): only followed vessels, thinned as reports arrive, the
// newest always kept, identities giving a followed IMO its MMSI.

const T0 = Date.UTC(2026, 10, 28, 12, 0, 0);
const report = (mmsi: string, minutes: number): VesselPositionReport => ({
  imo: null,
  mmsi,
  latitude: 1 + minutes / 100,
  longitude: 2,
  speedKnots: 10,
  headingDegrees: 90,
  timestamp: new Date(T0 + minutes * 60_000).toISOString().replace(".000Z", "Z"),
  source: "ais",
});

describe("PositionBuffer", () => {
  it("keeps one report per vessel per 5 minutes plus the newest, and drops vessels not followed", () => {
    const buffer = new PositionBuffer();
    buffer.setFollowed([{ imo: "9301809", mmsi: "563281100", name: null }]);
    for (const m of [0, 1, 2, 5, 6, 7.5]) buffer.position(report("563281100", m));
    expect(buffer.position(report("244123456", 0))).toBe(false);
    expect(buffer.untracked).toBe(1);
    expect(buffer.accepted).toBe(6);
    const { positions } = buffer.drain();
    expect(positions.map((p) => p.timestamp)).toEqual([
      "2026-11-28T12:00:00Z",
      "2026-11-28T12:05:00Z",
      "2026-11-28T12:07:30Z",
    ]);
    expect(buffer.drain()).toEqual({ positions: [], identities: [] });
  });

  it("keeps identities of followed IMOs only, and says when one brings a new MMSI", () => {
    const buffer = new PositionBuffer();
    buffer.setFollowed([{ imo: "9301809", mmsi: null, name: null }]);
    expect(buffer.identity({ imo: "9811000", mmsi: "353136000", name: "EVER GIVEN" })).toBe(false);
    expect(buffer.identity({ imo: "9301809", mmsi: "563281100", name: "SEASPAN SAIGON" })).toBe(true);
    expect(buffer.identity({ imo: "9301809", mmsi: "563281100", name: "SEASPAN SAIGON" })).toBe(false);
    // Its positions are now kept.
    expect(buffer.position(report("563281100", 0))).toBe(true);
    expect(buffer.drain().identities).toEqual([{ imo: "9301809", mmsi: "563281100", name: "SEASPAN SAIGON" }]);
  });
});
