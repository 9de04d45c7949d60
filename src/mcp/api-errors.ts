/**
 * The errors of `TrackingApi` (src/mcp/api.ts): what went wrong in terms a model can act on, and the mapping from the
 * services' `ApiError` (the REST statuses) to them, so an MCP tool and a REST client hear the same thing.
 */

import { ROUTING_ENTITLEMENT, ROUTING_NOT_ENABLED_DETAIL } from "../containers/shipping-route";
import { ApiError } from "../lib/errors";

/**
 * What went wrong, in terms a model can act on (docs/mcp.md §Where we go further gap 1):
 * - `not_found`: no such id (or number) in this account (REST 404);
 * - `invalid_argument`: the input was rejected (REST 400/422); `field` names the argument when known;
 * - `rate_limited`: the account's default bucket is exhausted (REST 429); retry after `retryAfterSeconds`;
 * - `forbidden_feature`: a paid feature the account lacks, e.g. `routing` (REST 403);
 * - `forbidden`: the caller's role may not do this, e.g. a viewer's OAuth token creating a tracking request (REST 403);
 * - `unauthorized`: the session has no owner (REST 401);
 * - `upstream`: the service failed (REST 5xx); safe to retry later.
 */
export type TrackingApiErrorKind =
  | "not_found"
  | "invalid_argument"
  | "rate_limited"
  | "forbidden_feature"
  | "forbidden"
  | "unauthorized"
  | "upstream";

/** Extra facts of a {@link TrackingApiError}. */
export interface TrackingApiErrorDetails {
  /** `rate_limited`: whole seconds until a retry can succeed (REST `Retry-After`, ≥ 1). */
  retryAfterSeconds?: number;
  /** `invalid_argument`: the argument or body field at fault (e.g. `scac`, `request_number`). */
  field?: string;
  /** Machine code of the REST error when there is one (`blank`, `duplicate`, `not_supported`, ...). */
  code?: string;
  /** `forbidden_feature`: the entitlement that is missing (e.g. `routing`). */
  feature?: string;
}

/**
 * The only error a `TrackingApi` method rejects with on purpose. `message` is safe to show to a model or a
 * user: it never carries keys, URLs, SQL or stack traces.
 */
export class TrackingApiError extends Error {
  readonly kind: TrackingApiErrorKind;
  readonly retryAfterSeconds?: number;
  readonly field?: string;
  readonly code?: string;
  readonly feature?: string;

  constructor(kind: TrackingApiErrorKind, message: string, details: TrackingApiErrorDetails = {}) {
    super(message);
    this.name = "TrackingApiError";
    this.kind = kind;
    if (details.retryAfterSeconds !== undefined) this.retryAfterSeconds = details.retryAfterSeconds;
    if (details.field !== undefined) this.field = details.field;
    if (details.code !== undefined) this.code = details.code;
    if (details.feature !== undefined) this.feature = details.feature;
  }
}

/**
 * Maps a REST status (and its JSON:API error `detail`/`code`/pointer) to a {@link TrackingApiError}: 400/422 →
 * `invalid_argument`, 401 → `unauthorized`, 403 → `forbidden_feature`, 404 → `not_found`, 429 → `rate_limited` (with
 * `Retry-After`), anything else → `upstream` (whose message is generic: server-side details are not repeated).
 */
export function trackingApiErrorFromStatus(
  status: number,
  error: { detail?: string | null; code?: string; pointer?: string; parameter?: string } = {},
  retryAfterSeconds?: number,
): TrackingApiError {
  const detail = error.detail ?? undefined;
  const field = fieldFromSource(error.pointer ?? error.parameter);
  const base: TrackingApiErrorDetails = {};
  if (error.code) base.code = error.code;
  if (field) base.field = field;
  switch (status) {
    case 400:
    case 422:
      return new TrackingApiError("invalid_argument", detail ?? "The request was rejected as invalid.", base);
    case 401:
      return new TrackingApiError("unauthorized", "The API key was rejected (missing, unknown or revoked).");
    case 403:
      return new TrackingApiError("forbidden_feature", detail ?? "This feature is not enabled for this account.", base);
    case 404:
      return new TrackingApiError("not_found", detail ?? "Not found in this account.");
    case 429: {
      const seconds = Math.max(1, Math.ceil(retryAfterSeconds ?? 60));
      return new TrackingApiError("rate_limited", `Rate limit exceeded; retry after ${seconds} s.`, {
        retryAfterSeconds: seconds,
      });
    }
    default:
      return new TrackingApiError("upstream", "The tracking service could not complete the request; retry later.");
  }
}

/** `/data/attributes/scac` → `scac`; `filter[status]` → `filter[status]`. */
function fieldFromSource(source: string | undefined): string | undefined {
  if (!source) return undefined;
  const last = source.split("/").filter(Boolean).pop();
  return last ?? source;
}

/**
 * The `forbidden_feature` error of `getContainerRoute` for an account without the `routing` entitlement: the
 * REST 403 detail (docs/api.md §Errors) plus what to do instead, with `feature: "routing"`.
 */
export function routingNotEnabledError(): TrackingApiError {
  return new TrackingApiError(
    "forbidden_feature",
    `${ROUTING_NOT_ENABLED_DETAIL}. Ask the account owner to enable the \`${ROUTING_ENTITLEMENT}\` feature; until then use get_container_transport_events and get_shipment_details for the journey.`,
    { feature: ROUTING_ENTITLEMENT },
  );
}

/** Runs `fn`, turning a service `ApiError` into the `TrackingApiError` of the same meaning. */
export async function mapErrors<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    const first = err.errors[0];
    const retryAfter = err.headers["Retry-After"];
    throw trackingApiErrorFromStatus(
      err.status,
      {
        detail: first?.detail,
        code: first?.code,
        pointer: first?.source?.pointer,
        parameter: first?.source?.parameter,
      },
      retryAfter ? Number(retryAfter) : undefined,
    );
  }
}
