import type { TerminalHold } from "../db/schema";
import type { BoxChargeFacts } from "./calculator";
import type { BlockedSpan } from "./ledger";
import { localDateOf } from "./local-dates";

/** Transport events that record availability changes (src/tracking/events.ts `diffEvents`). */
export const AVAILABILITY_EVENTS = ["container.transport.available", "container.transport.not_available"] as const;

/** The container columns the charges read (a subset of a `containers` row). */
export interface ContainerChargeRow {
  id: string;
  number: string;
  scac: string | null;
  podLocode: string | null;
  podTerminalId: string | null;
  equipmentLength: number | null;
  equipmentType: string | null;
  podTimezone: string | null;
  podDischargedAt: string | null;
  availabilityKnown: boolean;
  availableForPickup: boolean | null;
  holdsAtPodTerminal: TerminalHold[];
  terminalCheckedAt: string | null;
  podFullOutAt: string | null;
  emptyTerminatedAt: string | null;
  pickupLfdTerminal: string | null;
}

/** An availability change of a container as its transport event recorded it. */
export interface AvailabilityChange {
  event: string;
  timestamp: string | null;
}

/** The port facts the holiday calendar needs. */
export interface PortCalendarRow {
  countryCode: string;
  stateAbbr: string | null;
}

/**
 * When the box could not be picked up, and when it first could, from what tracking keeps (docs/charges.md §Days the
 * box could not be picked up). Tracking stores no history of holds, only their current list; it does store every
 * availability change as a `container.transport.available|not_available` transport event (at the time of the
 * terminal check that saw it). So:
 * - each event is a change: before a first `available` event the box was not yet available (from discharge), before
 *   a first `not_available` it was available since discharge;
 * - from each `not_available` event to the next `available` one, it was not available;
 * - with no availability event at all, the current availability stands since discharge (available: no span; not
 *   available, when the terminal reports availability: one span still open); unknown availability blocks nothing;
 * - the current active holds (status `hold`) of a box not yet out name the open span, or, when the box is reported
 *   available despite them, block from the terminal check that saw them.
 * @returns the spans, and the instant the box first became available (null while it has not).
 */
export function blockedSpansOf(
  row: ContainerChargeRow,
  changes: readonly AvailabilityChange[],
): { blocked: BlockedSpan[]; availableAt: string | null } {
  const discharged = row.podDischargedAt;
  if (!discharged) return { blocked: [], availableAt: null };
  const sorted = changes
    .filter((c): c is { event: string; timestamp: string } => c.timestamp !== null && c.timestamp >= discharged)
    .sort((a, b) => a.timestamp.localeCompare(b.timestamp));
  const blocked: BlockedSpan[] = [];
  let availableAt: string | null = null;
  let open: BlockedSpan | null = null;
  if (sorted.length === 0) {
    if (row.availableForPickup === true) availableAt = discharged;
    else if (row.availabilityKnown && row.availableForPickup === false) {
      open = { from: discharged, to: null, reason: "not available for pickup (terminal)" };
      blocked.push(open);
    }
  } else {
    // Each event is a change, so before the first one the box was in the other state: not yet available before a
    // first `available`, available since discharge before a first `not_available`.
    if (sorted[0]?.event === "container.transport.available") {
      open = { from: discharged, to: null, reason: "not yet available for pickup" };
      blocked.push(open);
    } else availableAt = discharged;
    for (const change of sorted) {
      const available = change.event === "container.transport.available";
      if (available && open) {
        open.to = change.timestamp;
        open = null;
        availableAt ??= change.timestamp;
      } else if (!available && !open) {
        open = { from: change.timestamp, to: null, reason: "not available for pickup (terminal)" };
        blocked.push(open);
      }
    }
  }
  const holds = row.holdsAtPodTerminal.filter((h) => h.status === "hold").map((h) => h.name);
  if (holds.length > 0 && !row.podFullOutAt) {
    const reason = `hold: ${holds.join(", ")}`;
    if (open) open.reason = `${open.reason}; ${reason}`;
    else blocked.push({ from: row.terminalCheckedAt ?? discharged, to: null, reason });
  }
  return { blocked: blocked.filter((s) => s.to === null || s.to > s.from), availableAt };
}

/**
 * The terminal's LFD as a local date at the POD: `import_deadlines.pickup_lfd_terminal` is served as a datetime (local
 * midnight at the POD, as UTC; REFERENCE-SERVICE §containers), sometimes as a bare date, which stands as it is.
 */
function terminalLfdOf(lfd: string | null, timeZone: string): string | null {
  if (!lfd) return null;
  if (/^\d{4}-\d{2}-\d{2}$/.test(lfd)) return lfd;
  const ms = Date.parse(lfd);
  return Number.isNaN(ms) ? null : localDateOf(ms, timeZone);
}

/**
 * The calculator's facts of a box (src/charges/calculator.ts `BoxChargeFacts`) from its row, its availability
 * changes and its POD's calendar row: the POD's time zone (UTC when unknown), the LOCODE's country and, for ports with
 * a state, the state as the holiday subdivision; the terminal's LFD as its local date at the POD (an unreadable value
 * counts as none).
 */
export function boxChargeFactsOf(
  row: ContainerChargeRow,
  changes: readonly AvailabilityChange[],
  port: PortCalendarRow | null,
): BoxChargeFacts {
  const { blocked, availableAt } = blockedSpansOf(row, changes);
  const timeZone = row.podTimezone ?? "UTC";
  return {
    scac: row.scac,
    podLocode: row.podLocode,
    podTerminalId: row.podTerminalId,
    equipmentLength: row.equipmentLength,
    equipmentType: row.equipmentType,
    timeZone,
    countryCode: port?.countryCode ?? row.podLocode?.slice(0, 2) ?? null,
    subdivision: port?.stateAbbr ?? null,
    dischargedAt: row.podDischargedAt,
    availableAt,
    fullOutAt: row.podFullOutAt,
    emptyReturnedAt: row.emptyTerminatedAt,
    terminalLfd: terminalLfdOf(row.pickupLfdTerminal, timeZone),
    blocked,
  };
}
