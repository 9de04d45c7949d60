import { type Changeset, containerChangeset } from "./changeset";
import type { ContainerState, ShipmentState } from "./derive";
import { isVesselMilestone, legacyMilestoneKeys, milestoneIdentity, milestoneSiteAlias } from "./identity";
import type { Milestone, MilestoneName } from "./sources/types";

/** Where an event's information came from (`data_source` of docs/api.md §Transport event resource). */
export type DataSource = "shipping_line" | "terminal";

/**
 * A transport event to record for each subscribed container (a `transport_events` row,
 * docs/api.md §Transport event resource): an actual milestone, an estimate change (`container.transport.estimated.*`),
 * an availability change (`container.transport.available|not_available`) or a value change
 * (`container.pickup_lfd*.changed`, `container.pickup_appointment.changed`, with the new value in `value`).
 */
export interface TransportEventRecord {
  kind: "transport_event";
  /** Full event name, e.g. `container.transport.vessel_discharged`. */
  event: string;
  /** Stable identity of the fact, so recording it twice writes one row (ids are derived from it). */
  key: string;
  /**
   * Null when the fact is recorded for the first time. For a corrected actual (same identity, new time, see
   * src/tracking/identity.ts) the corrected time: the row of `key` is updated in place, and the announcement of the
   * correction is a notification of its own (its id derives from this), so receivers hear of it exactly once.
   */
  revision: string | null;
  /**
   * True for the carrier's copy of an actual first recorded from a terminal (issue 14): its row is updated in place
   * (the carrier's time, vessel and facility) and its raw event kept, but nothing is announced: receivers already
   * heard of the move from the terminal. Absent or false otherwise.
   */
  quiet?: boolean;
  timestamp: string | null;
  locationLocode: string | null;
  facilityCode: string | null;
  vesselName: string | null;
  vesselImo: string | null;
  voyageNumber: string | null;
  value: string | null;
  dataSource: DataSource;
  /** The milestone behind it, kept as a raw event when it is an upstream event. */
  milestone: Milestone | null;
}

/** `container.updated` with its changeset (docs/webhooks.md §Payloads). */
export interface ContainerUpdatedRecord {
  kind: "container_updated";
  changeset: Changeset;
  timestamp: string;
  dataSource: DataSource;
}

/** `shipment.estimated.arrival`: the POD ETA changed (docs/webhooks.md §Payloads estimated_event). */
export interface EstimatedArrivalRecord {
  kind: "shipment_estimated_arrival";
  estimatedTimestamp: string;
  locationLocode: string | null;
  voyageNumber: string | null;
}

/** `container.pod_terminal_changed`. */
export interface PodTerminalChangedRecord {
  kind: "pod_terminal_changed";
  previousTerminalId: string | null;
  terminalId: string | null;
}

/** Everything one update of a box announces. */
export type EngineEvent =
  | TransportEventRecord
  | ContainerUpdatedRecord
  | EstimatedArrivalRecord
  | PodTerminalChangedRecord;

/**
 * The key identifying an actual milestone: its identity (what, where, on which transport; never the upstream event
 * id nor the time), see {@link milestoneIdentity}.
 */
export function milestoneKey(m: Milestone): string {
  return milestoneIdentity(m);
}

/** What the engine recorded of one actual milestone. */
export interface RecordedActual {
  /** The key its rows were written under (their ids derive from it): its identity, or a pre-identity key. */
  key: string;
  /** Its time as last recorded (UTC ISO). */
  timestamp: string;
  /**
   * `terminal` while the fact is known from a terminal only (src/tracking/terminal-milestones.ts); absent once the
   * carrier reported it (and for every carrier-sourced fact).
   */
  dataSource?: "terminal";
}

/**
 * Recorded actual milestones by identity ({@link milestoneIdentity}), and the discharges, full-outs and empty returns
 * also by their site alias ({@link milestoneSiteAlias}), so a terminal's and the carrier's copy of one move match.
 */
export type RecordedActuals = Readonly<Record<string, RecordedActual>>;

/**
 * The actual milestones of a report, one per identity, oldest first. A source that reports one move twice with two
 * times (the original and its correction) lists the correction later or with the later time; the later wins.
 */
function actualsByIdentity(sorted: Milestone[]): Map<string, Milestone> {
  const byIdentity = new Map<string, Milestone>();
  for (const m of sorted) if (!m.estimated) byIdentity.set(milestoneIdentity(m), m);
  return byIdentity;
}

/**
 * How the previous update recorded the milestone of `identity`: from the recorded actuals, else (a snapshot written
 * before identities existed) adopted from a pre-identity key, at the time reported now.
 */
function recordedOf(
  identity: string,
  m: Milestone,
  actuals: RecordedActuals | undefined,
  legacyKeys: ReadonlySet<string>,
): RecordedActual | null {
  const recorded = actuals?.[identity];
  if (recorded) return recorded;
  const legacy = legacyMilestoneKeys(m).find((k) => legacyKeys.has(k));
  return legacy ? { key: legacy, timestamp: m.timestamp } : null;
}

/**
 * What one update does with one actual milestone: `new` (record it), `correction` (same fact, new time: update in
 * place and announce), `confirmation` (the carrier's copy of a terminal-sourced fact: update in place quietly) or
 * nothing; and what to remember of it afterwards.
 */
interface ActualResolution {
  milestone: Milestone;
  dataSource: DataSource;
  action: "new" | "correction" | "confirmation" | null;
  /** The key its rows carry. */
  key: string;
  after: RecordedActual;
}

/**
 * Resolves the actuals of one update against what was recorded, the carrier's first, then the terminal's
 * (src/tracking/terminal-milestones.ts). A milestone is found by its identity (or a pre-identity key); failing that,
 * by its site alias when that names a fact recorded from a terminal (for the carrier's copy) or any fact (for the
 * terminal's copy) — see src/tracking/identity.ts. Rules, both orders of issue 14's dedup:
 * - not found → `new`, remembered with its source;
 * - the carrier's copy of a terminal-sourced fact → `confirmation` (even at the same time: the row takes the
 *   carrier's vessel and facility), remembered as the carrier's from then on;
 * - the terminal's copy of a carrier's fact → nothing; the recorded time stays (the carrier's copy wins);
 * - otherwise (same source) → `correction` when the time differs, else nothing.
 */
function resolveActuals(
  previous: PreviousSnapshot,
  carrierMilestones: Milestone[],
  terminalMilestones: Milestone[],
): ActualResolution[] {
  const recorded: Record<string, RecordedActual> = { ...previous.recordedActuals };
  const out: ActualResolution[] = [];
  const visit = (m: Milestone, dataSource: DataSource) => {
    const identity = milestoneIdentity(m);
    const alias = milestoneSiteAlias(m);
    let found = recordedOf(identity, m, recorded, previous.recordedKeys);
    if (!found && alias) {
      const byAlias = recorded[alias];
      if (byAlias && (dataSource === "terminal" || byAlias.dataSource === "terminal")) found = byAlias;
    }
    const fromTerminal = dataSource === "terminal" ? { dataSource: "terminal" as const } : {};
    let resolution: ActualResolution;
    if (!found) {
      resolution = {
        milestone: m,
        dataSource,
        action: "new",
        key: identity,
        after: { key: identity, timestamp: m.timestamp, ...fromTerminal },
      };
    } else if (dataSource === "shipping_line" && found.dataSource === "terminal") {
      const after = { key: found.key, timestamp: m.timestamp };
      resolution = { milestone: m, dataSource, action: "confirmation", key: found.key, after };
    } else if (dataSource === "terminal" && found.dataSource !== "terminal") {
      const after = { key: found.key, timestamp: found.timestamp };
      resolution = { milestone: m, dataSource, action: null, key: found.key, after };
    } else {
      const after = { key: found.key, timestamp: m.timestamp, ...fromTerminal };
      const action = found.timestamp !== m.timestamp ? "correction" : null;
      resolution = { milestone: m, dataSource, action, key: found.key, after };
    }
    recorded[identity] = resolution.after;
    if (alias) recorded[alias] = resolution.after;
    out.push(resolution);
  };
  for (const m of actualsByIdentity(byTime(carrierMilestones)).values()) visit(m, "shipping_line");
  for (const m of actualsByIdentity(byTime(terminalMilestones)).values()) visit(m, "terminal");
  return out;
}

/** Estimates announced as `container.transport.estimated.*` when their time changes. */
const ESTIMATED_EVENTS: MilestoneName[] = [
  "container.transport.vessel_departed",
  "container.transport.vessel_arrived",
  "container.transport.arrived_at_inland_destination",
];

/** Milestones oldest first (a stable sort: equal times keep the order they were reported in). */
function byTime(milestones: Milestone[]): Milestone[] {
  return [...milestones].sort((a, b) => (a.timestamp < b.timestamp ? -1 : a.timestamp > b.timestamp ? 1 : 0));
}

/** The estimate of each of `ESTIMATED_EVENTS` a box currently has (of `sorted`, the last one per event). */
function currentEstimates(sorted: Milestone[]): Milestone[] {
  return ESTIMATED_EVENTS.flatMap((name) => {
    let latest: Milestone | null = null;
    for (const m of sorted) if (m.estimated && m.event === name) latest = m;
    return latest ? [latest] : [];
  });
}

/** The key remembering an estimate's current time, so an unchanged estimate is not announced again. */
function estimateKey(m: Milestone): string {
  return `est|${m.event}|${m.locationLocode ?? ""}|${m.timestamp}`;
}

/**
 * Value changes announced as `*.changed` transport events (docs/api.md §Transport event names #26–30), by
 * `ContainerState` field.
 */
const VALUE_CHANGE_EVENTS: [keyof ContainerState, string][] = [
  ["pickupLfd", "container.pickup_lfd.changed"],
  ["pickupLfdLine", "container.pickup_lfd_line.changed"],
  ["pickupLfdTerminal", "container.pickup_lfd_terminal.changed"],
  ["pickupLfdRail", "container.pickup_lfd_rail.changed"],
  ["pickupAppointmentAt", "container.pickup_appointment.changed"],
];

const DATA_SOURCE_OF_VALUE: Record<string, DataSource> = {
  "container.pickup_lfd_line.changed": "shipping_line",
};

function fromMilestone(
  m: Milestone,
  event: string,
  key: string,
  revision: string | null = null,
  dataSource: DataSource = "shipping_line",
): TransportEventRecord {
  // Rail, truck and gate moves carry their own mode, never a vessel (whatever a source attached to them).
  const onVessel = isVesselMilestone(m.event);
  return {
    kind: "transport_event",
    event,
    key,
    revision,
    timestamp: m.timestamp,
    locationLocode: m.locationLocode,
    facilityCode: m.facilityCode,
    vesselName: onVessel ? m.vesselName : null,
    vesselImo: onVessel ? m.vesselImo : null,
    voyageNumber: onVessel ? m.voyageNumber : null,
    value: null,
    dataSource,
    milestone: m,
  };
}

/** What the previous update left behind, to diff against. */
export interface PreviousSnapshot {
  state: ContainerState | null;
  shipment: ShipmentState | null;
  /** Keys of facts already recorded: estimates (and, in snapshots older than identities, milestones). */
  recordedKeys: ReadonlySet<string>;
  /** Actual milestones recorded so far, by identity; absent in snapshots older than identities. */
  recordedActuals?: RecordedActuals;
}

/**
 * The events one update of a box produces (docs/architecture.md §Tracking pipeline step 4), by diffing the new derived
 * state, the carrier's milestones and the facilities' (`terminalMilestones`, src/tracking/terminal-milestones.ts)
 * against the previous snapshot:
 * - each actual milestone whose identity (src/tracking/identity.ts) was not recorded before → its transport event
 *   (`data_source` `terminal` for a facility's); one recorded before at another time → the same event corrected
 *   (same key, `revision` = the new time); one recorded at the same time → nothing, whatever its upstream id (a
 *   re-issued event updates nothing); the carrier's copy of a move a terminal reported first → the same event,
 *   updated in place with `quiet` (no second announcement); a facility's copy of a carrier's move → nothing
 *   (see `resolveActuals`);
 * - each estimate (POL departure, POD arrival, inland arrival) whose time changed →
 *   `container.transport.estimated.*`;
 * - availability turning true/false → `container.transport.available|not_available` (terminal data);
 * - LFDs and the appointment changing → `container.*.changed` with the new value;
 * - alertable attributes changing → one `container.updated` with the changeset;
 * - the POD ETA changing → `shipment.estimated.arrival`; the POD terminal changing → `pod_terminal_changed`.
 * On the first snapshot (no previous state) only milestones are recorded: the container's creation is
 * announced elsewhere, and its starting values are not changes.
 */
export function diffEvents(
  previous: PreviousSnapshot,
  milestones: Milestone[],
  next: ContainerState,
  nextShipment: ShipmentState,
  nowIso: string,
  terminalMilestones: Milestone[] = [],
): EngineEvent[] {
  const events: EngineEvent[] = [];
  const seen = new Set(previous.recordedKeys);
  const sorted = byTime(milestones);
  for (const r of resolveActuals(previous, milestones, terminalMilestones)) {
    const m = r.milestone;
    if (r.action === "new") events.push(fromMilestone(m, m.event, r.key, null, r.dataSource));
    else if (r.action === "correction") events.push(fromMilestone(m, m.event, r.key, m.timestamp, r.dataSource));
    else if (r.action === "confirmation") {
      events.push({ ...fromMilestone(m, m.event, r.key, m.timestamp, r.dataSource), quiet: true });
    }
  }
  if (previous.state) {
    for (const latest of currentEstimates(sorted)) {
      const key = estimateKey(latest);
      if (seen.has(key)) continue;
      seen.add(key);
      // The event's own key names this announcement (an estimate may come back to an earlier time and is then
      // announced again); replaying the same update gives the same key, so it is still written once.
      const event = latest.event.replace("container.transport.", "container.transport.estimated.");
      events.push(fromMilestone(latest, event, `${key}|${nowIso}`));
    }
    const prev = previous.state;
    if (
      next.availabilityKnown &&
      next.availableForPickup !== null &&
      prev.availableForPickup !== next.availableForPickup
    ) {
      const event = next.availableForPickup ? "container.transport.available" : "container.transport.not_available";
      events.push(terminalEvent(event, `${event}|${next.terminalCheckedAt ?? nowIso}`, next, null, nowIso));
    }
    for (const [field, event] of VALUE_CHANGE_EVENTS) {
      const before = prev[field] as string | null;
      const after = next[field] as string | null;
      if (before === after) continue;
      events.push({
        ...terminalEvent(event, `${event}|${after ?? "null"}|${nowIso}`, next, after, nowIso),
        dataSource: DATA_SOURCE_OF_VALUE[event] ?? "terminal",
      });
    }
    const changeset = containerChangeset(prev, next);
    if (Object.keys(changeset).length > 0) {
      const fromLine = Object.keys(changeset).every((k) => k === "pickup_lfd_line" || k === "pickup_lfd");
      events.push({
        kind: "container_updated",
        changeset,
        timestamp: next.terminalCheckedAt ?? nowIso,
        dataSource: fromLine ? "shipping_line" : "terminal",
      });
    }
    if (prev.podTerminalId !== next.podTerminalId) {
      events.push({
        kind: "pod_terminal_changed",
        previousTerminalId: prev.podTerminalId,
        terminalId: next.podTerminalId,
      });
    }
  }
  if (previous.shipment && nextShipment.podEtaAt && previous.shipment.podEtaAt !== nextShipment.podEtaAt) {
    events.push({
      kind: "shipment_estimated_arrival",
      estimatedTimestamp: nextShipment.podEtaAt,
      locationLocode: nextShipment.portOfDischargeLocode,
      voyageNumber: nextShipment.podVoyageNumber,
    });
  }
  return events;
}

function terminalEvent(
  event: string,
  key: string,
  state: ContainerState,
  value: string | null,
  nowIso: string,
): TransportEventRecord {
  return {
    kind: "transport_event",
    event,
    key,
    revision: null,
    timestamp: state.terminalCheckedAt ?? nowIso,
    locationLocode: state.podLocode,
    facilityCode: null,
    vesselName: null,
    vesselImo: null,
    voyageNumber: null,
    value,
    dataSource: "terminal",
    milestone: null,
  };
}

/**
 * The keys to remember for the next diff after an update that saw `milestones`: the current time of each estimate
 * (also on the first snapshot, whose estimates are starting values, not changes). An estimate the update did not see
 * keeps its last known time. Actual milestones are remembered by {@link recordedActualsAfter}; pre-identity keys of
 * older snapshots are kept, so their milestones can still be adopted.
 */
export function recordedKeysAfter(previous: ReadonlySet<string>, milestones: Milestone[]): Set<string> {
  const current = currentEstimates(byTime(milestones));
  const replaced = current.map((m) => `est|${m.event}|`);
  const keys = new Set([...previous].filter((k) => !replaced.some((prefix) => k.startsWith(prefix))));
  for (const m of current) keys.add(estimateKey(m));
  return keys;
}

/**
 * The actual milestones to remember after an update that saw `milestones` and `terminalMilestones` (and recorded
 * what {@link diffEvents} returned for them): each identity (and site alias) with the key its rows carry, its time
 * as now recorded and whether only a terminal reported it. A milestone the update did not see stays as it was (a
 * source that stops reporting an event does not retract it).
 */
export function recordedActualsAfter(
  previous: PreviousSnapshot,
  milestones: Milestone[],
  terminalMilestones: Milestone[] = [],
): Record<string, RecordedActual> {
  const next: Record<string, RecordedActual> = { ...previous.recordedActuals };
  for (const r of resolveActuals(previous, milestones, terminalMilestones)) {
    next[milestoneIdentity(r.milestone)] = r.after;
    const alias = milestoneSiteAlias(r.milestone);
    if (alias) next[alias] = r.after;
  }
  return next;
}
