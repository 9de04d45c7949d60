import { describe, expect, it } from "vitest";
import { feeSummaryOf, lfdStatusOf, localTime, readinessOf } from "../../src/containers/derived-views";
import type { ContainerAttributes } from "../../src/containers/schemas";

// The views derived from a container's attributes (src/containers/derived-views.ts): readiness, LFD urgency, fees and
// local time, with plain inputs.

const NOW = Date.parse("2025-06-10T12:00:00Z");
const HOUR = 3_600_000;
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");

describe("readinessOf (docs/api.md §Readiness)", () => {
  const base = {
    current_status: "available" as ContainerAttributes["current_status"],
    availability_known: true,
    available_for_pickup: true as boolean | null,
    holds_at_pod_terminal: [] as {
      name: "customs" | "freight" | "USDA" | "VACIS" | "TMF" | "other";
      status: "hold" | "pending";
      description: string | null;
    }[],
  };
  it.each([
    ["available, no holds", {}, "ready", true, false],
    [
      "available, pending hold only",
      { holds_at_pod_terminal: [{ name: "TMF", status: "pending", description: null }] },
      "ready",
      true,
      false,
    ],
    [
      "available, active hold",
      { holds_at_pod_terminal: [{ name: "freight", status: "hold", description: null }] },
      "not_ready",
      false,
      true,
    ],
    ["not available", { available_for_pickup: false, current_status: "not_available" }, "not_ready", false, false],
    [
      "unknown availability",
      { availability_known: false, available_for_pickup: null, current_status: "grounded" },
      "unknown",
      null,
      false,
    ],
    ["picked up", { current_status: "picked_up", available_for_pickup: false }, "not_applicable", null, false],
  ] as const)("%s", (_name, patch, status, ready, disagree) => {
    const r = readinessOf({ ...base, ...patch } as typeof base);
    expect(r.status).toBe(status);
    expect(r.ready_for_pickup).toBe(ready);
    expect(r.signals_disagree).toBe(disagree);
  });
});

describe("lfdStatusOf", () => {
  const deadlines = { pickup_lfd_terminal: null, pickup_lfd_rail: null, pickup_lfd_line: null };
  const box = (lfd: string | null, extra: Record<string, unknown> = {}) => ({
    current_status: "available" as const,
    pickup_lfd: lfd,
    import_deadlines: { ...deadlines, pickup_lfd_terminal: lfd },
    terminal_checked_at: iso(NOW - HOUR),
    pod_timezone: "America/Los_Angeles",
    final_destination_timezone: null,
    ...extra,
  });

  it("grades overdue / imminent (≤ 48 h) / upcoming, with days rounded down", () => {
    expect(lfdStatusOf(box(iso(NOW - HOUR)), null, NOW)).toMatchObject({
      urgency: "overdue",
      days_remaining: -1,
      hours_remaining: -1,
    });
    expect(lfdStatusOf(box(iso(NOW + 48 * HOUR)), null, NOW)).toMatchObject({ urgency: "imminent", days_remaining: 2 });
    expect(lfdStatusOf(box(iso(NOW + 49 * HOUR)), null, NOW)).toMatchObject({
      urgency: "upcoming",
      source: "terminal",
    });
  });

  it("is unknown without an LFD, when tracking stopped, or when terminal data is over 7 days old; none once picked up", () => {
    expect(lfdStatusOf(box(null), null, NOW)).toMatchObject({ urgency: "unknown", pickup_lfd_local: null });
    expect(lfdStatusOf(box(iso(NOW + HOUR)), { line_tracking_stopped_at: iso(NOW - HOUR) }, NOW).urgency).toBe(
      "unknown",
    );
    const stale = lfdStatusOf(box(iso(NOW + HOUR), { terminal_checked_at: iso(NOW - 8 * 24 * HOUR) }), null, NOW);
    expect(stale.urgency).toBe("unknown");
    expect(stale.note).toContain("over 7 days ago");
    expect(lfdStatusOf(box(iso(NOW - HOUR), { current_status: "picked_up" }), null, NOW).urgency).toBe("none");
  });

  it("prefers the line's LFD as source and shows it in the POD time zone", () => {
    const s = lfdStatusOf(
      box("2025-06-12T06:59:00Z", { import_deadlines: { ...deadlines, pickup_lfd_line: "2025-06-12T06:59:00Z" } }),
      null,
      NOW,
    );
    expect(s.source).toBe("line");
    expect(s.pickup_lfd_local).toBe("2025-06-11 23:59 America/Los_Angeles");
  });
});

describe("feeSummaryOf (docs/api.md §Fees)", () => {
  it("sums line items per currency and leaves the `total` line out", () => {
    const s = feeSummaryOf([
      { type: "demurrage", amount: 100.1, currency_code: "USD" },
      { type: "exam", amount: 50.2, currency_code: "USD" },
      { type: "other", amount: 10, currency_code: "CAD" },
      { type: "total", amount: 150.3, currency_code: "USD" },
    ]);
    expect(s.items.map((f) => f.type)).toEqual(["demurrage", "exam", "other"]);
    expect(s.sum_by_currency).toEqual([
      { currency_code: "USD", amount: 150.3 },
      { currency_code: "CAD", amount: 10 },
    ]);
    expect(s.reported_totals).toEqual([{ currency_code: "USD", amount: 150.3 }]);
  });
});

describe("localTime", () => {
  it("formats in the zone, falls back to UTC for an unknown zone", () => {
    expect(localTime("2025-01-15T12:30:00Z", "Asia/Singapore")).toBe("2025-01-15 20:30 Asia/Singapore");
    expect(localTime("2025-01-15T12:30:00Z", null)).toBe("2025-01-15 12:30 UTC");
    expect(localTime("2025-01-15T12:30:00Z", "Not/AZone")).toBe("2025-01-15 12:30 UTC");
    expect(localTime(null, "UTC")).toBeNull();
  });
});
