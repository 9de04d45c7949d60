/**
 * The webhook retry schedule (docs/decisions.md §Webhooks "Retries"). Pure: no I/O, randomness injected.
 *
 * A notification gets one first attempt and 12 retries, the n-th retry `WEBHOOK_RETRY_DELAYS_S[n-1]` seconds
 * (±20 % jitter) after the attempt before it: 5 s, 1 min, 5 min, 30 min, 1 h, 2 h, 4 h, 8 h, 12 h, 12 h, 12 h, 12 h
 * (about 2.6 days in all). After the 13th failed attempt the notification is `failed`.
 */

/** Delay before each retry, in seconds (docs/decisions.md §Webhooks): index 0 is the delay after the first attempt. */
export const WEBHOOK_RETRY_DELAYS_S: readonly number[] = [
  5, 60, 300, 1800, 3600, 7200, 14_400, 28_800, 43_200, 43_200, 43_200, 43_200,
];

/** Attempts a notification gets in all: the first and the 12 retries. */
export const WEBHOOK_MAX_ATTEMPTS = WEBHOOK_RETRY_DELAYS_S.length + 1;

/** Jitter applied to every retry delay: ±20 % (docs/decisions.md §Webhooks). */
export const WEBHOOK_RETRY_JITTER = 0.2;

/** Longest delay a Cloudflare Queues message can be given (`delaySeconds` ≤ 12 h). */
export const QUEUE_MAX_DELAY_S = 43_200;

/** Seconds a webhook may go without a success, with failed notifications, before it is disabled (5 days). */
export const WEBHOOK_DISABLE_AFTER_FAILING_S = 5 * 24 * 3600;

/** Per-attempt timeout: no answer within 15 s is a failure (docs/decisions.md §Webhooks). */
export const WEBHOOK_TIMEOUT_MS = 15_000;

/**
 * Delay before the next attempt after `attemptsMade` failed attempts, in seconds with jitter: the schedule's
 * delay × a factor uniform in [0.8, 1.2) drawn from `random` (a `Math.random`-like source in [0, 1)), rounded to
 * whole seconds and at least 1. The result can exceed {@link QUEUE_MAX_DELAY_S} (12 h + 20 %); the consumer then
 * delays the message in steps (see `queueDelaySeconds`).
 * @param attemptsMade attempts already made (≥ 1; smaller values count as 1).
 * @returns null when no retry is left (`attemptsMade` ≥ {@link WEBHOOK_MAX_ATTEMPTS}): the notification fails.
 */
export function retryDelaySeconds(attemptsMade: number, random: () => number = Math.random): number | null {
  const made = Number.isFinite(attemptsMade) ? Math.max(1, Math.floor(attemptsMade)) : 1;
  const base = WEBHOOK_RETRY_DELAYS_S[made - 1];
  if (base === undefined) return null;
  const r = Math.min(Math.max(random(), 0), 1 - Number.EPSILON);
  const factor = 1 - WEBHOOK_RETRY_JITTER + 2 * WEBHOOK_RETRY_JITTER * r;
  return Math.max(1, Math.round(base * factor));
}

/**
 * The `delaySeconds` to give a queue message that should be handled `secondsUntilDue` from now: the remaining
 * time, at least 1 s and at most the queue's 12 h limit (a longer wait is done in several hops; each hop re-checks
 * `next_attempt_at`).
 */
export function queueDelaySeconds(secondsUntilDue: number): number {
  if (!Number.isFinite(secondsUntilDue)) return 1;
  return Math.min(QUEUE_MAX_DELAY_S, Math.max(1, Math.ceil(secondsUntilDue)));
}
