import { describe, expect, it } from "vitest";
import { localTimeIn, wallClockToUtcMs, zoneOffsetMs } from "../../src/lib/time-zones";

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

  // A local time a DST change skips or repeats is settled as RFC 5545 §3.3.5, Temporal's "compatible"
  // disambiguation and java.time's ZonedDateTime.of do: a skipped time moves forward by the gap's length, a repeated
  // one takes the earlier reading (the offset before the change), on either side of Greenwich.
  describe("a skipped (spring-forward) time moves forward by the gap", () => {
    it("US: 2026-03-08 02:30 in Los Angeles reads as 03:30 PDT", () => {
      expect(wallClockToUtcMs(Date.UTC(2026, 2, 8, 2, 30), "America/Los_Angeles")).toBe(Date.UTC(2026, 2, 8, 10, 30));
      // 2025-03-09 02:30 in New York reads as 03:30 EDT = 07:30Z.
      expect(wallClockToUtcMs(Date.UTC(2025, 2, 9, 2, 30), "America/New_York")).toBe(Date.UTC(2025, 2, 9, 7, 30));
      // The gap's first instant and the last skipped second.
      expect(wallClockToUtcMs(Date.UTC(2026, 2, 8, 2, 0), "America/Los_Angeles")).toBe(Date.UTC(2026, 2, 8, 10, 0));
      expect(wallClockToUtcMs(Date.UTC(2026, 2, 8, 2, 59, 59), "America/Los_Angeles")).toBe(
        Date.UTC(2026, 2, 8, 10, 59, 59),
      );
    });

    it("Europe: 2025-03-30 02:30 in Amsterdam reads as 03:30 CEST", () => {
      expect(wallClockToUtcMs(Date.UTC(2025, 2, 30, 2, 30), "Europe/Amsterdam")).toBe(Date.UTC(2025, 2, 30, 1, 30));
      // 2026-03-29 01:30 in London reads as 02:30 BST = 01:30Z.
      expect(wallClockToUtcMs(Date.UTC(2026, 2, 29, 1, 30), "Europe/London")).toBe(Date.UTC(2026, 2, 29, 1, 30));
    });

    it("a half-hour gap (Lord Howe, 2025-10-05 02:15) moves forward by 30 minutes", () => {
      // +10:30 → +11:00 at 02:00 local: 02:15 reads as 02:45 +11:00 = 15:45Z the day before.
      expect(wallClockToUtcMs(Date.UTC(2025, 9, 5, 2, 15), "Australia/Lord_Howe")).toBe(Date.UTC(2025, 9, 4, 15, 45));
    });
  });

  describe("a repeated (fall-back) time takes the earlier reading", () => {
    it("US: 2025-11-02 01:30 in New York reads as 01:30 EDT", () => {
      expect(wallClockToUtcMs(Date.UTC(2025, 10, 2, 1, 30), "America/New_York")).toBe(Date.UTC(2025, 10, 2, 5, 30));
      expect(wallClockToUtcMs(Date.UTC(2026, 10, 1, 1, 30), "America/Los_Angeles")).toBe(Date.UTC(2026, 10, 1, 8, 30));
    });

    it("Europe: 2025-10-26 02:30 in Amsterdam reads as 02:30 CEST", () => {
      expect(wallClockToUtcMs(Date.UTC(2025, 9, 26, 2, 30), "Europe/Amsterdam")).toBe(Date.UTC(2025, 9, 26, 0, 30));
      // 2026-10-25 01:30 in London reads as 01:30 BST = 00:30Z.
      expect(wallClockToUtcMs(Date.UTC(2026, 9, 25, 1, 30), "Europe/London")).toBe(Date.UTC(2026, 9, 25, 0, 30));
    });
  });

  it("the times either side of a change read as usual", () => {
    expect(wallClockToUtcMs(Date.UTC(2026, 2, 8, 1, 59, 59), "America/Los_Angeles")).toBe(
      Date.UTC(2026, 2, 8, 9, 59, 59),
    );
    expect(wallClockToUtcMs(Date.UTC(2026, 2, 8, 3, 0), "America/Los_Angeles")).toBe(Date.UTC(2026, 2, 8, 10, 0));
    expect(wallClockToUtcMs(Date.UTC(2025, 9, 26, 1, 59, 59), "Europe/Amsterdam")).toBe(
      Date.UTC(2025, 9, 25, 23, 59, 59),
    );
    expect(wallClockToUtcMs(Date.UTC(2025, 9, 26, 3, 0), "Europe/Amsterdam")).toBe(Date.UTC(2025, 9, 26, 2, 0));
  });

  it("throws RangeError for an unknown zone", () => {
    expect(() => wallClockToUtcMs(0, "Mars/Olympus_Mons")).toThrow(RangeError);
  });
});

describe("localTimeIn", () => {
  it("reads a UTC instant on the local clock with the zone's abbreviation, either side of a DST change", () => {
    expect(localTimeIn("2026-03-08T09:59:00Z", "America/Los_Angeles")).toEqual({
      date: "2026-03-08",
      time: "01:59",
      abbreviation: "PST",
      timeZone: "America/Los_Angeles",
    });
    expect(localTimeIn("2026-03-08T10:00:00Z", "America/Los_Angeles")).toMatchObject({
      time: "03:00",
      abbreviation: "PDT",
    });
  });

  it("crosses the date line to the local date, and names a zone without an abbreviation by its offset", () => {
    expect(localTimeIn("2026-06-30T20:30:00Z", "Asia/Shanghai")).toEqual({
      date: "2026-07-01",
      time: "04:30",
      abbreviation: "GMT+8",
      timeZone: "Asia/Shanghai",
    });
  });

  it("is null for an unknown zone or a time that does not parse", () => {
    expect(localTimeIn("2026-06-30T20:30:00Z", "Mars/Olympus_Mons")).toBeNull();
    expect(localTimeIn("not a time", "UTC")).toBeNull();
  });
});
