import { createDatabase, type Database } from "../db/client";
import { dbFor } from "../db/shards";
import { type Clock, systemClock } from "../lib/clock";
import { checkRateLimit } from "../ratelimit/client";
import { sourcesFor } from "../tracking/sources";
import { type ImportDeps, runImportStep, type TrackingRequestImportMessage } from "./service";

/**
 * The deps of imports from the Worker's bindings: D1, the tracking-requests queue and SCACs with a source (the create
 * path's), the import queue, and the account's `create_tracking_request` bucket in its RateLimiter (the one
 * POST /tracking_requests draws from, so API creates and imports share RATE_LIMIT_CREATE_TRACKING_REQUEST).
 * `db` is the database of the import's account (its shard, src/db/shards.ts); the primary by default.
 */
export function importDepsFromEnv(
  env: Env,
  clock: Clock = systemClock,
  db: Database = createDatabase(env.DB),
): ImportDeps {
  return {
    db,
    clock,
    queue: env.TRACKING_REQUESTS_QUEUE,
    supportedScacs: sourcesFor(env).supportedScacs,
    importQueue: env.TRACKING_REQUEST_IMPORTS_QUEUE,
    takeCreateToken: (accountId, nowMs) => checkRateLimit(env, accountId, "create_tracking_request", nowMs),
  };
}

/**
 * Consumer of `tracking-request-imports` (docs/architecture.md §Tracking request imports): runs one step of the
 * import (`runImportStep`) and, when rows are left, sends the next step, delayed by the create bucket's `Retry-After`
 * when it was full (a new message, not a retry, so waiting for the bucket never counts against `max_retries`). A step
 * that throws (D1 or the queue unreachable) is retried with backoff; its rows were given back first.
 */
export async function consumeTrackingRequestImports(
  batch: MessageBatch<TrackingRequestImportMessage>,
  env: Env,
): Promise<void> {
  for (const message of batch.messages) {
    try {
      // The import and the requests it creates are in its account's shard (issue 29 §3).
      const db = await dbFor(env, message.body.accountId);
      const result = await runImportStep(importDepsFromEnv(env, systemClock, db), message.body);
      if (!result.done) {
        await env.TRACKING_REQUEST_IMPORTS_QUEUE.send(message.body, { delaySeconds: result.delaySeconds });
      }
      message.ack();
    } catch (err) {
      console.error("tracking-request-imports: step failed", message.id, String(err));
      message.retry({ delaySeconds: Math.min(300, 10 * 2 ** Math.min(message.attempts, 5)) });
    }
  }
}
