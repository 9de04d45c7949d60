import { describe, expect, it } from "vitest";
import {
  instantMs,
  lastFreeDayMs,
  localDateOf,
  localMidnightIso,
  localMidnightMs,
  parseIsoWallClock,
  parseUsWallClock,
  type WallClock,
} from "../../../src/tracking/sources/timestamps";

// The upstream providers' timestamps (src/tracking/sources/timestamps.ts), read once for DCSA, APM Terminals, LBCT and
// the Port of Virginia.

const NEW_YORK = "America/New_York";
const AMSTERDAM = "Europe/Amsterdam";
const iso = (ms: number) => new Date(ms).toISOString();
const wall = (text: string): WallClock => {
  const parsed = parseIsoWallClock(text);
  if (!parsed) throw new Error(`unreadable in the test: ${text}`);
  return parsed;
};
const usWall = (text: string): WallClock => {
  const parsed = parseUsWallClock(text);
  if (!parsed) throw new Error(`unreadable in the test: ${text}`);
  return parsed.wall;
};

describe("parseIsoWallClock", () => {
  it("reads the date, the time and the offset as written", () => {
    expect(parseIsoWallClock("2024-07-07T10:15:30-04:00")).toEqual({
      fieldsMs: Date.UTC(2024, 6, 7, 10, 15, 30),
      offsetMinutes: -240,
      hasTime: true,
    });
    expect(parseIsoWallClock("2024-07-07T10:15:30Z")?.offsetMinutes).toBe(0);
    expect(parseIsoWallClock("2024-07-07t10:15:30z")?.offsetMinutes).toBe(0);
    expect(parseIsoWallClock("2024-07-07T10:15:30+0530")?.offsetMinutes).toBe(330);
    expect(parseIsoWallClock("2024-07-07T10:15:30+01")?.offsetMinutes).toBe(60);
    expect(parseIsoWallClock("2024-07-07 10:15 +02:00")?.offsetMinutes).toBe(120);
  });

  it("has no offset for a local wall clock, and no time for a bare date", () => {
    expect(parseIsoWallClock("2022-02-15T18:16:13")).toEqual({
      fieldsMs: Date.UTC(2022, 1, 15, 18, 16, 13),
      offsetMinutes: null,
      hasTime: true,
    });
    expect(parseIsoWallClock("2022-02-15T18:16")?.fieldsMs).toBe(Date.UTC(2022, 1, 15, 18, 16));
    expect(parseIsoWallClock("2024-06-09")).toEqual({
      fieldsMs: Date.UTC(2024, 5, 9),
      offsetMinutes: null,
      hasTime: false,
    });
    expect(parseIsoWallClock("  2024-06-09  ")?.hasTime).toBe(false);
  });

  it("keeps milliseconds of a fraction (after . or ,) and drops finer digits", () => {
    expect(parseIsoWallClock("2022-02-15T18:16:13.973")?.fieldsMs).toBe(Date.UTC(2022, 1, 15, 18, 16, 13, 973));
    expect(parseIsoWallClock("2022-02-15T18:16:13,5Z")?.fieldsMs).toBe(Date.UTC(2022, 1, 15, 18, 16, 13, 500));
    expect(parseIsoWallClock("2022-02-15T18:16:13.123456789Z")?.fieldsMs).toBe(Date.UTC(2022, 1, 15, 18, 16, 13, 123));
  });

  it("reads a leap second as the 59th", () => {
    expect(parseIsoWallClock("2016-12-31T23:59:60Z")?.fieldsMs).toBe(Date.UTC(2016, 11, 31, 23, 59, 59));
  });

  it("refuses dates and times that do not exist, offsets past 23:59, and other formats", () => {
    for (const text of [
      "2026-02-30",
      "2026-02-30T00:00:00",
      "2026-13-01T00:00:00Z",
      "2026-00-10",
      "2026-01-00",
      "2026-01-01T24:00:00Z",
      "2026-01-01T10:60:00Z",
      "2026-01-01T10:00:61Z",
      "2026-01-01T10:00:00+24:00",
      "2026-01-01T10:00:00+01:60",
      "15/02/2022 18:16",
      "2026-1-1",
      "20260101T100000Z",
      "",
      "yesterday",
    ]) {
      expect(parseIsoWallClock(text), text).toBeNull();
    }
  });
});

describe("parseUsWallClock", () => {
  it("reads month-first dates and times, and the (A)/(E) marker", () => {
    expect(parseUsWallClock("12/04/2021 19:05 (A)")).toEqual({
      wall: { fieldsMs: Date.UTC(2021, 11, 4, 19, 5), offsetMinutes: null, hasTime: true },
      marker: "A",
    });
    expect(parseUsWallClock("12/04/2021 19:05 (E)")?.marker).toBe("E");
    expect(parseUsWallClock("12/04/2021 19:05 (Actual)")?.marker).toBe("A");
    expect(parseUsWallClock("12/04/2021 19:05 (a")?.marker).toBe("A");
    expect(parseUsWallClock("7/7/2024 9:05")).toEqual({
      wall: { fieldsMs: Date.UTC(2024, 6, 7, 9, 5), offsetMinutes: null, hasTime: true },
      marker: null,
    });
    expect(parseUsWallClock("07/07/2024")).toEqual({
      wall: { fieldsMs: Date.UTC(2024, 6, 7), offsetMinutes: null, hasTime: false },
      marker: null,
    });
  });

  it("refuses dates that do not exist and other formats", () => {
    for (const text of ["02/30/2024", "13/01/2024", "07/07/2024 24:00", "07/07/2024 10:60", "2024-07-07", "7/7/24"]) {
      expect(parseUsWallClock(text), text).toBeNull();
    }
  });
});

describe("instantMs", () => {
  it("is exact when the text states an offset, whatever the zone", () => {
    expect(iso(instantMs(wall("2024-07-07T10:15:00-04:00"), AMSTERDAM))).toBe("2024-07-07T14:15:00.000Z");
    expect(iso(instantMs(wall("2024-07-07T10:15:00+05:30"), null))).toBe("2024-07-07T04:45:00.000Z");
  });

  it("reads a local wall clock in the place's zone, with its DST", () => {
    expect(iso(instantMs(wall("2022-02-15T18:16:13"), NEW_YORK))).toBe("2022-02-15T23:16:13.000Z");
    expect(iso(instantMs(wall("2022-07-15T18:16:13"), NEW_YORK))).toBe("2022-07-15T22:16:13.000Z");
    // A time the spring-forward gap skips is read with the offset before the change (src/lib/time-zones.ts).
    expect(iso(instantMs(wall("2026-03-08T02:30:00"), "America/Los_Angeles"))).toBe("2026-03-08T10:30:00.000Z");
  });

  it("reads a local wall clock as UTC when the zone is unknown or not a zone", () => {
    expect(iso(instantMs(wall("2022-02-15T18:16:13"), null))).toBe("2022-02-15T18:16:13.000Z");
    expect(iso(instantMs(wall("2022-02-15T18:16:13"), "Not/A_Zone"))).toBe("2022-02-15T18:16:13.000Z");
  });
});

describe("localDateOf", () => {
  it("moves a date-time with an offset to the place's date", () => {
    expect(localDateOf(wall("2023-06-09T23:59:00-07:00"), "America/Los_Angeles")).toEqual([2023, 6, 9]);
    expect(localDateOf(wall("2023-06-09T23:59:00-07:00"), NEW_YORK)).toEqual([2023, 6, 10]);
    expect(localDateOf(wall("2026-03-06T03:30:00Z"), NEW_YORK)).toEqual([2026, 3, 5]);
  });

  it("keeps the date as written without an offset, without a zone, or for a bare date", () => {
    expect(localDateOf(wall("2026-03-06T03:30:00"), NEW_YORK)).toEqual([2026, 3, 6]);
    expect(localDateOf(wall("2026-03-06T03:30:00Z"), null)).toEqual([2026, 3, 6]);
    expect(localDateOf(wall("2026-03-06Z"), NEW_YORK)).toEqual([2026, 3, 6]);
  });
});

describe("localMidnightMs / localMidnightIso", () => {
  it("is midnight of the date in the zone, as UTC", () => {
    expect(iso(localMidnightMs([2024, 7, 7], NEW_YORK))).toBe("2024-07-07T04:00:00.000Z");
    expect(localMidnightIso([2026, 3, 5], NEW_YORK)).toBe("2026-03-05T05:00:00Z");
    expect(localMidnightIso([2024, 6, 9], AMSTERDAM)).toBe("2024-06-08T22:00:00Z");
  });
});

describe("lastFreeDayMs", () => {
  it("is local midnight, at the terminal, of the date the text names there", () => {
    expect(iso(lastFreeDayMs(wall("2024-06-09"), AMSTERDAM))).toBe("2024-06-08T22:00:00.000Z");
    expect(iso(lastFreeDayMs(wall("2023-06-09T23:59:00-07:00"), "America/Los_Angeles"))).toBe(
      "2023-06-09T07:00:00.000Z",
    );
    expect(iso(lastFreeDayMs(wall("2023-06-09T23:59:00-07:00"), NEW_YORK))).toBe("2023-06-10T04:00:00.000Z");
    expect(iso(lastFreeDayMs(usWall("07/07/2024"), NEW_YORK))).toBe("2024-07-07T04:00:00.000Z");
  });

  it("without a zone: midnight at the stated offset, else as if UTC", () => {
    expect(iso(lastFreeDayMs(wall("2024-06-09T23:59:00+02:00"), null))).toBe("2024-06-08T22:00:00.000Z");
    expect(iso(lastFreeDayMs(wall("2024-06-09"), null))).toBe("2024-06-09T00:00:00.000Z");
  });
});
