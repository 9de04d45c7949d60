import { eq } from "drizzle-orm";
import { subscribeTrackedBoxes } from "../callbacks/lifecycle";
import { subscribePortOfVirginiaBoxes } from "../callbacks/port-of-virginia";
import type { Database } from "../db/client";
import { trackingRequests } from "../db/schema";
import { primaryDb } from "../db/shards";
import { linkShipmentDocuments } from "../documents/links";
import { inferNumber } from "../infer/service";
import { type Clock, systemClock, toIsoSeconds } from "../lib/clock";
import type { TrackingRequestMessage } from "../tracking-requests/queue-message";
import type { TrackingRequestRow } from "../tracking-requests/serializer";
import { isUniqueViolation } from "../tracking-requests/service";
import { batchWithNotifications } from "../webhooks/outbox";
import { mapWithLimit } from "./map-with-limit";
import {
  claimLookups,
  LOOKUP_HOLD_S,
  type LookupHold,
  markRequestCreated,
  recordLookupFailures,
  releaseLookup,
  trackingRequestDraft,
  writeLookupRows,
} from "./persist";
import { accountDb } from "./shard-groups";
import { type SourceRegistry, sourcesFor } from "./sources";
import type { ContainerFacts, LookupResult, ShipmentFacts, SourceContext } from "./sources/types";
import { type BoxIdentity, trackerName } from "./tracker-state";

const MINUTE_S = 60;
const HOUR_S = 3600;

/** Longest a poll waits for one source before counting it unreachable (ms). */
export const SOURCE_TIMEOUT_MS = 30_000;

/**
 * Lookups of a request before `failed` (`retries_exhausted`), docs/api.md §Tracking request status: at most 14 tries
 * within about 24 h.
 */
export const MAX_LOOKUP_ATTEMPTS = 14;
/** `awaiting_manifest` is re-checked every 6 h … */
export const AWAITING_MANIFEST_RECHECK_S = 6 * HOUR_S;
/** … for 7 days, then the request fails as `expired` (docs/decisions.md §Tracking requests). */
export const AWAITING_MANIFEST_TTL_MS = 7 * 24 * HOUR_S * 1000;

/**
 * Delay before lookup attempt `attempt + 1` after `attempt` failures (seconds): 1, 2, 4 … minutes, at most
 * 4 hours, so 14 tries span about 24 h (docs/api.md §Tracking request status).
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
    | "PUBLIC_BASE_URL"
    | "UPSTREAM_SUBSCRIPTION_KEY"
  >;
  clock?: Clock;
  fetch?: typeof fetch;
  sources?: SourceRegistry;
}

function contextFor(deps: Pick<TrackingDeps, "clock" | "fetch">, trackingStartedAtMs: number): SourceContext {
  const clock = deps.clock ?? systemClock;
  return { nowMs: clock.now(), fetch: deps.fetch ?? ((input, init) => fetch(input, init)), trackingStartedAtMs };
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
  shard: number,
): Promise<string> {
  const now = toIsoSeconds(nowMs);
  const rows = await writeLookupRows(db, request, facts, now, shard === 0 ? null : primaryDb(deps.env as Env));
  // Documents of the account naming the new shipment or its boxes are linked to them (docs/documents.md §Links),
  // after the rows are committed and on every delivery (a no-op once done). Never fails the lookup: a relink redoes it.
  try {
    await linkShipmentDocuments(
      { db, nowIso: now, webhookQueue: deps.env.WEBHOOK_DELIVERIES_QUEUE },
      request.accountId,
      rows.shipmentId,
    );
  } catch (err) {
    console.error("tracking-requests: linking documents failed", request.id, String(err));
  }
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
  await markRequestCreated(db, deps.env.WEBHOOK_DELIVERIES_QUEUE, request, rows.shipmentId, now, shard);
  // Push subscriptions where the line offers them (issue 13 §4); never throws, polling tracks regardless.
  await subscribeTrackedBoxes(
    { env: deps.env, clock: deps.clock, fetch: deps.fetch },
    scac,
    rows.containers.map((b) => b.trackedEquipmentId),
  );
  // Availability pushes of the Port of Virginia for boxes at its terminals (issue 14); never throws either.
  await subscribePortOfVirginiaBoxes(
    { env: deps.env, clock: deps.clock, fetch: deps.fetch },
    {
      scac,
      podTerminalCode: facts.podTerminalCode,
      portOfDischargeLocode: facts.portOfDischargeLocode,
      // As PollPlan.billOfLadingNumber: a booking lookup's number is the booking, not a BL.
      billOfLadingNumber:
        request.requestType === "bill_of_lading"
          ? request.normalizedNumber
          : request.requestType === "container"
            ? facts.billOfLadingNumber
            : null,
    },
    rows.containers.map((b) => b.trackedEquipmentId),
  );
  return rows.shipmentId;
}

/** Lookups of one consumer batch run at once (the queue's `max_batch_size`, wrangler.toml: a batch runs in one wave). */
export const LOOKUP_CONCURRENCY = 10;

/**
 * How a lookup ended that the batch writes together with the others of its shard: the request failed for good with
 * `failed_reason` `reason`; or `done` (it wrote what followed itself: found, awaiting its manifest, a retry).
 */
type LookupOutcome = { kind: "failed"; reason: string } | { kind: "done" };

/** One message's result in {@link processTrackingRequests}: handled (ack), or the error to retry it for. */
export type TrackingMessageOutcome = { ok: true } | { ok: false; error: unknown };

/**
 * Handles one `tracking-requests` message (docs/architecture.md §Tracking pipeline step 2): a batch of one, see
 * {@link processTrackingRequests}.
 * @throws what the message's handling threw (its hold given back), so the caller retries it.
 */
export async function processTrackingRequest(deps: TrackingDeps, message: TrackingRequestMessage): Promise<void> {
  const [outcome] = await processTrackingRequests(deps, [message]);
  if (outcome && !outcome.ok) throw outcome.error;
}

/**
 * Handles the messages of one `tracking-requests` batch (docs/architecture.md §Tracking pipeline step 2,
 * docs/api.md §Tracking request status lifecycle): looks each number up at the carrier source of its SCAC and moves
 * the request on:
 * - found → shipment and containers written, each box attached to its Tracker, `created`;
 * - container not found → `failed` (`not_found`); BL/booking not found → `awaiting_manifest`, re-checked every
 *   6 h for 7 days, then `failed` (`expired`);
 * - unreachable or unparsable → stays `pending` with `is_retrying`, `retry_count`, the temporary
 *   `failed_reason`, and a new message after a backoff; after 14 tries `failed` (`retries_exhausted`);
 * - no SCAC (auto-detect found none) or no source for it → `failed` (`scac_auto_detect_failed` /
 *   `shipping_line_unreachable`).
 *
 * Per shard of the messages' accounts (`accountDb`), the due requests are claimed in one statement (`claimLookups`,
 * issue 23 §3 and issue 29 §4): a request no longer pending or awaiting its manifest is left alone, and one another
 * consumer holds or that is not due yet is left to that consumer or to its own later message, so redelivered and
 * re-queued messages (a duplicate in the same batch included) never run a lookup twice at once. The claimed lookups
 * run {@link LOOKUP_CONCURRENCY} at a time, so a batch of up to that many ends within one {@link LOOKUP_HOLD_S}; a
 * longer one is held that much longer per wave. The failures of a shard are then written in one D1 batch with their
 * notifications (`recordLookupFailures`); should that batch fail, each is written on its own, so one cannot fail the
 * others. A message whose handling throws gives its hold back (`releaseLookup`), so its retry finds the request due.
 * @returns per message, in order: handled (ack it; also when its request was not claimed, or its account is unknown)
 *   or the error to retry it for. Never throws.
 */
export async function processTrackingRequests(
  deps: TrackingDeps,
  messages: readonly TrackingRequestMessage[],
): Promise<TrackingMessageOutcome[]> {
  const outcomes: TrackingMessageOutcome[] = messages.map(() => ({ ok: true }));
  const fail = (index: number, error: unknown) => {
    outcomes[index] = { ok: false, error };
  };
  // The request and the rows its lookup writes are in the account's shard (issue 29 §3), tracked_equipment in the primary.
  const targets = await Promise.allSettled(messages.map((m) => accountDb(deps.env as Env, m.accountId)));
  const groups = new Map<number, { db: Database; indexes: number[] }>();
  targets.forEach((target, index) => {
    const message = messages[index] as TrackingRequestMessage;
    if (target.status === "rejected") {
      fail(index, target.reason);
      return;
    }
    if (!target.value) {
      console.error("tracking-requests: no such account; dropped", message.trackingRequestId);
      return;
    }
    const group = groups.get(target.value.shard) ?? { db: target.value.db, indexes: [] };
    group.indexes.push(index);
    groups.set(target.value.shard, group);
  });
  const nowMs = (deps.clock ?? systemClock).now();
  const now = toIsoSeconds(nowMs);
  const holdS = LOOKUP_HOLD_S * Math.ceil(Math.max(1, messages.length) / LOOKUP_CONCURRENCY);

  // One claim per shard; each held request goes to the first message naming it (with its account), the others of the
  // batch naming it are acked as duplicates.
  type Held = { index: number; shard: number; db: Database; hold: LookupHold };
  const claimed = await Promise.all(
    [...groups].map(async ([shard, { db, indexes }]): Promise<Held[]> => {
      let holds: LookupHold[];
      try {
        holds = await claimLookups(
          db,
          indexes.map((i) => messages[i] as TrackingRequestMessage),
          nowMs,
          holdS,
        );
      } catch (err) {
        for (const i of indexes) fail(i, err);
        return [];
      }
      return holds.flatMap((hold) => {
        const index = indexes.find((i) => {
          const m = messages[i] as TrackingRequestMessage;
          return m.trackingRequestId === hold.request.id && m.accountId === hold.request.accountId;
        });
        return index === undefined ? [] : [{ index, shard, db, hold }];
      });
    }),
  );
  const held = claimed.flat().sort((a, b) => a.index - b.index);

  const failures: (Held & { reason: string })[] = [];
  await mapWithLimit(held, LOOKUP_CONCURRENCY, async (entry) => {
    const message = messages[entry.index] as TrackingRequestMessage;
    try {
      const outcome = await lookUpRequest(deps, entry.db, entry.hold.request, message, nowMs, entry.shard);
      if (outcome.kind === "failed") failures.push({ ...entry, reason: outcome.reason });
    } catch (err) {
      await releaseLookup(entry.db, entry.hold);
      fail(entry.index, err);
    }
  });

  const queue = deps.env.WEBHOOK_DELIVERIES_QUEUE;
  await Promise.all(
    [...groups.keys()].map(async (shard) => {
      const mine = failures.filter((f) => f.shard === shard);
      const first = mine[0];
      if (!first) return;
      try {
        await recordLookupFailures(
          first.db,
          queue,
          mine.map((f) => ({ request: f.hold.request, reason: f.reason })),
          now,
          shard,
        );
        return;
      } catch (err) {
        if (mine.length === 1) {
          await releaseLookup(first.db, first.hold);
          fail(first.index, err);
          return;
        }
        console.error(
          "tracking-requests: writing a batch's failures failed; each on its own",
          mine.length,
          String(err),
        );
      }
      for (const f of mine) {
        try {
          await recordLookupFailures(f.db, queue, [{ request: f.hold.request, reason: f.reason }], now, shard);
        } catch (err) {
          await releaseLookup(f.db, f.hold);
          fail(f.index, err);
        }
      }
    }),
  );
  return outcomes;
}

/**
 * One lookup of a request this consumer holds (`processTrackingRequests`), and what follows from its answer. A failure
 * for good is returned rather than written, for the batch to write with the others of its shard.
 */
async function lookUpRequest(
  deps: TrackingDeps,
  db: Database,
  request: TrackingRequestRow,
  message: TrackingRequestMessage,
  nowMs: number,
  shard: number,
): Promise<LookupOutcome> {
  const registry = deps.sources ?? sourcesFor(deps.env);
  const now = toIsoSeconds(nowMs);
  const createdAtMs = Date.parse(request.createdAt);
  let scac = request.lineScac ?? request.scac;
  if (!scac && request.autoDetectScac) {
    const detected = await detectScac(db, request, registry, now);
    if (detected.kind === "duplicate") return { kind: "failed", reason: "duplicate" };
    scac = detected.kind === "detected" ? detected.scac : null;
  }
  const source = scac ? registry.carriers.find((s) => s.supports(scac as string)) : undefined;
  if (!scac || !source) {
    return { kind: "failed", reason: scac ? "shipping_line_unreachable" : "scac_auto_detect_failed" };
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
      await attachTrackers(deps, db, request, result.shipment, nowMs, createdAtMs, shard);
      return { kind: "done" };
    case "failed":
      return { kind: "failed", reason: result.reason };
    case "not_found":
      if (request.requestType === "container") return { kind: "failed", reason: "not_found" };
      return awaitManifest(deps, db, request, nowMs, registry, shard);
    case "awaiting_manifest":
      return awaitManifest(deps, db, request, nowMs, registry, shard);
    case "temporary_failure": {
      const tries = attempt + 1;
      if (result.reason === "shipping_line_credentials_rejected") {
        // Once per lookup attempt of a request (its retries back off); polls of tracked boxes log an outage once.
        console.error(
          `tracking: ${scac} refused our credentials looking up ${request.normalizedNumber} (tracking request ${request.id}, attempt ${tries}); check DCSA_SOURCES.`,
        );
      }
      if (tries >= MAX_LOOKUP_ATTEMPTS) return { kind: "failed", reason: "retries_exhausted" };
      await db
        .update(trackingRequests)
        .set({
          isRetrying: true,
          // The request keeps the reference's enum (docs/api.md §Tracking request status); the shipment-level reason is
          // ours (issue 13 §1).
          failedReason:
            result.reason === "shipping_line_credentials_rejected" ? "shipping_line_unreachable" : result.reason,
          retryCount: tries,
          nextAttemptAt: toIsoSeconds(nowMs + lookupRetryDelaySeconds(tries) * 1000),
          updatedAt: now,
        })
        .where(eq(trackingRequests.id, request.id));
      await deps.env.TRACKING_REQUESTS_QUEUE.send(message, { delaySeconds: lookupRetryDelaySeconds(tries) });
      return { kind: "done" };
    }
  }
}

/**
 * `auto_detect_vocc_scac` (docs/decisions.md §Infer number): runs the same inference as `infer_number` and takes the
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
  shard: number,
): Promise<LookupOutcome> {
  const now = toIsoSeconds(nowMs);
  if (nowMs - Date.parse(request.createdAt) >= AWAITING_MANIFEST_TTL_MS) return { kind: "failed", reason: "expired" };
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
    // Entering awaiting_manifest is announced once (docs/webhooks.md §Payloads), in the same batch as the change.
    await batchWithNotifications(
      db,
      deps.env.WEBHOOK_DELIVERIES_QUEUE,
      [update],
      { accountId: request.accountId, events: ["tracking_request.awaiting_manifest"], nowIso: now },
      async () => [trackingRequestDraft("tracking_request.awaiting_manifest", { ...request, ...set }, {}, now)],
      shard,
    );
  }
  await deps.env.TRACKING_REQUESTS_QUEUE.send(
    { trackingRequestId: request.id, accountId: request.accountId },
    { delaySeconds: delay },
  );
  return { kind: "done" };
}

/**
 * Queue consumer of `tracking-requests`: the batch is handled together (`processTrackingRequests`: one claim and one
 * failure write per shard), and each message is acked when handled and retried (with the queue's delay) when its own
 * handling threw, so one bad message never holds back or re-runs the others.
 */
export async function consumeTrackingRequests(batch: MessageBatch<TrackingRequestMessage>, env: Env): Promise<void> {
  const outcomes = await processTrackingRequests(
    { env },
    batch.messages.map((m) => m.body),
  );
  batch.messages.forEach((message, i) => {
    const outcome = outcomes[i];
    if (!outcome || outcome.ok) {
      message.ack();
      return;
    }
    console.error("tracking-requests: message failed", message.id, String(outcome.error));
    message.retry({ delaySeconds: Math.min(3600, 30 * 2 ** Math.min(message.attempts, 7)) });
  });
}
