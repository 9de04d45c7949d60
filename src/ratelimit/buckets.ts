/** Rate buckets of docs/api.md §Rate limits; each has its own rolling 60 s window per account. */
export type BucketName = "default" | "create_tracking_request" | "infer_number" | "refresh_container";

/** Window of every bucket: a rolling 60 seconds. */
export const WINDOW_MS = 60_000;

/** Default limits per minute (docs/api.md §Rate limits); each can be changed by an environment variable. */
const DEFAULT_LIMITS: Record<BucketName, number> = {
  default: 100,
  create_tracking_request: 100,
  infer_number: 200,
  refresh_container: 10,
};

const ENV_KEYS: Record<BucketName, keyof Env> = {
  default: "RATE_LIMIT_DEFAULT",
  create_tracking_request: "RATE_LIMIT_CREATE_TRACKING_REQUEST",
  infer_number: "RATE_LIMIT_INFER_NUMBER",
  refresh_container: "RATE_LIMIT_REFRESH_CONTAINER",
};

/** The limit of `bucket` in requests per window, from the environment when set to a positive integer. */
export function limitFor(env: Env, bucket: BucketName): number {
  const raw = env[ENV_KEYS[bucket]];
  if (typeof raw === "string" && /^\d+$/.test(raw)) {
    const n = Number.parseInt(raw, 10);
    if (n > 0) return n;
  }
  return DEFAULT_LIMITS[bucket];
}

/**
 * The bucket a request draws from, by method and path (paths relative to the origin, e.g.
 * `/v2/tracking_requests`). Everything without a dedicated bucket, the MCP endpoint included, uses `default`.
 */
export function bucketFor(method: string, path: string): BucketName {
  const p = path.replace(/\/+$/, "");
  if (method === "POST" && p === "/v2/tracking_requests") return "create_tracking_request";
  if (method === "POST" && p === "/v2/tracking_requests/infer_number") return "infer_number";
  if (method === "PATCH" && /^\/v2\/containers\/[^/]+\/refresh$/.test(p)) return "refresh_container";
  return "default";
}

/**
 * The 429 `detail` of each bucket, in the reference service's words (docs/api.md §Container endpoints,
 * §Tracking request endpoints, §Rate limits).
 */
export const BUCKET_MESSAGES: Record<BucketName, string> = {
  default:
    "Your account has exceeded its API rate limit. Please reduce request frequency or contact support to increase your limit. Consider using webhooks for real-time updates instead of polling.",
  create_tracking_request: "You've hit the create tracking requests limit. Please try again in a minute.",
  infer_number: "Rate limit exceeded",
  refresh_container: "You've hit the refresh limit. Please try again in a minute.",
};
