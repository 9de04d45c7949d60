/**
 * Views derived from a container's attributes (pure, no I/O): readiness for pickup (docs/api.md §Readiness),
 * last-free-day (LFD) urgency, fee sums excluding `total` (docs/api.md §Fees), source health, local times. The MCP
 * tools serve them today (`get_container`, `list_containers`, `get_shipment_details`); they live with the container,
 * not with MCP, so REST and the web read the same rules. Each view's type is inferred from its zod schema, which
 * `get_container` declares as its output.
 */

import { z } from "zod";
import type { TerminalFee } from "../db/schema";
import { orNull } from "../lib/nullable";
import type { ShipmentAttributes } from "../shipments/schemas";
import type { ContainerAttributes } from "./schemas";

const nullableString = orNull(z.string());

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** LFD within this many hours (and not past) is `imminent`. */
export const LFD_IMMINENT_HOURS = 48;
/** Terminal data older than this makes LFD urgency `unknown` (suppressed): it may be stale. */
export const TERMINAL_DATA_STALE_DAYS = 7;

/** Statuses after which the box has left the terminal: readiness and LFD no longer apply. */
const DONE_STATUSES = new Set(["picked_up", "delivered", "empty_returned"]);

/** Whether the box has already left its final pickup point (picked up, delivered or returned). */
export function isPickedUp(c: Pick<ContainerAttributes, "current_status">): boolean {
  return DONE_STATUSES.has(c.current_status);
}

/**
 * Readiness for pickup (docs/api.md §Readiness), as `get_container` outputs it: `status` `ready`, `not_ready`,
 * `unknown` (the terminal does not report availability) or `not_applicable` (already picked up); `ready_for_pickup`
 * true only when ready, null when unknown or not applicable; `active_holds` the holds with status `hold` (pending ones
 * are not active); `signals_disagree` when available but holds are still active (the next update settles it);
 * `explanation` why, in one sentence.
 */
export const Readiness = z.object({
  status: z.enum(["ready", "not_ready", "unknown", "not_applicable"]),
  ready_for_pickup: orNull(z.boolean()),
  availability_known: z.boolean(),
  available_for_pickup: orNull(z.boolean()),
  active_holds: z.array(z.string()),
  pending_holds: z.array(z.string()),
  signals_disagree: z.boolean(),
  explanation: z.string(),
});
/** See {@link Readiness}. */
export type Readiness = z.infer<typeof Readiness>;

/**
 * Readiness rule of docs/api.md §Readiness: ready for pickup when `available_for_pickup` is true and no item of
 * `holds_at_pod_terminal` has status `hold`. Picked-up boxes are `not_applicable`; unknown availability is `unknown`.
 */
export function readinessOf(
  c: Pick<
    ContainerAttributes,
    "current_status" | "availability_known" | "available_for_pickup" | "holds_at_pod_terminal"
  >,
): Readiness {
  const active = c.holds_at_pod_terminal.filter((h) => h.status === "hold").map((h) => h.name);
  const pending = c.holds_at_pod_terminal.filter((h) => h.status === "pending").map((h) => h.name);
  const base = {
    availability_known: c.availability_known,
    available_for_pickup: c.available_for_pickup,
    active_holds: active,
    pending_holds: pending,
  };
  if (isPickedUp(c)) {
    return {
      ...base,
      status: "not_applicable",
      ready_for_pickup: null,
      signals_disagree: false,
      explanation: `The container is ${c.current_status.replace(/_/g, " ")}; pickup readiness no longer applies.`,
    };
  }
  const disagree = c.available_for_pickup === true && active.length > 0;
  if (c.available_for_pickup === true && active.length === 0) {
    return {
      ...base,
      status: "ready",
      ready_for_pickup: true,
      signals_disagree: false,
      explanation: "Available for pickup and no active holds.",
    };
  }
  if (c.available_for_pickup === true) {
    return {
      ...base,
      status: "not_ready",
      ready_for_pickup: false,
      signals_disagree: disagree,
      explanation: `The terminal reports it available, but holds are active (${active.join(", ")}); the data may be out of sync and the next update settles it.`,
    };
  }
  if (c.available_for_pickup === false) {
    return {
      ...base,
      status: "not_ready",
      ready_for_pickup: false,
      signals_disagree: false,
      explanation:
        active.length > 0
          ? `Not available for pickup; active holds: ${active.join(", ")}.`
          : "Not available for pickup (the terminal has not released it).",
    };
  }
  return {
    ...base,
    status: "unknown",
    ready_for_pickup: null,
    signals_disagree: false,
    explanation: c.availability_known
      ? "The terminal has not reported availability yet."
      : "Availability is not reported for this container's terminal (not yet discharged, or no terminal data).",
  };
}

/**
 * The last free day (LFD) with its urgency, as `get_container` outputs it: `pickup_lfd` UTC and `pickup_lfd_local` in
 * the POD (or final destination) zone; `source` the deadline it came from (docs/decisions.md §Containers: line first);
 * `hours_remaining` one decimal, at most -0.1 once past (never 0 when overdue); `days_remaining` whole days, rounded
 * down; `urgency` `overdue` (any time after the LFD instant), `imminent` (within 48 h), `upcoming`, `none` (already
 * picked up) or `unknown` (no LFD, or suppressed because the data may be stale), with `note` saying why for the last two.
 */
export const LfdStatus = z.object({
  pickup_lfd: nullableString,
  pickup_lfd_local: nullableString,
  source: z.enum(["line", "terminal", "rail"]).nullable(),
  hours_remaining: orNull(z.number()),
  days_remaining: z.number().int().nullable(),
  urgency: z.enum(["overdue", "imminent", "upcoming", "none", "unknown"]),
  note: nullableString,
  import_deadlines: z.object({
    pickup_lfd_terminal: nullableString,
    pickup_lfd_rail: nullableString,
    pickup_lfd_line: nullableString,
  }),
});
/** See {@link LfdStatus}. */
export type LfdStatus = z.infer<typeof LfdStatus>;

/**
 * LFD urgency of a container at `nowMs` (ms since epoch). Suppressed to `unknown` when the shipment stopped
 * tracking or the terminal was last checked more than 7 days ago (the LFD may be stale), as the reference MCP
 * server does (docs/mcp.md §Compatibility with the reference server).
 */
export function lfdStatusOf(
  c: Pick<
    ContainerAttributes,
    | "current_status"
    | "pickup_lfd"
    | "import_deadlines"
    | "terminal_checked_at"
    | "pod_timezone"
    | "final_destination_timezone"
  >,
  shipment: Pick<ShipmentAttributes, "line_tracking_stopped_at"> | null | undefined,
  nowMs: number,
): LfdStatus {
  const d = c.import_deadlines;
  const source =
    c.pickup_lfd === null
      ? null
      : d.pickup_lfd_line === c.pickup_lfd
        ? "line"
        : d.pickup_lfd_terminal === c.pickup_lfd
          ? "terminal"
          : d.pickup_lfd_rail === c.pickup_lfd
            ? "rail"
            : null;
  const zone = source === "rail" ? (c.final_destination_timezone ?? c.pod_timezone) : c.pod_timezone;
  const lfdMs = c.pickup_lfd ? Date.parse(c.pickup_lfd) : Number.NaN;
  const hasLfd = !Number.isNaN(lfdMs);
  // Past the LFD instant by any amount is overdue (issue 16 §1): the sign comes from the milliseconds, and a past
  // LFD never rounds to 0 hours.
  const past = hasLfd && nowMs > lfdMs;
  const rounded = Math.round(((lfdMs - nowMs) / HOUR_MS) * 10) / 10;
  const hours = hasLfd ? (past ? Math.min(rounded, -0.1) : rounded) : null;
  const days = hasLfd ? Math.floor((lfdMs - nowMs) / DAY_MS) : null;
  const result: Omit<LfdStatus, "urgency" | "note"> = {
    pickup_lfd: c.pickup_lfd,
    pickup_lfd_local: hasLfd ? localTime(c.pickup_lfd, zone) : null,
    source,
    hours_remaining: hours,
    days_remaining: days,
    import_deadlines: d,
  };
  if (isPickedUp(c)) {
    return { ...result, urgency: "none", note: "Already picked up; the last free day no longer applies." };
  }
  if (!hasLfd || hours === null) {
    return { ...result, urgency: "unknown", note: "No last free day has been reported yet." };
  }
  if (shipment?.line_tracking_stopped_at) {
    return {
      ...result,
      urgency: "unknown",
      note: `Tracking stopped at ${shipment.line_tracking_stopped_at}; the last free day may be stale.`,
    };
  }
  const checked = c.terminal_checked_at ? Date.parse(c.terminal_checked_at) : Number.NaN;
  if (!Number.isNaN(checked) && nowMs - checked > TERMINAL_DATA_STALE_DAYS * DAY_MS) {
    return {
      ...result,
      urgency: "unknown",
      note: `Terminal data last checked at ${c.terminal_checked_at} (over ${TERMINAL_DATA_STALE_DAYS} days ago); the last free day may be stale.`,
    };
  }
  if (past) return { ...result, urgency: "overdue", note: null };
  if (lfdMs - nowMs <= LFD_IMMINENT_HOURS * HOUR_MS) return { ...result, urgency: "imminent", note: null };
  return { ...result, urgency: "upcoming", note: null };
}

const Fee = z.object({ type: z.string(), amount: z.number(), currency_code: z.string() });
const Amount = z.object({ currency_code: z.string(), amount: z.number() });

/** Terminal fees with the `total` line left out of the sums (docs/api.md §Fees), as `get_container` outputs them. */
export const FeeSummary = z.object({
  items: z.array(Fee).describe("Fee line items; the terminal's `total` line is excluded."),
  sum_by_currency: z.array(Amount).describe("Sum of the line items per currency (`total` excluded)."),
  reported_totals: z.array(Amount).describe("The terminal's own `total` lines (may duplicate the items)."),
});
/** See {@link FeeSummary}. */
export type FeeSummary = z.infer<typeof FeeSummary>;

/** Sums fees per currency excluding `total` items (they may duplicate line items; docs/api.md §Fees). */
export function feeSummaryOf(fees: TerminalFee[]): FeeSummary {
  const items = fees.filter((f) => f.type !== "total");
  const sums = new Map<string, number>();
  for (const f of items) sums.set(f.currency_code, (sums.get(f.currency_code) ?? 0) + f.amount);
  return {
    items,
    sum_by_currency: [...sums].map(([currency_code, amount]) => ({
      currency_code,
      amount: Math.round(amount * 100) / 100,
    })),
    reported_totals: fees
      .filter((f) => f.type === "total")
      .map((f) => ({ currency_code: f.currency_code, amount: f.amount })),
  };
}

/**
 * `2025-06-12T06:59:00Z` in `America/Los_Angeles` → `2025-06-11 23:59 America/Los_Angeles`; null for no time;
 * the UTC time (`… UTC`) when the zone is unknown or invalid.
 */
export function localTime(utc: string | null, timeZone: string | null): string | null {
  if (!utc) return null;
  const ms = Date.parse(utc);
  if (Number.isNaN(ms)) return null;
  const zone = timeZone ?? "UTC";
  try {
    const parts = new Intl.DateTimeFormat("en-CA", {
      timeZone: zone,
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      hourCycle: "h23",
    }).formatToParts(new Date(ms));
    const get = (t: string) => parts.find((p) => p.type === t)?.value ?? "";
    return `${get("year")}-${get("month")}-${get("day")} ${get("hour")}:${get("minute")} ${zone}`;
  } catch {
    return `${utc.slice(0, 16).replace("T", " ")} UTC`;
  }
}

/** `2025-06-12T06:59:00Z` → `2025-06-12 06:59 UTC`; `—` for null. For text blocks. */
export function shortUtc(utc: string | null): string {
  return utc ? `${utc.slice(0, 16).replace("T", " ")} UTC` : "—";
}

/** Hours between two UTC times (`b - a`), one decimal; null when either is missing. */
export function hoursBetween(a: string | null, b: string | null): number | null {
  if (!a || !b) return null;
  const x = Date.parse(a);
  const y = Date.parse(b);
  if (Number.isNaN(x) || Number.isNaN(y)) return null;
  return Math.round(((y - x) / HOUR_MS) * 10) / 10;
}

/** A source a box is tracked at, as {@link TrackingHealth} names it. */
export type TrackedSource = "shipping_line" | "pod_terminal" | "rail";

/**
 * Per source, when it was last asked, when it last answered and why its latest attempt failed (issue 13 §1): the
 * REST extension attributes of the container (`terminal_tracking_*`, `rail_tracking_*`) and of its shipment
 * (`line_tracking_*`), under their REST names, plus the reference's check times (UTC; null: never, or not known);
 * `failing_sources` in journey order, and one sentence per failing source (or that all answered).
 */
export const TrackingHealth = z.object({
  line_tracking_last_attempted_at: nullableString.describe("When the shipping line was last asked (UTC)."),
  line_tracking_last_succeeded_at: nullableString.describe("When the shipping line last answered (UTC)."),
  line_tracking_failed_reason: nullableString.describe(
    "Why the latest shipping line attempt failed; null when it answered. shipping_line_unreachable, unrecognized_response, shipping_line_credentials_rejected (the line refused the service's credentials: an operator configuration error).",
  ),
  terminal_tracking_last_attempted_at: nullableString.describe("When the POD terminal was last asked (UTC)."),
  terminal_tracking_failed_reason: nullableString.describe(
    "Why the latest POD terminal attempt failed; null when it answered. terminal_unreachable, unrecognized_response, terminal_credentials_rejected (the terminal refused the service's credentials: an operator configuration error).",
  ),
  pod_last_tracking_request_at: nullableString.describe(
    "When the POD terminal last answered (UTC): its facts are as of this time.",
  ),
  rail_tracking_last_attempted_at: nullableString.describe("When the inland rail ramp was last asked (UTC)."),
  rail_tracking_failed_reason: nullableString.describe(
    "Why the latest rail ramp attempt failed; null when it answered (reasons as for the terminal).",
  ),
  rail_last_tracking_request_at: nullableString.describe("When the rail ramp last answered (UTC)."),
  failing_sources: z
    .array(z.enum(["shipping_line", "pod_terminal", "rail"]))
    .describe("Sources whose latest attempt failed: their data may be stale."),
  explanation: z.string(),
});
/** See {@link TrackingHealth}. */
export type TrackingHealth = z.infer<typeof TrackingHealth>;

const SOURCE_NAMES: Record<TrackedSource, string> = {
  shipping_line: "the shipping line",
  pod_terminal: "the POD terminal",
  rail: "the inland rail ramp",
};

/** A failure reason (REST `*_failed_reason`) in words; a reason without words here is just "failed". */
export function failedReasonText(reason: string): string {
  switch (reason) {
    case "shipping_line_unreachable":
    case "terminal_unreachable":
      return "did not answer (timeout, network error or server error); retried with backoff";
    case "unrecognized_response":
      return "answered in a format the service does not recognize";
    case "shipping_line_credentials_rejected":
    case "terminal_credentials_rejected":
      return "refused the service's credentials (a configuration error for the service's operator, not the container); polls back off until it is fixed";
    default:
      return "failed";
  }
}

/**
 * The {@link TrackingHealth} of a container and its shipment. A source is failing when its `*_failed_reason` is set;
 * the data it gave is then as of its last answer (`line_tracking_last_succeeded_at`, `pod_last_tracking_request_at`,
 * `rail_last_tracking_request_at`), which the explanation names. Fields a server does not send read as null.
 */
export function trackingHealthOf(
  c: Partial<
    Pick<
      ContainerAttributes,
      | "terminal_tracking_last_attempted_at"
      | "terminal_tracking_failed_reason"
      | "pod_last_tracking_request_at"
      | "rail_tracking_last_attempted_at"
      | "rail_tracking_failed_reason"
      | "rail_last_tracking_request_at"
    >
  >,
  shipment:
    | Partial<
        Pick<
          ShipmentAttributes,
          "line_tracking_last_attempted_at" | "line_tracking_last_succeeded_at" | "line_tracking_failed_reason"
        >
      >
    | null
    | undefined,
): TrackingHealth {
  const health = {
    line_tracking_last_attempted_at: shipment?.line_tracking_last_attempted_at ?? null,
    line_tracking_last_succeeded_at: shipment?.line_tracking_last_succeeded_at ?? null,
    line_tracking_failed_reason: shipment?.line_tracking_failed_reason ?? null,
    terminal_tracking_last_attempted_at: c.terminal_tracking_last_attempted_at ?? null,
    terminal_tracking_failed_reason: c.terminal_tracking_failed_reason ?? null,
    pod_last_tracking_request_at: c.pod_last_tracking_request_at ?? null,
    rail_tracking_last_attempted_at: c.rail_tracking_last_attempted_at ?? null,
    rail_tracking_failed_reason: c.rail_tracking_failed_reason ?? null,
    rail_last_tracking_request_at: c.rail_last_tracking_request_at ?? null,
  };
  const sources: [TrackedSource, string | null, string | null, string | null][] = [
    [
      "shipping_line",
      health.line_tracking_failed_reason,
      health.line_tracking_last_attempted_at,
      health.line_tracking_last_succeeded_at,
    ],
    [
      "pod_terminal",
      health.terminal_tracking_failed_reason,
      health.terminal_tracking_last_attempted_at,
      health.pod_last_tracking_request_at,
    ],
    [
      "rail",
      health.rail_tracking_failed_reason,
      health.rail_tracking_last_attempted_at,
      health.rail_last_tracking_request_at,
    ],
  ];
  const failing = sources.filter(([, reason]) => reason !== null);
  const explanation =
    failing.length === 0
      ? "Every source asked answered at its latest attempt."
      : failing
          .map(
            ([source, reason, attempted, answered]) =>
              `${SOURCE_NAMES[source]} ${failedReasonText(reason ?? "")} (${reason}; last attempt ${shortUtc(attempted)}; its data as of its last answer, ${answered ? shortUtc(answered) : "none yet"}).`,
          )
          .map((sentence) => sentence.charAt(0).toUpperCase() + sentence.slice(1))
          .join(" ");
  return { ...health, failing_sources: failing.map(([source]) => source), explanation };
}
