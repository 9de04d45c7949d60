import { and, eq } from "drizzle-orm";
import { createDatabase } from "../db/client";
import { trackingRequests } from "../db/schema";
import type { Env, TrackingRequestMessage } from "../env";
import { type Clock, systemClock, toIsoSeconds } from "../lib/clock";
import { recordLookupFailure, recordLookupSuccess } from "./persist";
import { sandboxSource } from "./sources/sandbox";
import type { CarrierSource } from "./sources/types";

/** Carrier sources in order of preference; the first that supports a SCAC handles it. */
export function carrierSources(): CarrierSource[] {
  return [sandboxSource];
}

/**
 * Handles one `tracking-requests` message (DESIGN.md §4 step 2): looks the number up at the carrier source
 * of its SCAC and records the outcome. A request that is no longer `pending` is left alone, so redelivered
 * messages are harmless. Temporary failures are thrown so the queue retries the message with its backoff.
 */
export async function processTrackingRequest(
  env: Pick<Env, "DB">,
  message: TrackingRequestMessage,
  clock: Clock = systemClock,
  sources: CarrierSource[] = carrierSources(),
): Promise<void> {
  const db = createDatabase(env.DB);
  const [request] = await db
    .select()
    .from(trackingRequests)
    .where(and(eq(trackingRequests.id, message.trackingRequestId), eq(trackingRequests.accountId, message.accountId)))
    .limit(1);
  if (request?.status !== "pending") return;
  const now = toIsoSeconds(clock.now());
  const scac = request.lineScac ?? request.scac;
  const source = scac ? sources.find((s) => s.supports(scac)) : undefined;
  if (!scac || !source) {
    await recordLookupFailure(db, request, scac ? "shipping_line_unreachable" : "scac_auto_detect_failed", now);
    return;
  }
  const result = await source.lookup(
    { requestType: request.requestType, number: request.normalizedNumber, scac },
    clock.now(),
  );
  switch (result.kind) {
    case "found":
      await recordLookupSuccess(db, request, result.shipment, now);
      return;
    case "not_found":
      await recordLookupFailure(db, request, "not_found", now);
      return;
    case "awaiting_manifest":
      await db
        .update(trackingRequests)
        .set({ status: "awaiting_manifest", updatedAt: now })
        .where(eq(trackingRequests.id, request.id));
      return;
    case "temporary_failure":
      await db
        .update(trackingRequests)
        .set({
          isRetrying: true,
          failedReason: result.reason,
          retryCount: (request.retryCount ?? 0) + 1,
          updatedAt: now,
        })
        .where(eq(trackingRequests.id, request.id));
      throw new Error(`temporary failure looking up ${request.id}: ${result.reason}`);
  }
}

/**
 * Queue consumer of `tracking-requests`: each message is acked when handled and retried (with the queue's
 * delay) when it throws, so one bad message never holds back the batch.
 */
export async function consumeTrackingRequests(batch: MessageBatch<TrackingRequestMessage>, env: Env): Promise<void> {
  for (const message of batch.messages) {
    try {
      await processTrackingRequest(env, message.body);
      message.ack();
    } catch (err) {
      console.error("tracking-requests: message failed", message.id, String(err));
      message.retry({ delaySeconds: Math.min(3600, 30 * 2 ** Math.min(message.attempts, 7)) });
    }
  }
}
