import { describe, expect, it } from "vitest";
import { wallClockToUtcMs, zoneOffsetMs } from "../../src/lib/time-zones";

// Time-zone arithmetic shared by the provider adapters and the simulator (src/lib/time-zones.ts).

describe("zoneOffsetMs", () => {
  it("gives local minus UTC, with daylight saving", () => {
    expect(zoneOffsetMs(Date.UTC(2025, 0, 15, 12), "America/Los_Angeles")).toBe(-8 * 3_600_000);
    expect(zoneOffsetMs(Date.UTC(2025, 6, 15, 12), "America/Los_Angeles")).toBe(-7 * 3_600_000);
    expect(zoneOffsetMs(Date.UTC(2025, 6, 15, 12), "Asia/Kolkata")).toBe(5.5 * 3_600_000);
    expect(zoneOffsetMs(Date.UTC(2025, 6, 15, 12), "UTC")).toBe(0);
  });

  it("is exact for an instant with milliseconds", () => {
    expect(zoneOffsetMs(Date.UTC(2025, 0, 15, 12, 0, 0, 999), "Europe/Amsterdam")).toBe(3_600_000);
  });

  it("throws RangeError for an unknown zone", () => {
    expect(() => zoneOffsetMs(0, "Mars/Olympus_Mons")).toThrow(RangeError);
  });
});

describe("wallClockToUtcMs", () => {
  it("reads a wall-clock time in the zone", () => {
    expect(wallClockToUtcMs(Date.UTC(2025, 6, 15, 9, 30), "America/New_York")).toBe(Date.UTC(2025, 6, 15, 13, 30));
    expect(wallClockToUtcMs(Date.UTC(2025, 0, 15, 0, 0), "America/Los_Angeles")).toBe(Date.UTC(2025, 0, 15, 8, 0));
  });

  // The two-pass rule (kept from the adapters it replaced) settles a repeated or skipped local time by the side of
  // Greenwich the zone is on. These pin that behaviour.
  it("west of Greenwich: a repeated fall-back hour takes the earlier reading, a skipped time moves back", () => {
    // 2025-11-02 01:30 happens twice in New York (05:30Z EDT, 06:30Z EST).
    expect(wallClockToUtcMs(Date.UTC(2025, 10, 2, 1, 30), "America/New_York")).toBe(Date.UTC(2025, 10, 2, 5, 30));
    // 2025-03-09 02:30 does not exist in New York; it reads as 01:30 EST = 06:30Z.
    expect(wallClockToUtcMs(Date.UTC(2025, 2, 9, 2, 30), "America/New_York")).toBe(Date.UTC(2025, 2, 9, 6, 30));
  });

  it("east of Greenwich: a repeated fall-back hour takes the later reading, a skipped time moves forward", () => {
    // 2025-10-26 02:30 happens twice in Amsterdam (00:30Z CEST, 01:30Z CET).
    expect(wallClockToUtcMs(Date.UTC(2025, 9, 26, 2, 30), "Europe/Amsterdam")).toBe(Date.UTC(2025, 9, 26, 1, 30));
    // 2025-03-30 02:30 does not exist in Amsterdam; it reads as 03:30 CEST = 01:30Z.
    expect(wallClockToUtcMs(Date.UTC(2025, 2, 30, 2, 30), "Europe/Amsterdam")).toBe(Date.UTC(2025, 2, 30, 1, 30));
  });
});
