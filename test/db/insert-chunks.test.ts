import { describe, expect, it } from "vitest";
import { boundParameters, D1_MAX_BOUND_PARAMETERS, insertChunks } from "../../src/db/insert-chunks";
import { rawEvents, transportEvents, webhookNotifications } from "../../src/db/schema";

// Multi-row INSERT chunking (src/db/insert-chunks.ts): runs in order, within D1's 100 bound parameters per statement,
// cut where the group changes.

const transportRow = (i: number) => ({
  id: `te-${i}`,
  accountId: "a",
  containerId: "c",
  shipmentId: "s",
  event: "container.transport.vessel_departed",
  voyageNumber: null,
  timestamp: null,
  timezone: null,
  locationLocode: null,
  locationId: null,
  terminalId: null,
  vesselName: null,
  vesselImo: null,
  value: null,
  dataSource: "shipping_line",
  invalidatedAt: null,
  createdAt: "2031-01-01T00:00:00Z",
  rawEventId: null,
});

describe("insertChunks", () => {
  it("counts one parameter per given column (null included) or column with a default", () => {
    expect(boundParameters(transportEvents, transportRow(0))).toBe(18);
    // raw_events: `estimated` has a default, so it binds even when left out; absent columns without one do not.
    expect(boundParameters(rawEvents, { id: "r", accountId: "a" })).toBe(3);
  });

  it("fills each statement up to 100 parameters, keeping the order", () => {
    const rows = Array.from({ length: 12 }, (_, i) => transportRow(i));
    const runs = insertChunks(transportEvents, rows);
    expect(runs.map((r) => r.rows.length)).toEqual([5, 5, 2]);
    expect(runs.flatMap((r) => r.rows.map((row) => row.id))).toEqual(rows.map((r) => r.id));
    for (const run of runs) {
      const params = run.rows.reduce((n, row) => n + boundParameters(transportEvents, row), 0);
      expect(params).toBeLessThanOrEqual(D1_MAX_BOUND_PARAMETERS);
    }
  });

  it("starts a new statement where the group changes, so per-row ON CONFLICT clauses stay in order", () => {
    const items = [true, true, false, true, false, false].map((actual, i) => ({ actual, row: transportRow(i) }));
    const runs = insertChunks(
      transportEvents,
      items,
      (item) => item.actual,
      (item) => item.row,
    );
    expect(runs.map((r) => [r.group, r.rows.map((i) => i.row.id)])).toEqual([
      [true, ["te-0", "te-1"]],
      [false, ["te-2"]],
      [true, ["te-3"]],
      [false, ["te-4", "te-5"]],
    ]);
  });

  it("gives no statement for no rows, and refuses a row over the limit on its own", () => {
    expect(insertChunks(webhookNotifications, [])).toEqual([]);
    const wide = Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`c${i}`, i]));
    const columns = Object.fromEntries(Object.keys(wide).map((k) => [k, {}]));
    // A table of 101 columns is not in the schema; `boundParameters` only reads the table's columns.
    const table = Object.assign(Object.create(null), { [Symbol.for("drizzle:Columns")]: columns });
    expect(() => insertChunks(table, [wide], undefined, undefined)).toThrow(RangeError);
  });
});
