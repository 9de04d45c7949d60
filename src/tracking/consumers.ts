import { and, eq } from "drizzle-orm";
import { createDatabase, type Database } from "../db/client";
import { trackingRequests } from "../db/schema";
import type { Env, TerminalPollMessage, TrackingRequestMessage } from "../env";
import { inferNumber } from "../infer/service";
import { type Clock, systemClock, toIsoSeconds } from "../lib/clock";
import type { TrackingRequestRow } from "../tracking-requests/serializer";
import { isUniqueViolation } from "../tracking-requests/service";
import { batchWithNotifications } from "../webhooks/outbox";
import { benchEngineMode } from "./bench-trace";
import { markRequestCreated, recordLookupFailure, trackingRequestDraft, writeLookupRows } from "./persist";
import { type SourceRegistry, sourcesFor } from "./sources";
import type { ContainerFacts, LookupResult, ShipmentFacts, SourceContext, TerminalPollResult } from "./sources/types";
import { type BoxIdentity, type PollResults, trackerName } from "./tracker";

const MINUTE_S = 60;
const HOUR_S = 3600;

/** Longest a poll waits for one source before counting it unreachable (ms). */
export const SOURCE_TIMEOUT_MS = 30_000;

/** Lookups of a request before `failed` (`retries_exhausted`), R §2.2: at most 14 tries within about 24 h. */
export const MAX_LOOKUP_ATTEMPTS = 14;
/** `awaiting_manifest` is re-checked every 6 h … */
export const AWAITING_MANIFEST_RECHECK_S = 6 * HOUR_S;
/** … for 7 days, then the request fails as `expired` (DECISIONS.md §Tracking requests). */
export const AWAITING_MANIFEST_TTL_MS = 7 * 24 * HOUR_S * 1000;

/**
 * Delay before lookup attempt `attempt + 1` after `attempt` failures (seconds): 1, 2, 4 … minutes, at most
 * 4 hours, so 14 tries span about 24 h (R §2.2).
 */
export function lookupRetryDelaySeconds(attempt: number): number {
  return Math.min(4 * HOUR_S, MINUTE_S * 2 ** Math.max(0, attempt - 1));
}

/** What the tracking-request consumer needs; tests inject the clock and the network. */
export interface TrackingDeps {
  env: Pick<
    Env,
    | "DB"
    | "TRACKER"
    | "TRACKING_REQUESTS_QUEUE"
    | "WEBHOOK_DELIVERIES_QUEUE"
    | "DCSA_SOURCES"
    | "SIMULATOR_ENABLED"
    | "SIMULATION_SPEED"
  >;
  clock?: Clock;
  fetch?: typeof fetch;
  sources?: SourceRegistry;
}

function contextFor(deps: Pick<TrackingDeps, "clock" | "fetch">, trackingStartedAtMs: number): SourceContext {
  const clock = deps.clock ?? systemClock;
  return { nowMs: clock.now(), fetch: deps.fetch ?? ((input, init) => fetch(input, init)), trackingStartedAtMs };
}

async function loadRequest(db: Database, message: TrackingRequestMessage): Promise<TrackingRequestRow | undefined> {
  const [request] = await db
    .select()
    .from(trackingRequests)
    .where(and(eq(trackingRequests.id, message.trackingRequestId), eq(trackingRequests.accountId, message.accountId)))
    .limit(1);
  return request;
}

/**
 * Hands every box of a found shipment to its Tracker (idempotent per container), then marks the request
 * `created`. Runs after the rows exist, so a crash in between is finished by the message's redelivery.
 */
async function attachTrackers(
  deps: TrackingDeps,
  db: Database,
  request: TrackingRequestRow,
  facts: ShipmentFacts,
  nowMs: number,
  trackingStartedAtMs: number,
): Promise<string> {
  const now = toIsoSeconds(nowMs);
  const rows = await writeLookupRows(db, request, facts, now);
  const scac = request.lineScac ?? request.scac ?? "";
  for (const box of rows.containers) {
    const container = facts.containers.find((c) => c.number === box.number) as ContainerFacts;
    const identity: BoxIdentity = {
      trackedEquipmentId: box.trackedEquipmentId,
      scac,
      number: box.number,
      shipmentNumber: request.requestType === "container" ? box.number : request.normalizedNumber,
      requestType: request.requestType,
    };
    const stub = deps.env.TRACKER.get(deps.env.TRACKER.idFromName(trackerName(scac, box.number)));
    await stub.subscribe(
      identity,
      { accountId: request.accountId, containerId: box.containerId, shipmentId: rows.shipmentId },
      facts,
      container,
      nowMs,
      trackingStartedAtMs,
    );
  }
  await markRequestCreated(db, deps.env.WEBHOOK_DELIVERIES_QUEUE, request, rows.shipmentId, now);
  return rows.shipmentId;
}

/**
 * Handles one `tracking-requests` message (DESIGN.md §4 step 2, R §2.2 lifecycle): looks the number up at the
 * carrier source of its SCAC and moves the request on:
 * - found → shipment and containers written, each box attached to its Tracker, `created`;
 * - container not found → `failed` (`not_found`); BL/booking not found → `awaiting_manifest`, re-checked every
 *   6 h for 7 days, then `failed` (`expired`);
 * - unreachable or unparsable → stays `pending` with `is_retrying`, `retry_count`, the temporary
 *   `failed_reason`, and a new message after a backoff; after 14 tries `failed` (`retries_exhausted`);
 * - no SCAC (auto-detect found none) or no source for it → `failed` (`scac_auto_detect_failed` /
 *   `shipping_line_unreachable`).
 * A request no longer pending or awaiting its manifest is left alone, so redelivered messages are harmless.
 */
export async function processTrackingRequest(deps: TrackingDeps, message: TrackingRequestMessage): Promise<void> {
  const db = createDatabase(deps.env.DB);
  const request = await loadRequest(db, message);
  if (!request) return;
  const clock = deps.clock ?? systemClock;
  const registry = deps.sources ?? sourcesFor(deps.env);
  if (request.status !== "pending" && request.status !== "awaiting_manifest") return;
  const nowMs = clock.now();
  const now = toIsoSeconds(nowMs);
  const createdAtMs = Date.parse(request.createdAt);
  let scac = request.lineScac ?? request.scac;
  if (!scac && request.autoDetectScac) {
    const detected = await detectScac(db, request, registry, now);
    if (detected.kind === "duplicate") {
      await recordLookupFailure(db, deps.env.WEBHOOK_DELIVERIES_QUEUE, request, "duplicate", now);
      return;
    }
    scac = detected.kind === "detected" ? detected.scac : null;
  }
  const source = scac ? registry.carriers.find((s) => s.supports(scac as string)) : undefined;
  if (!scac || !source) {
    await recordLookupFailure(
      db,
      deps.env.WEBHOOK_DELIVERIES_QUEUE,
      request,
      scac ? "shipping_line_unreachable" : "scac_auto_detect_failed",
      now,
    );
    return;
  }
  const attempt = request.retryCount ?? 0;
  const result: LookupResult = await source.lookup(
    {
      requestType: request.requestType,
      number: request.normalizedNumber,
      scac,
      status: request.status === "awaiting_manifest" ? "awaiting_manifest" : "pending",
      attempt,
    },
    contextFor(deps, createdAtMs),
  );
  switch (result.kind) {
    case "found":
      await attachTrackers(deps, db, request, result.shipment, nowMs, createdAtMs);
      return;
    case "failed":
      await recordLookupFailure(db, deps.env.WEBHOOK_DELIVERIES_QUEUE, request, result.reason, now);
      return;
    case "not_found":
      if (request.requestType === "container") {
        await recordLookupFailure(db, deps.env.WEBHOOK_DELIVERIES_QUEUE, request, "not_found", now);
        return;
      }
      await awaitManifest(deps, db, request, nowMs, registry);
      return;
    case "awaiting_manifest":
      await awaitManifest(deps, db, request, nowMs, registry);
      return;
    case "temporary_failure": {
      const tries = attempt + 1;
      if (tries >= MAX_LOOKUP_ATTEMPTS) {
        await recordLookupFailure(db, deps.env.WEBHOOK_DELIVERIES_QUEUE, request, "retries_exhausted", now);
        return;
      }
      await db
        .update(trackingRequests)
        .set({
          isRetrying: true,
          // The request keeps the reference's enum (R §2.2); the shipment-level reason is ours (issue 13 §1).
          failedReason:
            result.reason === "shipping_line_credentials_rejected" ? "shipping_line_unreachable" : result.reason,
          retryCount: tries,
          nextAttemptAt: toIsoSeconds(nowMs + lookupRetryDelaySeconds(tries) * 1000),
          updatedAt: now,
        })
        .where(eq(trackingRequests.id, request.id));
      await deps.env.TRACKING_REQUESTS_QUEUE.send(message, { delaySeconds: lookupRetryDelaySeconds(tries) });
    }
  }
}

/**
 * `auto_detect_vocc_scac` (DECISIONS.md §Infer number): runs the same inference as `infer_number` and takes the
 * best-ranked candidate line that is supported here, recording it on the request (`scac`, `line_scac`).
 * @returns the detected line; `none` when no candidate is supported (the request then fails as
 * `scac_auto_detect_failed`); `duplicate` when the account already tracks the number with that line.
 */
async function detectScac(
  db: Database,
  request: TrackingRequestRow,
  registry: SourceRegistry,
  now: string,
): Promise<{ kind: "detected"; scac: string } | { kind: "none" } | { kind: "duplicate" }> {
  let candidates: { scac: string }[];
  try {
    candidates = (await inferNumber(db, request.requestNumber)).prediction.candidates;
  } catch {
    return { kind: "none" };
  }
  const chosen = candidates.find((c) => registry.supportedScacs.has(c.scac));
  if (!chosen) return { kind: "none" };
  try {
    await db
      .update(trackingRequests)
      .set({ scac: chosen.scac, lineScac: chosen.scac, updatedAt: now })
      .where(eq(trackingRequests.id, request.id));
  } catch (err) {
    if (isUniqueViolation(err)) return { kind: "duplicate" };
    throw err;
  }
  request.scac = chosen.scac;
  request.lineScac = chosen.scac;
  return { kind: "detected", scac: chosen.scac };
}

async function awaitManifest(
  deps: TrackingDeps,
  db: Database,
  request: TrackingRequestRow,
  nowMs: number,
  registry: SourceRegistry,
): Promise<void> {
  const now = toIsoSeconds(nowMs);
  if (nowMs - Date.parse(request.createdAt) >= AWAITING_MANIFEST_TTL_MS) {
    await recordLookupFailure(db, deps.env.WEBHOOK_DELIVERIES_QUEUE, request, "expired", now);
    return;
  }
  const delay = Math.max(
    1,
    Math.round(AWAITING_MANIFEST_RECHECK_S / registry.lookupSpeedUpFor(request.lineScac ?? "")),
  );
  const set = {
    status: "awaiting_manifest",
    isRetrying: false,
    failedReason: null,
    nextAttemptAt: toIsoSeconds(nowMs + delay * 1000),
    updatedAt: now,
  };
  const update = db.update(trackingRequests).set(set).where(eq(trackingRequests.id, request.id));
  if (request.status === "awaiting_manifest") {
    await update;
  } else {
    // Entering awaiting_manifest is announced once (R §5.5), in the same batch as the change.
    await batchWithNotifications(
      db,
      deps.env.WEBHOOK_DELIVERIES_QUEUE,
      [update],
      { accountId: request.accountId, events: ["tracking_request.awaiting_manifest"], nowIso: now },
      async () => [trackingRequestDraft("tracking_request.awaiting_manifest", { ...request, ...set }, {}, now)],
    );
  }
  await deps.env.TRACKING_REQUESTS_QUEUE.send(
    { trackingRequestId: request.id, accountId: request.accountId },
    { delaySeconds: delay },
  );
}

/**
 * Queue consumer of `tracking-requests`: each message is acked when handled and retried (with the queue's
 * delay) when it throws, so one bad message never holds back the batch.
 */
export async function consumeTrackingRequests(batch: MessageBatch<TrackingRequestMessage>, env: Env): Promise<void> {
  for (const message of batch.messages) {
    try {
      await processTrackingRequest({ env }, message.body);
      message.ack();
    } catch (err) {
      console.error("tracking-requests: message failed", message.id, String(err));
      message.retry({ delaySeconds: Math.min(3600, 30 * 2 ** Math.min(message.attempts, 7)) });
    }
  }
}

/**
 * Polls one box (DESIGN.md §4 step 3–4): asks its Tracker what to poll, asks the carrier source (by the
 * shipment number the box was found with), the POD terminal's source and, on a move with a rail leg, the inland
 * ramp's (which facilities, when: `facilitiesToPoll` in schedule.ts), all at once, and hands the answers to the
 * Tracker. A source that throws or does not answer in time counts as a temporary failure; the Tracker keeps its
 * state (and the facility's last-checked time) and retries sooner.
 */
export async function pollBox(
  deps: Omit<TrackingDeps, "env"> & {
    env: Pick<Env, "TRACKER" | "DCSA_SOURCES" | "SIMULATOR_ENABLED" | "SIMULATION_SPEED">;
  },
  message: TerminalPollMessage,
): Promise<PollResults | null> {
  const stub = deps.env.TRACKER.get(deps.env.TRACKER.idFromName(trackerName(message.scac, message.number)));
  const plan = await stub.pollPlan();
  if (!plan || plan.stopped) return null;
  const registry = deps.sources ?? sourcesFor(deps.env);
  const ctx = contextFor(deps, plan.trackingStartedAtMs);
  const carrierSource = registry.carriers.find((s) => s.supports(plan.scac));
  const guard = async <T>(work: () => Promise<T>, onError: T): Promise<T> => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      // A source that never answers counts as unreachable rather than holding the consumer.
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${SOURCE_TIMEOUT_MS} ms`)), SOURCE_TIMEOUT_MS);
      });
      return await Promise.race([work(), timeout]);
    } catch (err) {
      console.error("terminal-polls: source failed", plan.scac, plan.number, String(err));
      return onError;
    } finally {
      if (timer !== undefined) clearTimeout(timer);
    }
  };
  /** The answer of the terminal source serving `facilityCode` (null: no facility to ask, or no source for it). */
  const pollFacility = (facilityCode: string | null): Promise<TerminalPollResult | null> => {
    const source = facilityCode ? registry.terminals.find((s) => s.supports(facilityCode, plan.scac)) : undefined;
    if (!source || !facilityCode) return Promise.resolve(null);
    return guard<TerminalPollResult>(
      () => source.poll({ containerNumber: plan.number, facilityCode, scac: plan.scac }, ctx),
      { kind: "temporary_failure", reason: "terminal_unreachable" },
    );
  };
  const [carrier, terminal, rail] = await Promise.all([
    carrierSource
      ? guard<LookupResult>(
          () =>
            carrierSource.lookup(
              { requestType: plan.requestType, number: plan.shipmentNumber, scac: plan.scac, status: "created" },
              ctx,
            ),
          { kind: "temporary_failure", reason: "shipping_line_unreachable" },
        )
      : Promise.resolve(null),
    pollFacility(plan.facilityCode),
    pollFacility(plan.railFacilityCode),
  ]);
  const results: PollResults = { carrier, terminal, rail, polledAtMs: ctx.nowMs };
  await stub.applyPoll(results);
  return results;
}

/**
 * Most boxes one `terminal-polls` batch polls at once. A poll mostly waits (its Tracker, the carrier and terminal
 * sources, D1), so polling one box after another left the consumer idle: `npm run bench -- engine` measured
 * 63.8 polls/s that way, 0.04 of the same consumer acking without work.
 */
export const TERMINAL_POLL_CONCURRENCY = 8;

/**
 * Polls the boxes of one `terminal-polls` batch (`poll` per message): the messages of one box (same SCAC and number,
 * hence the same Tracker) one after another in batch order, different boxes up to `concurrency` at a time. Acks a
 * message once its poll resolved; retries it in 30 s when its poll throws, without touching the other messages.
 */
export async function pollMessages(
  messages: readonly Message<TerminalPollMessage>[],
  poll: (body: TerminalPollMessage) => Promise<unknown>,
  concurrency: number = TERMINAL_POLL_CONCURRENCY,
): Promise<void> {
  const byBox = new Map<string, Message<TerminalPollMessage>[]>();
  for (const message of messages) {
    const box = trackerName(message.body.scac, message.body.number);
    const group = byBox.get(box);
    if (group) group.push(message);
    else byBox.set(box, [message]);
  }
  const groups = [...byBox.values()];
  const worker = async (): Promise<void> => {
    for (let group = groups.shift(); group; group = groups.shift()) {
      for (const message of group) {
        try {
          await poll(message.body);
          message.ack();
        } catch (err) {
          console.error("terminal-polls: message failed", message.id, String(err));
          message.retry({ delaySeconds: 30 });
        }
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, groups.length)) }, worker));
}

/** Queue consumer of `terminal-polls`: one poll per message (`pollMessages`); a failing message is retried. */
export async function consumeTerminalPolls(batch: MessageBatch<TerminalPollMessage>, env: Env): Promise<void> {
  if (benchEngineMode(env) === "noop") {
    // Bench baseline (bench/engine), inert unless BENCH_ENGINE=noop: the same consumer doing no work.
    for (const message of batch.messages) message.ack();
    console.warn(`bench-engine ${JSON.stringify({ noop: batch.messages.length })}`);
    return;
  }
  await pollMessages(batch.messages, (body) => pollBox({ env }, body));
}
