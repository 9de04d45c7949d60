import { describe, expect, it } from "vitest";
import { archiveConfigOf, DEFAULT_ARCHIVE_CONFIG } from "../../src/archive/config";

describe("archiveConfigOf", () => {
  it("reads whole numbers in range", () => {
    expect(archiveConfigOf({ ARCHIVE_AFTER_DAYS: "30", ARCHIVE_ROWS_PER_RUN: "1000" })).toEqual({
      afterDays: 30,
      rowsPerRun: 1000,
    });
    expect(archiveConfigOf({ ARCHIVE_AFTER_DAYS: " 7 ", ARCHIVE_ROWS_PER_RUN: "5000" })).toEqual({
      afterDays: 7,
      rowsPerRun: 5000,
    });
  });

  it("falls back to the defaults (90 days, 500 rows) for missing, empty, negative, fractional, huge or non-numeric values", () => {
    expect(DEFAULT_ARCHIVE_CONFIG).toEqual({ afterDays: 90, rowsPerRun: 500 });
    for (const bad of [undefined, "", "0", "-5", "1.5", "1e3", "ninety", "99999999", "0x10"]) {
      expect(archiveConfigOf({ ARCHIVE_AFTER_DAYS: bad, ARCHIVE_ROWS_PER_RUN: bad }), String(bad)).toEqual(
        DEFAULT_ARCHIVE_CONFIG,
      );
    }
    expect(archiveConfigOf({ ARCHIVE_ROWS_PER_RUN: "5001" }).rowsPerRun).toBe(500);
  });
});
