import { DurableObject } from "cloudflare:workers";
import { eq, inArray } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { createDatabase } from "../db/client";
import { containers, shipments, trackedEquipment } from "../db/schema";
import { toIsoSeconds } from "../lib/clock";
import { enqueueNotifications } from "../webhooks/outbox";
import { benchEngineMode, countingD1, type D1Counter } from "./bench-trace";
import {
  boxUpdateStatements,
  type FacilityAttempts,
  facilityAttemptColumns,
  loadBoxWebhookContext,
  type Subscription,
} from "./box-writes";
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
import { facilitiesToPoll, hasInlandLeg, nextPollDelayMs, pollRetryDelayMs, pollSlotDelaySeconds } from "./schedule";
import { joinSourceOutage, type OutageSource, outageLogLine, resolveSourceOutage } from "./source-outages";
import { type SourceRegistry, sourcesFor } from "./sources";
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

/**
 * The sources a poll of this box asks, by their names (`CarrierSource.name`, `TerminalSource.name`: "Shipping line",
 * "Terminal"), in that order and each once: the carrier source serving the SCAC, and the terminal sources serving the
 * POD terminal and the inland ramp to poll. A facility no source serves is not asked, so it is not named
 * (`PATCH /containers/{id}/refresh` answers with these, DECISIONS.md §Containers "the sources actually queued").
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
const CREDENTIAL_FAILURES: ReadonlySet<string> = new Set([CREDENTIALS_REJECTED, TERMINAL_CREDENTIALS_REJECTED]);

/**
 * One facility's poll as the container records it (issue 13 §1): the attempt time and failure reason after `result`
 * (null or absent: the facility was not asked), and whether the reason changed (`null`: no attempt recorded, as when
 * a newer attempt was recorded already). A `temporary_failure` keeps its reason; an answer clears it.
 */
function facilityAttempt(
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
function attemptsOf(snap: TrackerSnapshot): FacilityAttempts {
  return {
    terminalAttemptedAt: snap.terminalAttemptedAt ?? null,
    terminalFailedReason: snap.terminalFailedReason ?? null,
    railAttemptedAt: snap.railAttemptedAt ?? null,
    railFailedReason: snap.railFailedReason ?? null,
  };
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
   * The box's bill of lading for terminals that ask container and BL together (Port of Virginia, TERMINAL-APIS.md
   * §3.2): the tracked number of a BL request; for a container request the BL its carrier reported (when it is not
   * the container number itself, DCSA's last resort); null for a booking request (the carrier's number is then the
   * booking) or when unknown.
   */
  billOfLadingNumber: string | null;
}

/** The bill of lading of a box, as {@link PollPlan.billOfLadingNumber} describes. */
function billOfLadingOf(box: BoxIdentity, shipment: ShipmentFacts | null): string | null {
  if (box.requestType === "bill_of_lading") return box.shipmentNumber;
  if (box.requestType !== "container") return null;
  const reported = shipment?.billOfLadingNumber?.trim();
  return reported && reported.toUpperCase() !== box.number.toUpperCase() ? reported : null;
}

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
interface TrackerSnapshot {
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

const SNAPSHOT_KEY = "snapshot";

/** A regular poll delay (ms, or null: no more polls), spaced out while a push subscription covers the box. */
function pushSpaced(snap: Pick<TrackerSnapshot, "pushSubscribed">, delayMs: number | null): number | null {
  return delayMs !== null && snap.pushSubscribed ? delayMs * PUSH_POLL_INTERVAL_FACTOR : delayMs;
}

/**
 * One per tracked box (SCAC + container number), shared by every account that tracks it (DESIGN.md §2, §4):
 * keeps the last source snapshots, merges them, derives the container's state, diffs it against the last
 * one, writes every subscribed row, the new events and their webhook notifications (the outbox, DECISIONS.md
 * §Webhooks) in one D1 batch, enqueues the notifications once it committed, and schedules its own polls with an
 * alarm. Updates run one at a time (a promise chain), so concurrent polls never interleave and none is lost.
 * The snapshot is written to storage only after the D1 batch succeeded; a failed write leaves the Tracker
 * as it was, and replaying an update is harmless because event rows have derived ids.
 */
export class Tracker extends DurableObject<Env> {
  private snapshot: TrackerSnapshot | null | undefined;
  private queue: Promise<unknown> = Promise.resolve();

  /** Serialises `fn` after every update already queued. */
  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async load(): Promise<TrackerSnapshot | null> {
    if (this.snapshot === undefined)
      this.snapshot = (await this.ctx.storage.get<TrackerSnapshot>(SNAPSHOT_KEY)) ?? null;
    return this.snapshot;
  }

  /** How much faster than real time this box's world moves (its poll intervals divide by it). */
  private speedUp(box: BoxIdentity): number {
    return sourcesFor(this.env).speedUpFor(box.scac, box.number);
  }

  /**
   * Attaches an account's container row to this box, writes the row's state and the box's history of events
   * to it, and starts polling if not already. A new box starts from the facts its lookup found; a box already
   * tracked keeps its own (fresher, and consistent with its poll history), so a second account joining costs no
   * upstream call and sees the same state. Idempotent per container id.
   * @param trackingStartedAtMs when tracking of the box began (ms), the anchor of simulated journeys.
   */
  subscribe(
    box: BoxIdentity,
    subscription: Subscription,
    shipment: ShipmentFacts,
    container: ContainerFacts,
    observedAtMs: number,
    trackingStartedAtMs: number,
  ): Promise<UpdateOutcome> {
    return this.serial(async () => {
      const existing = await this.load();
      const snap: TrackerSnapshot = existing ?? {
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
      const joining = snap.subscriptions.some((s) => s.containerId === subscription.containerId) ? [] : [subscription];
      // A stopped box starts again when someone tracks it anew.
      const facts = snap.shipment && snap.container ? null : { shipment, container };
      return this.update({ ...snap, stopped: false }, facts, null, observedAtMs, joining, facts !== null);
    });
  }

  /** Applies one poll's results (DESIGN.md §4 step 4). Failures leave the state as it was and retry sooner. */
  applyPoll(results: PollResults): Promise<UpdateOutcome> {
    return this.serial(async () => {
      const snap = await this.load();
      if (!snap || snap.stopped)
        return { applied: false, events: [], currentStatus: snap?.state?.currentStatus ?? null, nextPollAt: null };
      // A poll overtaken by a newer one (its upstream answered later) must not move the box back in time.
      const older = (keptAtMs: number | undefined) => keptAtMs !== undefined && results.polledAtMs < keptAtMs;
      const staleCarrier = results.carrier?.kind === "found" && older(snap.carrierFactsAtMs);
      let carrier: { shipment: ShipmentFacts; container: ContainerFacts } | null = null;
      if (results.carrier?.kind === "found" && !staleCarrier) {
        const container = results.carrier.shipment.containers.find((c) => c.number === snap.box.number);
        if (container) carrier = { shipment: results.carrier.shipment, container };
      }
      // Without an inland leg the POD terminal is the pickup facility (`terminal`); on a rail move the ramp is, and
      // the POD terminal's answer is kept apart (`podTerminal`) for the time the box waits there for the train.
      const shipmentNow = carrier?.shipment ?? snap.shipment;
      const railMove = shipmentNow !== null && hasInlandLeg(shipmentNow);
      const pickupResult = railMove ? (results.rail ?? null) : results.terminal;
      const podResult = railMove ? results.terminal : null;
      const stalePickup = pickupResult?.kind === "found" && older(snap.terminalFactsAtMs);
      const stalePod = podResult?.kind === "found" && older(snap.podTerminalFactsAtMs);
      const terminal = pickupResult?.kind === "found" && !stalePickup ? pickupResult.observation : null;
      const podTerminal = podResult?.kind === "found" && !stalePod ? podResult.observation : null;
      const nowIso = toIsoSeconds(results.polledAtMs);
      // Every carrier attempt is recorded, answered or not (issue 13 §1); one overtaken by a newer attempt is not.
      const attempted =
        results.carrier !== null &&
        !staleCarrier &&
        !(snap.carrierAttemptedAt != null && snap.carrierAttemptedAt > nowIso);
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
      await this.reportOutages(
        snap,
        [
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
        ],
        nowIso,
      );
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
        if (staleCarrier || stalePickup || stalePod) {
          return {
            applied: false,
            events: [],
            currentStatus: snap.state?.currentStatus ?? null,
            nextPollAt: snap.nextPollAt,
          };
        }
        // No facts to apply; a facility that answered "not found" was still checked, and every attempt is recorded.
        const facilityChanged =
          podAttempt.changed === null && railAttempt.changed === null
            ? null
            : Boolean(podAttempt.changed || railAttempt.changed);
        return this.reschedule(
          {
            ...snap,
            ...lineAttempt,
            ...facilityAttempts,
            terminalCheckedAt: podChecked ? nowIso : snap.terminalCheckedAt,
            railCheckedAt: railChecked ? nowIso : (snap.railCheckedAt ?? null),
          },
          results.polledAtMs,
          failed,
          attempted ? failedReason !== (snap.carrierFailedReason ?? null) : null,
          facilityChanged,
        );
      }
      return this.update(
        {
          ...snap,
          ...lineAttempt,
          ...facilityAttempts,
          podTerminal: podTerminal ?? snap.podTerminal ?? null,
          podTerminalFactsAtMs: podTerminal ? results.polledAtMs : snap.podTerminalFactsAtMs,
          railCheckedAt: railChecked ? nowIso : (snap.railCheckedAt ?? null),
        },
        carrier,
        terminal,
        results.polledAtMs,
        [],
        results.carrier !== null,
        podChecked,
        failed,
      );
    });
  }

  /** What the poll consumer needs to poll this box, or null when the Tracker has never been subscribed. */
  async pollPlan(): Promise<PollPlan | null> {
    const snap = await this.load();
    if (!snap) return null;
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

  /** The current derived state (tests, MCP). */
  async currentState(): Promise<{
    state: ContainerState | null;
    shipment: ShipmentState | null;
    subscriptions: Subscription[];
    nextPollAt: string | null;
    stopped: boolean;
  } | null> {
    const snap = await this.load();
    if (!snap) return null;
    return {
      state: snap.state,
      shipment: snap.shipmentState,
      subscriptions: snap.subscriptions,
      nextPollAt: snap.nextPollAt,
      stopped: snap.stopped,
    };
  }

  /** Detaches a container row (its shipment stopped tracking); with no subscriber left, polling stops. */
  unsubscribe(containerId: string): Promise<void> {
    return this.serial(async () => {
      const snap = await this.load();
      if (!snap) return;
      const subscriptions = snap.subscriptions.filter((s) => s.containerId !== containerId);
      const stopped = subscriptions.length === 0;
      await this.save({ ...snap, subscriptions, stopped, nextPollAt: stopped ? null : snap.nextPollAt });
      if (stopped) {
        await this.ctx.storage.deleteAlarm();
        // The cron's overdue-poll scan skips boxes nobody follows any more.
        await createDatabase(this.env.DB)
          .update(trackedEquipment)
          .set({ nextPollAt: null, stoppedAt: toIsoSeconds(Date.now()) })
          .where(eq(trackedEquipment.id, snap.box.trackedEquipmentId));
      }
    });
  }

  /**
   * Records whether a healthy upstream push subscription covers this box (src/callbacks/lifecycle.ts); from the next
   * poll on, its interval is {@link PUSH_POLL_INTERVAL_FACTOR} times longer while it does. A box never subscribed
   * keeps nothing.
   */
  setPushSubscription(active: boolean): Promise<void> {
    return this.serial(async () => {
      const snap = await this.load();
      if (!snap || (snap.pushSubscribed ?? false) === active) return;
      await this.save({ ...snap, pushSubscribed: active });
    });
  }

  /** Makes sure an alarm is set when the box should be polled (the cron's repair for lost alarms). */
  async ensureAlarm(nowMs: number): Promise<boolean> {
    const snap = await this.load();
    if (!snap || snap.stopped || !snap.nextPollAt) return false;
    if ((await this.ctx.storage.getAlarm()) !== null) return false;
    await this.ctx.storage.setAlarm(Math.max(nowMs, Date.parse(snap.nextPollAt)));
    return true;
  }

  /** Asks for a poll now (`PATCH /containers/{id}/refresh`). Returns the sources that will be asked. */
  async requestPoll(): Promise<string[]> {
    const plan = await this.pollPlan();
    if (!plan || plan.stopped) return [];
    const names = queuedSourceNames(plan, sourcesFor(this.env));
    if (names.length === 0) return [];
    await this.env.TERMINAL_POLLS_QUEUE.send({ scac: plan.scac, number: plan.number });
    return names;
  }

  /** Alarm: hands the poll to the `terminal-polls` queue, and re-arms a fallback in case the message is lost. */
  override async alarm(): Promise<void> {
    const snap = await this.load();
    if (!snap || snap.stopped) return;
    // Held to the terminal's next slot, so the boxes due there meet in one batch (issue 14, schedule.ts).
    const delaySeconds = pollSlotDelaySeconds(
      Date.now(),
      snap.shipment?.podTerminalCode ?? null,
      this.speedUp(snap.box),
    );
    await this.env.TERMINAL_POLLS_QUEUE.send({ scac: snap.box.scac, number: snap.box.number }, { delaySeconds });
    await this.ctx.storage.setAlarm(Date.now() + pollRetryDelayMs(6, this.speedUp(snap.box)));
  }

  /**
   * Tells the accounts of this box's rows, once per outage, that a source refused our credentials or answers again
   * (src/tracking/source-outages.ts): a source this poll found refusing, and not at its previous poll, joins (or opens)
   * the source's outage; a source answering after a failed poll closes the source's open outage, if any. Sources
   * whose failure reason did not change are not reported, so an unchanged poll writes nothing here. The notifications
   * are enqueued after their batch committed. The box that opens an outage logs it (`outageLogLine`): one line per
   * outage, however many boxes and polls find the source refusing.
   */
  private async reportOutages(
    snap: TrackerSnapshot,
    changes: { source: OutageSource; attempted: boolean; before: string | null; after: string | null }[],
    nowIso: string,
  ): Promise<void> {
    const reported = changes.filter((c) => c.attempted && c.source.sourceCode && c.before !== c.after);
    if (reported.length === 0) return; // the usual poll: no D1 handle, no write
    const accountIds = snap.subscriptions.map((s) => s.accountId);
    const db = createDatabase(this.env.DB);
    const ids: string[] = [];
    for (const { source, after } of reported) {
      if (after !== null && CREDENTIAL_FAILURES.has(after) && accountIds.length > 0) {
        const joined = await joinSourceOutage(db, source, after, accountIds, nowIso);
        ids.push(...joined.notificationIds);
        // Logged by the one box that opened the source's outage: once per outage, not once per box or poll.
        if (joined.opened) {
          const shipmentIds = snap.subscriptions.map((s) => s.shipmentId);
          console.error(outageLogLine(joined.opened, { number: snap.box.number, shipmentIds }));
        }
      } else if (after === null) {
        ids.push(...(await resolveSourceOutage(db, source, nowIso)));
      }
    }
    if (ids.length > 0) await enqueueNotifications(this.env.WEBHOOK_DELIVERIES_QUEUE, ids);
  }

  private async save(snap: TrackerSnapshot): Promise<void> {
    this.snapshot = snap;
    await this.ctx.storage.put(SNAPSHOT_KEY, snap);
  }

  /**
   * Saves `snap` with the next poll time (no news to write). `lineAttemptChanged` is non-null when this poll
   * attempted the carrier (`snap` carries the attempt): the subscribed shipments then get the attempt
   * (`line_tracking_last_attempted_at`, `line_tracking_failed_reason`) in one UPDATE, their `updated_at` only when
   * the reason changed (`true`), so an outage changes a shipment once, however many polls fail.
   * `facilityAttemptChanged` is the same for the POD terminal and the inland ramp (`snap` carries their attempts and
   * last checks): the subscribed container rows get them (`terminal_/rail_tracking_*`, `pod_/rail_last_tracking_request_at`),
   * their `updated_at` only when a reason changed. Both UPDATEs share one D1 round trip.
   */
  private async reschedule(
    snap: TrackerSnapshot,
    nowMs: number,
    failed: boolean,
    lineAttemptChanged: boolean | null = null,
    facilityAttemptChanged: boolean | null = null,
  ): Promise<UpdateOutcome> {
    const db = createDatabase(this.env.DB);
    const writes: BatchItem<"sqlite">[] = [];
    const shipmentIds = [...new Set(snap.subscriptions.map((s) => s.shipmentId))];
    const containerIds = snap.subscriptions.map((s) => s.containerId);
    if (lineAttemptChanged !== null && shipmentIds.length > 0) {
      writes.push(
        db
          .update(shipments)
          .set({
            lineTrackingLastAttemptedAt: snap.carrierAttemptedAt ?? null,
            lineTrackingFailedReason: snap.carrierFailedReason ?? null,
            ...(lineAttemptChanged ? { updatedAt: toIsoSeconds(nowMs) } : {}),
          })
          .where(inArray(shipments.id, shipmentIds)),
      );
    }
    if (facilityAttemptChanged !== null && containerIds.length > 0) {
      writes.push(
        db
          .update(containers)
          .set({
            ...facilityAttemptColumns(attemptsOf(snap)),
            podLastTrackingRequestAt: snap.terminalCheckedAt,
            railLastTrackingRequestAt: snap.railCheckedAt ?? null,
            ...(facilityAttemptChanged ? { updatedAt: toIsoSeconds(nowMs) } : {}),
          })
          .where(inArray(containers.id, containerIds)),
      );
    }
    if (writes.length > 0) await db.batch(writes as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]]);
    const failures = failed ? snap.consecutiveFailures + 1 : 0;
    const delay = failed
      ? pollRetryDelayMs(failures, this.speedUp(snap.box))
      : snap.state && snap.shipmentState
        ? pushSpaced(snap, nextPollDelayMs(snap.state, snap.shipmentState, nowMs, this.speedUp(snap.box)))
        : pollRetryDelayMs(1, this.speedUp(snap.box));
    const nextPollAt = delay === null ? null : toIsoSeconds(nowMs + delay);
    await this.save({ ...snap, consecutiveFailures: failures, nextPollAt });
    if (delay !== null) await this.ctx.storage.setAlarm(nowMs + delay);
    if (benchEngineMode(this.env) === "trace") {
      const line = {
        box: snap.box.number,
        joining: 0,
        events: 0,
        batches: writes.length > 0 ? 1 : 0,
        statements: writes.length,
        failed,
      };
      console.warn(`bench-engine ${JSON.stringify(line)}`);
    }
    return { applied: false, events: [], currentStatus: snap.state?.currentStatus ?? null, nextPollAt };
  }

  private async update(
    snap: TrackerSnapshot,
    carrier: { shipment: ShipmentFacts; container: ContainerFacts } | null,
    terminal: TerminalObservation | null,
    nowMs: number,
    joining: Subscription[],
    carrierChecked: boolean,
    terminalChecked = false,
    partialFailure = false,
  ): Promise<UpdateOutcome> {
    const shipment = carrier?.shipment ?? snap.shipment;
    const container = carrier?.container ?? snap.container;
    if (!shipment || !container) return this.reschedule(snap, nowMs, true);
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
    const delay = partialFailure
      ? pollRetryDelayMs(snap.consecutiveFailures + 1, this.speedUp(snap.box))
      : pushSpaced(snap, nextPollDelayMs(state, shipmentState, nowMs, this.speedUp(snap.box)));
    const nextPollAt = delay === null ? null : toIsoSeconds(nowMs + delay);
    const carrierCheckedAt = carrierChecked && carrier ? nowIso : snap.carrierCheckedAt;
    const terminalCheckedAt = terminalChecked ? nowIso : snap.terminalCheckedAt;
    // Bench instrumentation (bench/engine), inert unless BENCH_ENGINE=trace: counts this update's D1 round trips.
    const d1Count: D1Counter | null = benchEngineMode(this.env) === "trace" ? { batches: 0, statements: 0 } : null;
    const db = createDatabase(d1Count ? countingD1(this.env.DB, d1Count) : this.env.DB);
    // Only an update that announces something reads the webhooks (and the rows their bodies include), in one round
    // trip: an unchanged poll stays at one D1 batch, a changed one at two.
    const announcing = (events.length > 0 && snap.subscriptions.length > 0) || joining.length > 0;
    const webhooks = announcing ? await loadBoxWebhookContext(db, [...snap.subscriptions, ...joining]) : null;
    const { statements, rawCount, notificationIds } = await boxUpdateStatements(db, {
      trackedEquipmentId: snap.box.trackedEquipmentId,
      subscriptions: snap.subscriptions,
      joining,
      state,
      shipment: shipmentState,
      events,
      historyEvents,
      nowIso,
      carrierCheckedAt,
      carrierAttemptedAt: snap.carrierAttemptedAt ?? carrierCheckedAt,
      carrierFailedReason: snap.carrierFailedReason ?? null,
      terminalCheckedAt,
      railCheckedAt: snap.railCheckedAt ?? null,
      facilityAttempts: attemptsOf(snap),
      nextPollAt,
      rawIndexStart: snap.rawCount,
      webhooks,
    });
    if (statements.length > 0) await db.batch(statements as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]]);
    // After the commit; a failed send is left to the cron's outbox sweep (enqueueNotifications never throws).
    if (notificationIds.length > 0) await enqueueNotifications(this.env.WEBHOOK_DELIVERIES_QUEUE, notificationIds);
    const next: TrackerSnapshot = {
      ...snap,
      subscriptions: [...snap.subscriptions, ...joining],
      shipment,
      container,
      terminal: terminalObservation,
      state,
      shipmentState,
      recordedKeys: [...recordedKeysAfter(previousKeys, milestones)],
      recordedActuals,
      rawCount: snap.rawCount + rawCount,
      consecutiveFailures: partialFailure ? snap.consecutiveFailures + 1 : 0,
      carrierCheckedAt,
      terminalCheckedAt,
      carrierFactsAtMs: carrier ? nowMs : snap.carrierFactsAtMs,
      terminalFactsAtMs: terminal ? nowMs : snap.terminalFactsAtMs,
      nextPollAt,
    };
    await this.save(next);
    if (delay === null) await this.ctx.storage.deleteAlarm();
    else await this.ctx.storage.setAlarm(nowMs + delay);
    if (d1Count) {
      const line = {
        box: snap.box.number,
        joining: joining.length,
        events: events.length + historyEvents.length,
        ...d1Count,
      };
      console.warn(`bench-engine ${JSON.stringify({ ...line, snapshotBytes: JSON.stringify(next).length })}`);
    }
    return {
      applied: true,
      events: [...events, ...historyEvents].map((e) => (e.kind === "transport_event" ? e.event : e.kind)),
      currentStatus: state.currentStatus,
      nextPollAt,
    };
  }

  /**
   * Re-attaches an account's container row after its shipment resumed tracking
   * (`PATCH /shipments/{id}/resume_tracking`): the row joins again, gets the box's current state and every event
   * recorded so far (event rows have derived ids, so nothing already written is written twice), and polling
   * restarts if the box had stopped. Idempotent per container id.
   * @returns `applied: false` when this Tracker was never subscribed (it has nothing to write).
   */
  resubscribe(subscription: Subscription, nowMs: number): Promise<UpdateOutcome> {
    return this.serial(async () => {
      const snap = await this.load();
      if (!snap) return { applied: false, events: [], currentStatus: null, nextPollAt: null };
      // The row joins (history included) rather than being kept as a plain subscriber, so it is listed once.
      const others = snap.subscriptions.filter((s) => s.containerId !== subscription.containerId);
      if (!snap.shipment || !snap.container) {
        return this.reschedule({ ...snap, subscriptions: [...others, subscription], stopped: false }, nowMs, true);
      }
      return this.update({ ...snap, subscriptions: others, stopped: false }, null, null, nowMs, [subscription], false);
    });
  }
}
