/**
 * The Tracker's state and its pure transitions (src/tracking/tracker.ts is the Durable Object that stores the state,
 * writes D1 and sets alarms): what a Tracker keeps ({@link TrackerSnapshot}), what a poll's answers change in it
 * ({@link pollTransition}), what an update derives from the facts ({@link updateTransition}), and when the box is
 * polled next ({@link rescheduleTransition}). No I/O, no clock: times come in as arguments, and the speed-up of a
 * simulated world (`SourceRegistry.speedUpFor`) as a number.
 */
import { toIsoSeconds } from "../lib/clock";
import type { FacilityAttempts, Subscription } from "./box-writes";
import { type ContainerState, deriveContainerState, deriveShipmentState, type ShipmentState } from "./derive";
import {
  diffEvents,
  type EngineEvent,
  type PreviousSnapshot,
  type RecordedActuals,
  recordedActualsAfter,
  recordedKeysAfter,
} from "./events";
import { milestoneIdentity } from "./identity";
import { facilitiesToPoll, hasInlandLeg, nextPollDelayMs, pollRetryDelayMs } from "./schedule";
import type { OutageSource } from "./source-outages";
import type { SourceRegistry } from "./sources";
import {
  type ContainerFacts,
  type LookupResult,
  type ShipmentFacts,
  TERMINAL_CREDENTIALS_REJECTED,
  type TerminalObservation,
  type TerminalPollResult,
} from "./sources/types";
import { terminalMilestones } from "./terminal-milestones";

/** Which box a Tracker follows. Its Durable Object name is `trackerName(scac, number)`. */
export interface BoxIdentity {
  trackedEquipmentId: string;
  /** The line's own SCAC. */
  scac: string;
  /** ISO 6346 container number. */
  number: string;
  /** BL or booking number the box is polled by at the carrier (or the container number itself). */
  shipmentNumber: string;
  /** `request_type` of the tracking request that found the box. */
  requestType: string;
}

/** The Durable Object name of the Tracker of one box: one per SCAC + container number, shared by accounts. */
export function trackerName(scac: string, number: string): string {
  return `${scac}:${number}`;
}

/** What the poll consumer needs to poll a box. */
export interface PollPlan extends BoxIdentity {
  /**
   * Facility code of the POD terminal to ask about the box (availability, holds, fees, discharge); null when none
   * is asked (not named yet, or a rail move whose box has left the POD). See `facilitiesToPoll` (schedule.ts).
   */
  facilityCode: string | null;
  /** Facility code of the inland rail ramp to ask (a move with a rail leg, from the POD discharge on); else null. */
  railFacilityCode: string | null;
  /** When tracking of the box began (ms); simulated journeys are anchored on it. */
  trackingStartedAtMs: number;
  stopped: boolean;
  /**
   * The box's bill of lading for terminals that ask container and BL together (Port of Virginia, docs/terminals.md
   * §Port of Virginia API): the tracked number of a BL request; for a container request the BL its carrier reported
   * (when it is not the container number itself, DCSA's last resort); null for a booking request (the carrier's number
   * is then the booking) or when unknown.
   */
  billOfLadingNumber: string | null;
}

/**
 * The sources a poll of this box asks, by their names (`CarrierSource.name`, `TerminalSource.name`: "Shipping line",
 * "Terminal"), in that order and each once: the carrier source serving the SCAC, and the terminal sources serving the
 * POD terminal and the inland ramp to poll. A facility no source serves is not asked, so it is not named
 * (`PATCH /containers/{id}/refresh` answers with these, docs/decisions.md §Containers "the sources actually queued").
 */
export function queuedSourceNames(
  plan: Pick<PollPlan, "scac" | "facilityCode" | "railFacilityCode">,
  registry: Pick<SourceRegistry, "carriers" | "terminals">,
): string[] {
  const names: string[] = [];
  const carrier = registry.carriers.find((s) => s.supports(plan.scac));
  if (carrier) names.push(carrier.name);
  for (const code of [plan.facilityCode, plan.railFacilityCode]) {
    const terminal = code ? registry.terminals.find((s) => s.supports(code, plan.scac)) : undefined;
    if (terminal && !names.includes(terminal.name)) names.push(terminal.name);
  }
  return names;
}

/**
 * While a healthy push subscription covers a box (issue 13 §4: the carrier POSTs its new events to us,
 * src/callbacks/), polling is only the safety net: the poll interval of the box's state is multiplied by this factor
 * (4: a box polled hourly is polled every 4 h). Retries after failures keep their own, unscaled, backoff.
 */
export const PUSH_POLL_INTERVAL_FACTOR = 4;

/** How a Tracker reports a carrier refusing our credentials, once per outage (issue 13 §1). */
const CREDENTIALS_REJECTED = "shipping_line_credentials_rejected";

/** The failure reasons that make a source outage the accounts are told about (src/tracking/source-outages.ts). */
export const CREDENTIAL_FAILURES: ReadonlySet<string> = new Set([CREDENTIALS_REJECTED, TERMINAL_CREDENTIALS_REJECTED]);

/** A poll's outcome as handed to the Tracker: each source's answer, or null if it was not asked. */
export interface PollResults {
  carrier: LookupResult | null;
  /** The POD terminal's answer (`PollPlan.facilityCode`). */
  terminal: TerminalPollResult | null;
  /** The inland rail ramp's answer (`PollPlan.railFacilityCode`); absent or null when it was not asked. */
  rail?: TerminalPollResult | null;
  /** When the poll ran (ms). */
  polledAtMs: number;
}

/** What an update did, for callers and tests. */
export interface UpdateOutcome {
  applied: boolean;
  events: string[];
  currentStatus: ContainerState["currentStatus"] | null;
  nextPollAt: string | null;
}

/** Everything a Tracker keeps in its storage (one key, written after each successful D1 write). */
export interface TrackerSnapshot {
  box: BoxIdentity;
  startedAtMs: number;
  subscriptions: Subscription[];
  shipment: ShipmentFacts | null;
  container: ContainerFacts | null;
  terminal: TerminalObservation | null;
  state: ContainerState | null;
  shipmentState: ShipmentState | null;
  recordedKeys: string[];
  /**
   * Actual milestones recorded so far, by identity (src/tracking/identity.ts): the key their rows carry and their
   * recorded time. Absent in snapshots written before identities existed (their milestone keys are in
   * `recordedKeys`, and are adopted from there).
   */
  recordedActuals?: RecordedActuals;
  rawCount: number;
  consecutiveFailures: number;
  /**
   * Last time the carrier / the POD terminal answered for this box (UTC ISO), or null. A poll that failed (no
   * answer, timeout) never advances them: `shipment_` / `pod_last_tracking_request_at`.
   */
  carrierCheckedAt: string | null;
  terminalCheckedAt: string | null;
  /** The same for the inland rail ramp (`rail_last_tracking_request_at`). Absent in older snapshots. */
  railCheckedAt?: string | null;
  /**
   * Last time the carrier was asked about this box, answered or not (`line_tracking_last_attempted_at`; issue 13
   * §1), and why that attempt failed (`line_tracking_failed_reason`: the source's temporary-failure reason, null when
   * it answered). Absent in older snapshots (`carrierCheckedAt` then stands for the last attempt).
   */
  carrierAttemptedAt?: string | null;
  carrierFailedReason?: string | null;
  /**
   * The same for the POD terminal (`terminal_tracking_last_attempted_at`, `terminal_tracking_failed_reason`) and the
   * inland rail ramp (`rail_tracking_*`), extensions of issue 13 §1. Absent in older snapshots (never recorded).
   */
  terminalAttemptedAt?: string | null;
  terminalFailedReason?: string | null;
  railAttemptedAt?: string | null;
  railFailedReason?: string | null;
  /**
   * On a move with a rail leg, the POD terminal's last observation of the box (`terminal` is then the inland
   * ramp's, the pickup facility), and when it was asked for (ms). Absent in older snapshots.
   */
  podTerminal?: TerminalObservation | null;
  podTerminalFactsAtMs?: number;
  /**
   * When the carrier's / the terminal's facts kept here were asked for (ms): an answer to an older poll is stale.
   * Absent in snapshots written before they existed.
   */
  carrierFactsAtMs?: number;
  terminalFactsAtMs?: number;
  deliveredAt: string | null;
  stopped: boolean;
  nextPollAt: string | null;
  /**
   * A healthy upstream push subscription covers this box (src/callbacks/lifecycle.ts): polls are spaced
   * {@link PUSH_POLL_INTERVAL_FACTOR} times further apart. Absent in older snapshots (no subscription).
   */
  pushSubscribed?: boolean;
}

/** The snapshot of a box nobody tracked before: nothing known, nothing recorded, not stopped. */
export function newSnapshot(box: BoxIdentity, trackingStartedAtMs: number): TrackerSnapshot {
  return {
    box,
    startedAtMs: trackingStartedAtMs,
    subscriptions: [],
    shipment: null,
    container: null,
    terminal: null,
    state: null,
    shipmentState: null,
    recordedKeys: [],
    rawCount: 0,
    consecutiveFailures: 0,
    carrierCheckedAt: null,
    terminalCheckedAt: null,
    deliveredAt: null,
    stopped: false,
    nextPollAt: null,
  };
}

/** An outcome that applied nothing: the box's status and next poll as they were. */
export function notApplied(snap: TrackerSnapshot | null, nextPollAt: string | null): UpdateOutcome {
  return { applied: false, events: [], currentStatus: snap?.state?.currentStatus ?? null, nextPollAt };
}

/** The bill of lading of a box, as {@link PollPlan.billOfLadingNumber} describes. */
function billOfLadingOf(box: BoxIdentity, shipment: ShipmentFacts | null): string | null {
  if (box.requestType === "bill_of_lading") return box.shipmentNumber;
  if (box.requestType !== "container") return null;
  const reported = shipment?.billOfLadingNumber?.trim();
  return reported && reported.toUpperCase() !== box.number.toUpperCase() ? reported : null;
}

/** The poll plan of a snapshot: its box, the facilities to ask now (schedule.ts `facilitiesToPoll`) and its BL. */
export function pollPlanOf(snap: TrackerSnapshot): PollPlan {
  const { podTerminalCode, inlandRampCode } = facilitiesToPoll(snap.shipment, snap.state);
  return {
    ...snap.box,
    facilityCode: podTerminalCode,
    railFacilityCode: inlandRampCode,
    trackingStartedAtMs: snap.startedAtMs,
    stopped: snap.stopped,
    billOfLadingNumber: billOfLadingOf(snap.box, snap.shipment),
  };
}

/** A regular poll delay (ms, or null: no more polls), spaced out while a push subscription covers the box. */
function pushSpaced(snap: Pick<TrackerSnapshot, "pushSubscribed">, delayMs: number | null): number | null {
  return delayMs !== null && snap.pushSubscribed ? delayMs * PUSH_POLL_INTERVAL_FACTOR : delayMs;
}

/**
 * One facility's poll as the container records it (issue 13 §1): the attempt time and failure reason after `result`
 * (null or absent: the facility was not asked), and whether the reason changed (`null`: no attempt recorded, as when
 * a newer attempt was recorded already). A `temporary_failure` keeps its reason; an answer clears it.
 */
export function facilityAttempt(
  result: TerminalPollResult | null | undefined,
  previousAttemptedAt: string | null,
  previousFailedReason: string | null,
  nowIso: string,
): { attemptedAt: string | null; failedReason: string | null; changed: boolean | null } {
  if (!result || (previousAttemptedAt !== null && previousAttemptedAt > nowIso)) {
    return { attemptedAt: previousAttemptedAt, failedReason: previousFailedReason, changed: null };
  }
  const failedReason = result.kind === "temporary_failure" ? result.reason : null;
  return { attemptedAt: nowIso, failedReason, changed: failedReason !== previousFailedReason };
}

/** The facility attempts a snapshot holds (null where never recorded). */
export function attemptsOf(snap: TrackerSnapshot): FacilityAttempts {
  return {
    terminalAttemptedAt: snap.terminalAttemptedAt ?? null,
    terminalFailedReason: snap.terminalFailedReason ?? null,
    railAttemptedAt: snap.railAttemptedAt ?? null,
    railFailedReason: snap.railFailedReason ?? null,
  };
}

/** A source's failure reason before and after a poll, and whether the poll asked it (source-outages.ts). */
export interface OutageChange {
  source: OutageSource;
  attempted: boolean;
  before: string | null;
  after: string | null;
}

/** The carrier's and the terminal's facts an update applies (each null when the poll brought none). */
export interface CarrierFacts {
  shipment: ShipmentFacts;
  container: ContainerFacts;
}

/**
 * What a poll's answers do to a Tracker ({@link pollTransition}): the source outages to report first, then one of
 * - `stale`: every answer with facts was overtaken by a newer poll; nothing changes;
 * - `reschedule`: no facts to apply; `snap` records the attempts and checks, and the box is polled again (sooner when
 *   `failed`); `lineAttemptChanged` / `facilityAttemptChanged` as `Tracker.reschedule` takes them;
 * - `update`: facts to apply to `snap` (the attempts recorded): the carrier's, the pickup facility's, or both.
 */
export interface PollTransition {
  outageChanges: OutageChange[];
  next:
    | { kind: "stale" }
    | {
        kind: "reschedule";
        snap: TrackerSnapshot;
        failed: boolean;
        lineAttemptChanged: boolean | null;
        facilityAttemptChanged: boolean | null;
      }
    | {
        kind: "update";
        snap: TrackerSnapshot;
        carrier: CarrierFacts | null;
        terminal: TerminalObservation | null;
        carrierChecked: boolean;
        terminalChecked: boolean;
        partialFailure: boolean;
      };
}

/**
 * What one poll's answers change (docs/architecture.md §Tracking pipeline step 4), for a Tracker that is subscribed and
 * not stopped:
 * - an answer to a poll older than the facts kept (`*FactsAtMs`) is stale and applies nothing (a poll overtaken by a
 *   newer one must not move the box back in time);
 * - without an inland leg the POD terminal is the pickup facility; on a rail move the ramp is, and the POD terminal's
 *   answer is kept apart (`podTerminal`) for the time the box waits there for the train;
 * - every carrier attempt is recorded, answered or not (issue 13 §1), unless a newer attempt was; each facility's
 *   attempt as {@link facilityAttempt} says; a facility was checked when it answered (found or not found);
 * - a temporary failure of any source, or a carrier answer without this box, fails the poll (retried sooner);
 * - the outages to report: each source's failure reason before and after (the Tracker reports those that changed).
 */
export function pollTransition(snap: TrackerSnapshot, results: PollResults): PollTransition {
  const older = (keptAtMs: number | undefined) => keptAtMs !== undefined && results.polledAtMs < keptAtMs;
  const staleCarrier = results.carrier?.kind === "found" && older(snap.carrierFactsAtMs);
  let carrier: CarrierFacts | null = null;
  if (results.carrier?.kind === "found" && !staleCarrier) {
    const container = results.carrier.shipment.containers.find((c) => c.number === snap.box.number);
    if (container) carrier = { shipment: results.carrier.shipment, container };
  }
  const shipmentNow = carrier?.shipment ?? snap.shipment;
  const railMove = shipmentNow !== null && hasInlandLeg(shipmentNow);
  const pickupResult = railMove ? (results.rail ?? null) : results.terminal;
  const podResult = railMove ? results.terminal : null;
  const stalePickup = pickupResult?.kind === "found" && older(snap.terminalFactsAtMs);
  const stalePod = podResult?.kind === "found" && older(snap.podTerminalFactsAtMs);
  const terminal = pickupResult?.kind === "found" && !stalePickup ? pickupResult.observation : null;
  const podTerminal = podResult?.kind === "found" && !stalePod ? podResult.observation : null;
  const nowIso = toIsoSeconds(results.polledAtMs);
  const attempted =
    results.carrier !== null && !staleCarrier && !(snap.carrierAttemptedAt != null && snap.carrierAttemptedAt > nowIso);
  const failedReason = results.carrier?.kind === "temporary_failure" ? results.carrier.reason : null;
  const lineAttempt = attempted
    ? { carrierAttemptedAt: nowIso, carrierFailedReason: failedReason }
    : {
        carrierAttemptedAt: snap.carrierAttemptedAt ?? snap.carrierCheckedAt,
        carrierFailedReason: snap.carrierFailedReason ?? null,
      };
  const podAttempt = facilityAttempt(
    results.terminal,
    snap.terminalAttemptedAt ?? null,
    snap.terminalFailedReason ?? null,
    nowIso,
  );
  const railAttempt = facilityAttempt(
    results.rail,
    snap.railAttemptedAt ?? null,
    snap.railFailedReason ?? null,
    nowIso,
  );
  const facilities = facilitiesToPoll(snap.shipment, snap.state);
  const outageChanges: OutageChange[] = [
    {
      source: { sourceType: "shipping_line", sourceCode: snap.box.scac },
      attempted,
      before: snap.carrierFailedReason ?? null,
      after: failedReason,
    },
    {
      source: { sourceType: "terminal", sourceCode: facilities.podTerminalCode ?? "" },
      attempted: podAttempt.changed !== null,
      before: snap.terminalFailedReason ?? null,
      after: podAttempt.failedReason,
    },
    {
      source: { sourceType: "terminal", sourceCode: facilities.inlandRampCode ?? "" },
      attempted: railAttempt.changed !== null,
      before: snap.railFailedReason ?? null,
      after: railAttempt.failedReason,
    },
  ];
  const facilityAttempts: Partial<TrackerSnapshot> = {
    terminalAttemptedAt: podAttempt.attemptedAt,
    terminalFailedReason: podAttempt.failedReason,
    railAttemptedAt: railAttempt.attemptedAt,
    railFailedReason: railAttempt.failedReason,
  };
  // A facility was checked when it answered (found or not_found); a temporary failure (unreachable, timeout)
  // or an overtaken answer is no check, so the `*_last_tracking_request_at` it feeds stays as it was.
  const answered = (r: TerminalPollResult | null | undefined, stale: boolean) =>
    (r?.kind === "found" || r?.kind === "not_found") && !stale;
  const podChecked = answered(results.terminal, railMove ? stalePod : stalePickup);
  const railChecked = railMove && answered(results.rail, stalePickup);
  const failed =
    results.carrier?.kind === "temporary_failure" ||
    results.terminal?.kind === "temporary_failure" ||
    results.rail?.kind === "temporary_failure" ||
    (results.carrier !== null && !carrier && !staleCarrier && results.carrier?.kind !== "not_found");
  if (!carrier && !terminal && !podTerminal) {
    if (staleCarrier || stalePickup || stalePod) return { outageChanges, next: { kind: "stale" } };
    // No facts to apply; a facility that answered "not found" was still checked, and every attempt is recorded.
    const facilityChanged =
      podAttempt.changed === null && railAttempt.changed === null
        ? null
        : Boolean(podAttempt.changed || railAttempt.changed);
    return {
      outageChanges,
      next: {
        kind: "reschedule",
        snap: {
          ...snap,
          ...lineAttempt,
          ...facilityAttempts,
          terminalCheckedAt: podChecked ? nowIso : snap.terminalCheckedAt,
          railCheckedAt: railChecked ? nowIso : (snap.railCheckedAt ?? null),
        },
        failed,
        lineAttemptChanged: attempted ? failedReason !== (snap.carrierFailedReason ?? null) : null,
        facilityAttemptChanged: facilityChanged,
      },
    };
  }
  return {
    outageChanges,
    next: {
      kind: "update",
      snap: {
        ...snap,
        ...lineAttempt,
        ...facilityAttempts,
        podTerminal: podTerminal ?? snap.podTerminal ?? null,
        podTerminalFactsAtMs: podTerminal ? results.polledAtMs : snap.podTerminalFactsAtMs,
        railCheckedAt: railChecked ? nowIso : (snap.railCheckedAt ?? null),
      },
      carrier,
      terminal,
      carrierChecked: results.carrier !== null,
      terminalChecked: podChecked,
      partialFailure: failed,
    },
  };
}

/** What an update applies ({@link updateTransition}'s input besides the snapshot). */
export interface UpdateInput {
  /** The carrier's facts of this poll or lookup, or null (the snapshot's stand). */
  carrier: CarrierFacts | null;
  /** The pickup facility's observation of this poll, or null (the snapshot's stands). */
  terminal: TerminalObservation | null;
  /** When the facts were asked for (ms). */
  nowMs: number;
  /** Container rows joining the box with this update: they get its whole history. */
  joining: Subscription[];
  /** The carrier was asked by this poll (its check time advances when it answered with facts). */
  carrierChecked: boolean;
  /** The POD terminal answered this poll. */
  terminalChecked: boolean;
  /** A source failed this poll though others answered: the next poll is a retry. */
  partialFailure: boolean;
  /** How much faster than real time the box's world moves (`SourceRegistry.speedUpFor`). */
  speedUp: number;
}

/**
 * What an update derives (the Tracker then writes `events`, `historyEvents` and the state in one D1 batch, saves
 * `next` and sets the alarm at `nowMs + delayMs`): the container's and the shipment's state from the facts
 * (derive.ts), the events since the snapshot (events.ts, with the facilities' own milestones, terminal-milestones.ts),
 * for joining rows the whole history under the keys the other rows carry, and the next poll (schedule.ts, spaced out
 * under a push subscription, a retry after a partial failure). `next.rawCount` is the snapshot's: the Tracker adds
 * the raw events it writes.
 */
export interface UpdateTransition {
  state: ContainerState;
  shipmentState: ShipmentState;
  events: EngineEvent[];
  historyEvents: EngineEvent[];
  /** Delay to the next poll, ms, or null: no more polls. */
  delayMs: number | null;
  nextPollAt: string | null;
  carrierCheckedAt: string | null;
  terminalCheckedAt: string | null;
  next: TrackerSnapshot;
}

/**
 * The update of `snap` with `input` (see {@link UpdateTransition}).
 * @returns null when there are no facts to derive from (never found by its carrier): the Tracker then reschedules
 * the box as failed.
 */
export function updateTransition(snap: TrackerSnapshot, input: UpdateInput): UpdateTransition | null {
  const { carrier, terminal, nowMs, joining } = input;
  const shipment = carrier?.shipment ?? snap.shipment;
  const container = carrier?.container ?? snap.container;
  if (!shipment || !container) return null;
  const terminalObservation = terminal ?? snap.terminal;
  const state = deriveContainerState(
    shipment,
    container,
    terminalObservation,
    { deliveredAt: snap.deliveredAt },
    snap.podTerminal ?? null,
  );
  const shipmentState = deriveShipmentState(shipment);
  const nowIso = toIsoSeconds(nowMs);
  const previousKeys = new Set(snap.recordedKeys);
  const milestones = container.milestones ?? [];
  const previous: PreviousSnapshot = {
    state: snap.state,
    shipment: snap.shipmentState,
    recordedKeys: previousKeys,
    ...(snap.recordedActuals ? { recordedActuals: snap.recordedActuals } : {}),
  };
  // Discharge, full-out and empty return reported by the facilities and not by the carrier (issue 14).
  const facilityMilestones = terminalMilestones(shipment, milestones, terminalObservation, snap.podTerminal ?? null);
  const events: EngineEvent[] = diffEvents(previous, milestones, state, shipmentState, nowIso, facilityMilestones);
  const recordedActuals = recordedActualsAfter(previous, milestones, facilityMilestones);
  // A joining row gets the whole history, each actual under the key the other rows carry (a row that rejoins finds
  // its own rows again instead of a copy).
  const historyEvents =
    joining.length > 0
      ? diffEvents(
          { state: null, shipment: null, recordedKeys: new Set() },
          milestones,
          state,
          shipmentState,
          nowIso,
          facilityMilestones,
        ).map((e) =>
          e.kind === "transport_event" && e.milestone && !e.milestone.estimated
            ? { ...e, key: recordedActuals[milestoneIdentity(e.milestone)]?.key ?? e.key }
            : e,
        )
      : [];
  const delayMs = input.partialFailure
    ? pollRetryDelayMs(snap.consecutiveFailures + 1, input.speedUp)
    : pushSpaced(snap, nextPollDelayMs(state, shipmentState, nowMs, input.speedUp));
  const nextPollAt = delayMs === null ? null : toIsoSeconds(nowMs + delayMs);
  const carrierCheckedAt = input.carrierChecked && carrier ? nowIso : snap.carrierCheckedAt;
  const terminalCheckedAt = input.terminalChecked ? nowIso : snap.terminalCheckedAt;
  return {
    state,
    shipmentState,
    events,
    historyEvents,
    delayMs,
    nextPollAt,
    carrierCheckedAt,
    terminalCheckedAt,
    next: {
      ...snap,
      subscriptions: [...snap.subscriptions, ...joining],
      shipment,
      container,
      terminal: terminalObservation,
      state,
      shipmentState,
      recordedKeys: [...recordedKeysAfter(previousKeys, milestones)],
      recordedActuals,
      consecutiveFailures: input.partialFailure ? snap.consecutiveFailures + 1 : 0,
      carrierCheckedAt,
      terminalCheckedAt,
      carrierFactsAtMs: carrier ? nowMs : snap.carrierFactsAtMs,
      terminalFactsAtMs: terminal ? nowMs : snap.terminalFactsAtMs,
      nextPollAt,
    },
  };
}

/**
 * When a box with no news is polled next (the Tracker saves `next` and sets the alarm at `nowMs + delayMs`): after
 * a failure, the retry backoff of its consecutive failures; else its state's interval (spaced out under a push
 * subscription), or, with no state yet, the first retry.
 */
export function rescheduleTransition(
  snap: TrackerSnapshot,
  nowMs: number,
  failed: boolean,
  speedUp: number,
): { delayMs: number | null; next: TrackerSnapshot } {
  const failures = failed ? snap.consecutiveFailures + 1 : 0;
  const delayMs = failed
    ? pollRetryDelayMs(failures, speedUp)
    : snap.state && snap.shipmentState
      ? pushSpaced(snap, nextPollDelayMs(snap.state, snap.shipmentState, nowMs, speedUp))
      : pollRetryDelayMs(1, speedUp);
  const nextPollAt = delayMs === null ? null : toIsoSeconds(nowMs + delayMs);
  return { delayMs, next: { ...snap, consecutiveFailures: failures, nextPollAt } };
}

/**
 * A container row leaving the box (its shipment stopped tracking): the snapshot without it, `stopped` when no row
 * is left (polling then stops: no next poll).
 */
export function unsubscribeTransition(snap: TrackerSnapshot, containerId: string): TrackerSnapshot {
  const subscriptions = snap.subscriptions.filter((s) => s.containerId !== containerId);
  const stopped = subscriptions.length === 0;
  return { ...snap, subscriptions, stopped, nextPollAt: stopped ? null : snap.nextPollAt };
}
