import { DurableObject } from "cloudflare:workers";
import { eq, inArray } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { enqueueAlerts } from "../alerts/delivery";
import { createDatabase } from "../db/client";
import { containers, shipments, trackedEquipment } from "../db/schema";
import { shardDb } from "../db/shards";
import { toIsoSeconds } from "../lib/clock";
import { enqueueNotifications } from "../webhooks/outbox";
import { boxUpdateStatements, facilityAttemptColumns, loadBoxWebhookContext, type Subscription } from "./box-writes";
import type { ContainerState, ShipmentState } from "./derive";
import { pollRetryDelayMs, pollSlotDelaySeconds } from "./schedule";
import { forEachShard, groupSubscriptionsByShard, type ShardPart } from "./shard-groups";
import { joinSourceOutage, outageLogLine, resolveSourceOutage, type ShardNotifications } from "./source-outages";
import { sourcesFor } from "./sources";
import type { ContainerFacts, ShipmentFacts, TerminalObservation } from "./sources/types";
import {
  attemptsOf,
  type BoxIdentity,
  type CarrierFacts,
  CREDENTIAL_FAILURES,
  newSnapshot,
  notApplied,
  type OutageChange,
  type PollPlan,
  type PollResults,
  pollPlanOf,
  pollTransition,
  queuedSourceNames,
  rescheduleTransition,
  type TrackerSnapshot,
  type UpdateInput,
  type UpdateOutcome,
  unsubscribeTransition,
  updateTransition,
} from "./tracker-state";

const SNAPSHOT_KEY = "snapshot";

/**
 * One per tracked box (SCAC + container number), shared by every account that tracks it
 * (docs/architecture.md §Components, §Tracking pipeline): keeps the last source snapshots, merges them, derives the
 * container's state, diffs it against the last one, writes every subscribed row, the new events and their webhook
 * notifications (the outbox, docs/decisions.md §Webhooks) in one D1 batch, enqueues the notifications once it
 * committed, and schedules its own polls with an alarm. Updates run one at a time (a promise chain), so concurrent
 * polls never interleave and none is lost. The snapshot is written to storage only after the D1 batch succeeded; a
 * failed write leaves the Tracker as it was, and replaying an update is harmless because event rows have derived ids.
 */
export class Tracker extends DurableObject<Env> {
  /** The stored snapshot once loaded (null: never subscribed). Protected for the bench trace (bench-trace.ts). */
  protected snapshot: TrackerSnapshot | null | undefined;
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
      const snap = (await this.load()) ?? newSnapshot(box, trackingStartedAtMs);
      const joining = snap.subscriptions.some((s) => s.containerId === subscription.containerId) ? [] : [subscription];
      // A stopped box starts again when someone tracks it anew.
      const carrier = snap.shipment && snap.container ? null : { shipment, container };
      return this.update({ ...snap, stopped: false }, carrier, null, observedAtMs, joining, carrier !== null);
    });
  }

  /**
   * Applies one poll's results (docs/architecture.md §Tracking pipeline step 4; what they change: tracker-state.ts
   * `pollTransition`). Failures leave the state as it was and retry sooner.
   */
  applyPoll(results: PollResults): Promise<UpdateOutcome> {
    return this.serial(async () => {
      const snap = await this.load();
      if (!snap || snap.stopped) return notApplied(snap, null);
      const { outageChanges, next } = pollTransition(snap, results);
      await this.reportOutages(snap, outageChanges, toIsoSeconds(results.polledAtMs));
      if (next.kind === "stale") return notApplied(snap, snap.nextPollAt);
      if (next.kind === "reschedule") {
        return this.reschedule(
          next.snap,
          results.polledAtMs,
          next.failed,
          next.lineAttemptChanged,
          next.facilityAttemptChanged,
        );
      }
      return this.update(
        next.snap,
        next.carrier,
        next.terminal,
        results.polledAtMs,
        [],
        next.carrierChecked,
        next.terminalChecked,
        next.partialFailure,
      );
    });
  }

  /** What the poll consumer needs to poll this box, or null when the Tracker has never been subscribed. */
  async pollPlan(): Promise<PollPlan | null> {
    const snap = await this.load();
    return snap ? pollPlanOf(snap) : null;
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
      const next = unsubscribeTransition(snap, containerId);
      await this.save(next);
      if (next.stopped) {
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
  private async reportOutages(snap: TrackerSnapshot, changes: OutageChange[], nowIso: string): Promise<void> {
    const reported = changes.filter((c) => c.attempted && c.source.sourceCode && c.before !== c.after);
    if (reported.length === 0) return; // the usual poll: no D1 handle, no write
    const accountIds = snap.subscriptions.map((s) => s.accountId);
    const written: ShardNotifications[] = [];
    for (const { source, after } of reported) {
      if (after !== null && CREDENTIAL_FAILURES.has(after) && accountIds.length > 0) {
        const joined = await joinSourceOutage(this.env, source, after, accountIds, nowIso);
        written.push(...joined.notifications);
        // Logged by the one box that opened the source's outage: once per outage, not once per box or poll.
        if (joined.opened) {
          const shipmentIds = snap.subscriptions.map((s) => s.shipmentId);
          console.error(outageLogLine(joined.opened, { number: snap.box.number, shipmentIds }));
        }
      } else if (after === null) {
        written.push(...(await resolveSourceOutage(this.env, source, nowIso)));
      }
    }
    for (const { shard, ids } of written) {
      if (ids.length > 0) await enqueueNotifications(this.env.WEBHOOK_DELIVERIES_QUEUE, ids, undefined, shard);
    }
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
  protected async reschedule(
    snap: TrackerSnapshot,
    nowMs: number,
    failed: boolean,
    lineAttemptChanged: boolean | null = null,
    facilityAttemptChanged: boolean | null = null,
  ): Promise<UpdateOutcome> {
    const writeShard = async (part: ShardPart): Promise<void> => {
      const db = shardDb(this.env, part.shard);
      const writes: BatchItem<"sqlite">[] = [];
      const shipmentIds = [...new Set(part.subscriptions.map((s) => s.shipmentId))];
      const containerIds = part.subscriptions.map((s) => s.containerId);
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
    };
    // One batch per shard with rows of this box (none when nothing changed); a failure leaves the snapshot as it was.
    if (lineAttemptChanged !== null || facilityAttemptChanged !== null) {
      const parts = await groupSubscriptionsByShard(this.env, snap.subscriptions);
      await forEachShard(parts, writeShard, async () => undefined);
    }
    const { delayMs, next } = rescheduleTransition(snap, nowMs, failed, this.speedUp(snap.box));
    await this.save(next);
    if (delayMs !== null) await this.ctx.storage.setAlarm(nowMs + delayMs);
    return notApplied(next, next.nextPollAt);
  }

  /**
   * Applies facts to the box (what they change: tracker-state.ts `updateTransition`): writes the subscribed rows, the
   * new events (and a joining row's history) and their webhook notifications in one D1 batch, enqueues the
   * notifications after the commit, saves the snapshot and sets the alarm. Without facts to derive from, reschedules
   * the box as failed.
   */
  protected async update(
    snap: TrackerSnapshot,
    carrier: CarrierFacts | null,
    terminal: TerminalObservation | null,
    nowMs: number,
    joining: Subscription[],
    carrierChecked: boolean,
    terminalChecked = false,
    partialFailure = false,
  ): Promise<UpdateOutcome> {
    const input: UpdateInput = {
      carrier,
      terminal,
      nowMs,
      joining,
      carrierChecked,
      terminalChecked,
      partialFailure,
      speedUp: this.speedUp(snap.box),
    };
    const t = updateTransition(snap, input);
    if (!t) return this.reschedule(snap, nowMs, true);
    const { events, historyEvents, nextPollAt } = t;
    const nowIso = toIsoSeconds(nowMs);
    const queue = this.env.WEBHOOK_DELIVERIES_QUEUE;
    // One D1 batch per shard holding rows of this box (issue 29 §3). The box's `tracked_equipment` row is in the
    // primary and goes with shard 0's batch, which runs even when no row of the box is there.
    const parts = await groupSubscriptionsByShard(this.env, snap.subscriptions, joining);
    if (!parts.some((p) => p.shard === 0)) parts.unshift({ shard: 0, subscriptions: [], joining: [] });
    const writeShard = async (part: ShardPart) => {
      const db = shardDb(this.env, part.shard);
      // Only a part that announces something reads the webhooks (and the rows their bodies include), in one round
      // trip: an unchanged poll stays at one D1 batch per shard, a changed one at two.
      const announcing = (events.length > 0 && part.subscriptions.length > 0) || part.joining.length > 0;
      const webhooks = announcing ? await loadBoxWebhookContext(db, [...part.subscriptions, ...part.joining]) : null;
      const built = await boxUpdateStatements(db, {
        trackedEquipmentId: part.shard === 0 ? snap.box.trackedEquipmentId : null,
        subscriptions: part.subscriptions,
        joining: part.joining,
        state: t.state,
        shipment: t.shipmentState,
        events,
        historyEvents,
        nowIso,
        carrierCheckedAt: t.carrierCheckedAt,
        carrierAttemptedAt: snap.carrierAttemptedAt ?? t.carrierCheckedAt,
        carrierFailedReason: snap.carrierFailedReason ?? null,
        terminalCheckedAt: t.terminalCheckedAt,
        railCheckedAt: snap.railCheckedAt ?? null,
        facilityAttempts: attemptsOf(snap),
        nextPollAt,
        // Every shard numbers its raw events from the box's count, so a fact gets the same index on every shard.
        rawIndexStart: snap.rawCount,
        webhooks,
      });
      if (built.statements.length > 0) {
        await db.batch(built.statements as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]]);
      }
      return built;
    };
    // After each shard's commit; a failed send is left to the cron's outbox sweep (enqueueNotifications never throws).
    const enqueue = async (done: { part: ShardPart; result: Awaited<ReturnType<typeof writeShard>> }[]) => {
      for (const { part, result } of done) {
        if (result.notificationIds.length > 0) {
          await enqueueNotifications(queue, result.notificationIds, undefined, part.shard);
        }
        await enqueueAlerts(queue, result.alertIds, part.shard);
      }
    };
    // A shard that failed fails the update: the snapshot is not saved, and the retry (the poll's message, the next
    // alarm) writes every shard again; the shards that had committed get nothing twice (derived ids, ON CONFLICT).
    const done = await forEachShard(parts, writeShard, enqueue);
    await enqueue(done);
    const rawCount = Math.max(0, ...done.map((d) => d.result.rawCount));
    const next: TrackerSnapshot = { ...t.next, rawCount: snap.rawCount + rawCount };
    await this.save(next);
    if (t.delayMs === null) await this.ctx.storage.deleteAlarm();
    else await this.ctx.storage.setAlarm(nowMs + t.delayMs);
    return {
      applied: true,
      events: [...events, ...historyEvents].map((e) => (e.kind === "transport_event" ? e.event : e.kind)),
      currentStatus: t.state.currentStatus,
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
      if (!snap) return notApplied(null, null);
      // The row joins (history included) rather than being kept as a plain subscriber, so it is listed once.
      const others = snap.subscriptions.filter((s) => s.containerId !== subscription.containerId);
      if (!snap.shipment || !snap.container) {
        return this.reschedule({ ...snap, subscriptions: [...others, subscription], stopped: false }, nowMs, true);
      }
      return this.update({ ...snap, subscriptions: others, stopped: false }, null, null, nowMs, [subscription], false);
    });
  }
}
