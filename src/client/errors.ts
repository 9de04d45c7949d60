import type { ApiErrorObject } from "./types";

/**
 * Codes the client gives errors that did not come from the API's error document: `network_error` (no answer:
 * DNS, refused connection, TLS), `timeout` (no answer within `timeoutMs`), `invalid_response` (an answer that
 * is not the JSON it should be, e.g. an HTML page from a proxy).
 */
export type ClientErrorCode = "network_error" | "timeout" | "invalid_response";

/** Fields of a {@link TrackingClientError}. */
export interface TrackingClientErrorInit {
  status: number;
  errors: ApiErrorObject[];
  retryAfterSeconds?: number | null;
  requestId?: string | null;
  method: string;
  path: string;
  code?: string | null;
  cause?: unknown;
}

/**
 * Every failure of a {@link TrackingClient} call: the API answered with a 4xx/5xx (`status` is the HTTP status,
 * `errors` its JSON:API error objects, docs/api.md §Errors), or no usable answer came (`status` 0 and `code` one of
 * {@link ClientErrorCode}).
 *
 * - `code`: the first error's `code` (`blank`, `duplicate`, `not_supported`, `tracking_stopped`, ...) or a
 *   {@link ClientErrorCode}; null when the API gave none (e.g. 404).
 * - `detail`: the errors' `detail` texts joined with "; " (the HTTP title when there is none).
 * - `retryAfterSeconds`: the `Retry-After` header of a 429 (whole seconds, docs/api.md §Rate limits); null otherwise.
 * - `requestId`: the `X-Request-Id` response header, to quote in support requests.
 *
 * The message never contains the API key: the request headers are not part of the error.
 */
export class TrackingClientError extends Error {
  override readonly name = "TrackingClientError";
  readonly status: number;
  readonly errors: ApiErrorObject[];
  readonly code: string | null;
  readonly detail: string;
  readonly retryAfterSeconds: number | null;
  readonly requestId: string | null;
  /** HTTP method and path (below the base URL, query included) of the failed call. */
  readonly method: string;
  readonly path: string;

  constructor(init: TrackingClientErrorInit) {
    const details = init.errors.map((e) => e.detail ?? "").filter((d) => d !== "");
    const detail = details.length > 0 ? details.join("; ") : (init.errors[0]?.title ?? `HTTP ${init.status}`);
    super(`${init.method} ${init.path} → ${init.status === 0 ? "no response" : init.status}: ${detail}`, {
      cause: init.cause,
    });
    this.status = init.status;
    this.errors = init.errors;
    this.code = init.code ?? init.errors.find((e) => e.code)?.code ?? null;
    this.detail = detail;
    this.retryAfterSeconds = init.retryAfterSeconds ?? null;
    this.requestId = init.requestId ?? null;
    this.method = init.method;
    this.path = init.path;
  }

  /** 404: no such resource in this account (another account's id is a 404 too, docs/decisions.md §Wire format). */
  get isNotFound(): boolean {
    return this.status === 404;
  }

  /** 401: the API key is missing, malformed, unknown or revoked. */
  get isUnauthorized(): boolean {
    return this.status === 401;
  }

  /** 429: a rate bucket is full; wait {@link retryAfterSeconds} before trying again (docs/api.md §Rate limits). */
  get isRateLimited(): boolean {
    return this.status === 429;
  }

  /** 400/422: the request itself is wrong (a query parameter or a body field; `errors[].source` says which). */
  get isInvalidRequest(): boolean {
    return this.status === 400 || this.status === 422;
  }
}

/**
 * Reads `Retry-After` as whole seconds: the delta-seconds form the API sends, or an HTTP date (RFC 9110 §10.2.3)
 * turned into seconds from `nowMs`. Null when absent or unreadable; never negative.
 */
export function parseRetryAfter(value: string | null, nowMs: number = Date.now()): number | null {
  if (value === null) return null;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return null;
  return Math.max(0, Math.ceil((at - nowMs) / 1000));
}

/** Whether `value` looks like a JSON:API error object (enough to keep it in {@link TrackingClientError.errors}). */
function isErrorObject(value: unknown): value is ApiErrorObject {
  return typeof value === "object" && value !== null && typeof (value as { status?: unknown }).status === "string";
}

/**
 * The error objects of an error response body: its `errors` array when it is a JSON:API error document,
 * otherwise one synthetic object with the HTTP status and a generic detail (the body itself is not echoed:
 * a proxy's HTML page is no use to a caller and may be large).
 */
export function errorObjectsFromBody(status: number, statusText: string, body: unknown): ApiErrorObject[] {
  const list = (body as { errors?: unknown } | null)?.errors;
  if (Array.isArray(list)) {
    const objects = list.filter(isErrorObject);
    if (objects.length > 0) return objects;
  }
  return [
    {
      status: String(status),
      title: statusText || `HTTP ${status}`,
      detail: `The API answered HTTP ${status} without a JSON:API error document.`,
    },
  ];
}
