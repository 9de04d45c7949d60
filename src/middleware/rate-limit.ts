import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../env";
import { ApiError } from "../lib/errors";
import { executionContextOf } from "../lib/http";
import { BUCKET_MESSAGES, bucketFor } from "../ratelimit/buckets";
import { checkRateLimit } from "../ratelimit/client";

/**
 * Counts the request against the caller's bucket in the account's RateLimiter Durable Object before any
 * other work (docs/api.md §Rate limits). Over the limit → 429 with `Retry-After` (whole seconds, the only rate-limit
 * header) and no side effect. Concurrent checks of one account are batched into one Durable Object call
 * (`checkRateLimit`, src/ratelimit/client.ts); a lease the check takes is settled when it ends from the request's
 * `waitUntil`.
 */
export const rateLimit: MiddlewareHandler<AppEnv> = async (c, next) => {
  // `c.get`, not `c.var`: Hono's `c.var` copies every variable into a new object on each access.
  const { accountId } = c.get("principal");
  const bucket = bucketFor(c.req.method, c.req.path);
  const decision = await checkRateLimit(c.env, accountId, bucket, c.get("clock").now(), executionContextOf(c));
  if (!decision.allowed) {
    throw new ApiError(429, [{ detail: BUCKET_MESSAGES[bucket] }], {
      "Retry-After": String(decision.retryAfterSeconds),
    });
  }
  await next();
};
