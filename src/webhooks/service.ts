import { and, eq, inArray, sql } from "drizzle-orm";
import type { Database } from "../db/client";
import {
  accountResourceCounts,
  type WebhookHeader,
  webhookDeliveries,
  webhookNotifications,
  webhooks,
} from "../db/schema";
import { type Clock, toIsoSeconds } from "../lib/clock";
import { bumpCount, countQuery } from "../lib/counts";
import { ApiError, type ErrorObject } from "../lib/errors";
import { newId } from "../lib/ids";
import type { PageRequest } from "../lib/jsonapi/pagination";
import { listPage } from "../lib/list-query";
import { ownedBy } from "../lib/tenant";
import { CONTROL_CHARACTER_CODE, hasControlCharacter } from "../lib/validation";
import { isExtensionWebhookEvent, isWebhookEvent } from "./catalog";
import { examplePayload } from "./examples";
import { sendWebhook } from "./send";
import type { WebhookRow } from "./serializer";
import { RESERVED_HEADER_NAMES } from "./signature";
import { checkWebhookUrl } from "./ssrf";

/** One field error of a 422 (status and title are added by ApiError). */
export type FieldError = Omit<ErrorObject, "status" | "title">;

/** What the webhook service needs. */
export interface WebhookDeps {
  db: Database;
  clock: Clock;
  /** Hosts that may use `http://` (`WEBHOOK_ALLOW_INSECURE_HOSTS`, parsed by `parseAllowInsecureHosts`). */
  allowInsecureHosts: readonly string[];
}

/**
 * Most webhooks an account may have. Every event fans out to one notification per subscribed webhook, written in
 * the same D1 batch as the change that caused it (src/webhooks/outbox.ts), so the fan-out must stay bounded.
 */
export const MAX_WEBHOOKS_PER_ACCOUNT = 100;

/** Most custom headers a webhook may carry (a bound on what every delivery sends). */
export const MAX_WEBHOOK_HEADERS = 20;
/** Longest custom header name, in characters. */
export const MAX_HEADER_NAME_LENGTH = 128;
/** Longest custom header value, in characters. */
export const MAX_HEADER_VALUE_LENGTH = 1024;

/** RFC 7230 §3.2.6 `token`: the characters an HTTP header name may contain. */
const HTTP_TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Printable ASCII plus space and tab: header values that every HTTP stack carries unchanged (no CR, LF, NUL). */
const HEADER_VALUE = /^[\t\x20-\x7e]*$/;

/**
 * Header names a webhook may not set, lower case, beyond those every delivery sets itself
 * (`RESERVED_HEADER_NAMES` of src/webhooks/signature.ts: Content-Type, User-Agent, the signature headers …): what the
 * HTTP stack owns (Content-Length, Transfer-Encoding, connection management) and what proxies interpret.
 */
const RESERVED_API_HEADER_NAMES: ReadonlySet<string> = new Set([
  "content-type",
  "content-length",
  "host",
  "user-agent",
  "content-encoding",
  "transfer-encoding",
  "connection",
  "keep-alive",
  "te",
  "trailer",
  "upgrade",
  "expect",
  "date",
  "via",
  "forwarded",
]);

/** Reserved name prefixes: Standard Webhooks `webhook-*`, our `X-SVC-*`, `Proxy-*`, Cloudflare's `CF-*`. */
const RESERVED_HEADER_PREFIXES: readonly string[] = ["webhook-", "x-svc-", "proxy-", "cf-"];

/**
 * Whether a custom header name is reserved (case-insensitive, docs/decisions.md §Webhooks "Signature headers"): a
 * header every delivery sets (Content-Type, Content-Length, Host, User-Agent, `webhook-id|timestamp|signature`,
 * `X-SVC-Webhook-Signature`), a hop-by-hop or proxy header, or a name under a reserved prefix (`webhook-`, `X-SVC-`,
 * `Proxy-`, `CF-`).
 */
export function isReservedHeaderName(name: string): boolean {
  const lower = name.toLowerCase();
  return (
    RESERVED_HEADER_NAMES.has(lower) ||
    RESERVED_API_HEADER_NAMES.has(lower) ||
    RESERVED_HEADER_PREFIXES.some((p) => lower.startsWith(p))
  );
}

/**
 * A new webhook signing secret (docs/decisions.md §Webhooks): `whsec_` + standard base64 of 32 CSPRNG bytes. The
 * `whsec_` form is what Standard Webhooks libraries take as is; `X-SVC-Webhook-Signature` keys on the whole string.
 */
export function generateWebhookSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return `whsec_${btoa(binary)}`;
}

/**
 * Checks a webhook URL against the SSRF rules (src/webhooks/ssrf.ts) for a body field.
 * @returns the URL to store (the parsed `href`: what was checked is what is sent), or the field error.
 */
export function validateWebhookUrl(
  raw: string,
  allowInsecureHosts: readonly string[],
  pointer: string,
): { url: string } | { error: FieldError } {
  const result = checkWebhookUrl(raw, allowInsecureHosts);
  if (result.ok) return { url: result.url.href };
  return { error: { detail: result.detail, source: { pointer }, code: result.code } };
}

/**
 * Checks a webhook's events (docs/decisions.md §Webhooks: at least one, all from the catalog of
 * docs/webhooks.md §Events or our `EXTENSION_WEBHOOK_EVENTS`, which a webhook receives only when it lists them). Each
 * unknown event is its own error at `<pointer>/<index>` with code `not_recognized`; an empty list is `blank`.
 * @returns the events without duplicates (first occurrence kept) and the errors.
 */
export function validateEvents(events: readonly string[], pointer: string): { events: string[]; errors: FieldError[] } {
  const errors: FieldError[] = [];
  if (events.length === 0) {
    errors.push({ detail: "Events can't be blank", source: { pointer }, code: "blank" });
  }
  events.forEach((event, index) => {
    if (!isWebhookEvent(event) && !isExtensionWebhookEvent(event)) {
      errors.push({
        detail: `Event '${event.slice(0, 100)}' is not a webhook event (GET /webhooks/events lists them).`,
        source: { pointer: `${pointer}/${index}` },
        code: "not_recognized",
      });
    }
  });
  return { events: [...new Set(events)], errors };
}

/**
 * Checks custom headers: at most `MAX_WEBHOOK_HEADERS`; each name an RFC 7230 token of at most
 * `MAX_HEADER_NAME_LENGTH` characters, not reserved (`isReservedHeaderName`), not repeated (case-insensitive);
 * each value non-blank printable ASCII (no control character, `control_character`) of at most `MAX_HEADER_VALUE_LENGTH` characters after trimming.
 * Errors point at `<pointer>/<index>/name|value` (or `<pointer>` for the count).
 * Names are stored exactly as given (issue 11 §5; the reference service capitalises them,
 * docs/webhooks.md §Webhook resource, which changed what clients read back); only the comparisons for reserved and
 * repeated names ignore case.
 * @returns the headers to store (names as given after trimming, values trimmed) and the errors.
 */
export function validateHeaders(
  headers: readonly WebhookHeader[],
  pointer: string,
): { headers: WebhookHeader[]; errors: FieldError[] } {
  const errors: FieldError[] = [];
  if (headers.length > MAX_WEBHOOK_HEADERS) {
    errors.push({
      detail: `Headers must be at most ${MAX_WEBHOOK_HEADERS}.`,
      source: { pointer },
      code: "too_many",
    });
  }
  const seen = new Set<string>();
  const out: WebhookHeader[] = [];
  headers.forEach((header, index) => {
    const namePointer = `${pointer}/${index}/name`;
    const valuePointer = `${pointer}/${index}/value`;
    const name = header.name.trim();
    const value = header.value.trim();
    if (name === "") {
      errors.push({ detail: "Header name can't be blank", source: { pointer: namePointer }, code: "blank" });
    } else if (name.length > MAX_HEADER_NAME_LENGTH) {
      errors.push({
        detail: `Header name must be at most ${MAX_HEADER_NAME_LENGTH} characters.`,
        source: { pointer: namePointer },
        code: "too_long",
      });
    } else if (!HTTP_TOKEN.test(name)) {
      errors.push({
        detail: "Header name must be an HTTP token (letters, digits and !#$%&'*+-.^_`|~).",
        source: { pointer: namePointer },
        code: "invalid",
      });
    } else if (isReservedHeaderName(name)) {
      errors.push({
        detail: `Header ${name} is set by the service and cannot be overridden.`,
        source: { pointer: namePointer },
        code: "reserved",
      });
    } else if (seen.has(name.toLowerCase())) {
      errors.push({ detail: `Header ${name} is given twice.`, source: { pointer: namePointer }, code: "duplicate" });
    }
    seen.add(name.toLowerCase());
    if (value === "") {
      errors.push({ detail: "Header value can't be blank", source: { pointer: valuePointer }, code: "blank" });
    } else if (value.length > MAX_HEADER_VALUE_LENGTH) {
      errors.push({
        detail: `Header value must be at most ${MAX_HEADER_VALUE_LENGTH} characters.`,
        source: { pointer: valuePointer },
        code: "too_long",
      });
    } else if (hasControlCharacter(header.value)) {
      // The shared free-text rule (src/lib/validation.ts): TAB and every other C0 control or DEL, even around the value.
      errors.push({
        detail: "Header value must not contain control characters (U+0000–U+001F, U+007F).",
        source: { pointer: valuePointer },
        code: CONTROL_CHARACTER_CODE,
      });
    } else if (!HEADER_VALUE.test(value)) {
      errors.push({
        detail: "Header value must be printable ASCII without line breaks.",
        source: { pointer: valuePointer },
        code: "invalid",
      });
    }
    out.push({ name, value });
  });
  return { headers: out, errors };
}

const POINTER = {
  url: "/data/attributes/url",
  events: "/data/attributes/events",
  headers: "/data/attributes/headers",
} as const;

/** Validated create input (after zod). */
export interface CreateWebhookInput {
  url: string;
  events: string[];
  active?: boolean;
  headers?: WebhookHeader[] | null;
}

/**
 * Creates a webhook (docs/webhooks.md §Webhook endpoints, docs/decisions.md §Webhooks) with a generated secret. Every
 * rule is checked and all failures are reported together (URL safety, events, headers); nothing is written then. The
 * row and the account's webhook count are written in one batch.
 * @throws ApiError 422 listing every failing field with its pointer and code; 422 `limit_reached` (pointer `/data`)
 *   when the account already has `MAX_WEBHOOKS_PER_ACCOUNT` webhooks.
 */
export async function createWebhook(
  deps: WebhookDeps,
  accountId: string,
  input: CreateWebhookInput,
): Promise<WebhookRow> {
  const errors: FieldError[] = [];
  const url = validateWebhookUrl(input.url, deps.allowInsecureHosts, POINTER.url);
  if ("error" in url) errors.push(url.error);
  const events = validateEvents(input.events, POINTER.events);
  errors.push(...events.errors);
  const headers = validateHeaders(input.headers ?? [], POINTER.headers);
  errors.push(...headers.errors);
  if (errors.length > 0 || "error" in url) throw new ApiError(422, errors);
  const { db } = deps;
  // Read from the account's counter before the insert: concurrent creates may overshoot by their number, no more.
  const [counted] = await countQuery(db, accountId, "webhook");
  if ((counted?.count ?? 0) >= MAX_WEBHOOKS_PER_ACCOUNT) {
    throw new ApiError(422, [
      {
        detail: `An account can have at most ${MAX_WEBHOOKS_PER_ACCOUNT} webhooks; delete one first.`,
        source: { pointer: "/data" },
        code: "limit_reached",
      },
    ]);
  }

  const now = toIsoSeconds(deps.clock.now());
  const row: WebhookRow = {
    id: newId(),
    accountId,
    url: url.url,
    active: input.active ?? true,
    events: events.events,
    headers: headers.headers,
    secret: generateWebhookSecret(),
    previousSecret: null,
    previousSecretExpiresAt: null,
    failingSince: null,
    disabledReason: null,
    createdAt: now,
    updatedAt: now,
  };
  await db.batch([db.insert(webhooks).values(row), bumpCount(db, accountId, "webhook", 1)]);
  return row;
}

/** One webhook of the account. @throws ApiError 404 when absent or another account's. */
export async function getWebhook(db: Database, accountId: string, id: string): Promise<WebhookRow> {
  const [row] = await db
    .select()
    .from(webhooks)
    .where(and(ownedBy(webhooks.accountId, accountId), eq(webhooks.id, id)))
    .limit(1);
  if (!row) throw ApiError.notFound("Couldn't find Webhook");
  return row;
}

/**
 * A page of the account's webhooks, newest first, with the total (docs/webhooks.md §Webhook endpoints;
 * docs/decisions.md §Wire format).
 */
export async function listWebhooks(db: Database, accountId: string, page: PageRequest) {
  return listPage(db, webhooks, "webhook", accountId, [], page);
}

/** Validated update input (after zod); absent fields are left unchanged. */
export interface UpdateWebhookInput {
  bodyId?: string;
  url?: string;
  events?: string[];
  active?: boolean;
  headers?: WebhookHeader[] | null;
}

/**
 * Updates a webhook's `url`, `events`, `active` and/or `headers` (docs/webhooks.md §Webhook endpoints), with the same
 * rules as create, all failures reported together. Setting `active: true` re-activates a webhook the service disabled
 * and starts its failure bookkeeping afresh (`failing_since`, `disabled_reason` cleared); a new URL clears
 * `failing_since` (the old URL's failures do not count against it). Any explicit `active` clears `disabled_reason`.
 * `headers: null` or `[]` removes every custom header.
 * @throws ApiError 404 when absent or another account's; 422 for invalid fields or a `data.id` that disagrees with
 *   the path.
 */
export async function updateWebhook(
  deps: WebhookDeps,
  accountId: string,
  id: string,
  input: UpdateWebhookInput,
): Promise<WebhookRow> {
  const existing = await getWebhook(deps.db, accountId, id);
  const errors: FieldError[] = [];
  if (input.bodyId !== undefined && input.bodyId !== id) {
    errors.push({
      detail: "data.id does not match the id in the path",
      source: { pointer: "/data/id" },
      code: "invalid",
    });
  }
  const changes: Partial<WebhookRow> = {};
  if (input.url !== undefined) {
    const url = validateWebhookUrl(input.url, deps.allowInsecureHosts, POINTER.url);
    if ("error" in url) errors.push(url.error);
    else if (url.url !== existing.url) {
      changes.url = url.url;
      changes.failingSince = null;
    }
  }
  if (input.events !== undefined) {
    const events = validateEvents(input.events, POINTER.events);
    errors.push(...events.errors);
    changes.events = events.events;
  }
  if (input.headers !== undefined) {
    const headers = validateHeaders(input.headers ?? [], POINTER.headers);
    errors.push(...headers.errors);
    changes.headers = headers.headers;
  }
  if (errors.length > 0) throw new ApiError(422, errors);
  if (input.active !== undefined) {
    changes.active = input.active;
    // The client's decision replaces the service's: no stale reason, and a fresh 5-day failure window.
    changes.disabledReason = null;
    if (input.active) changes.failingSince = null;
  }
  if (Object.keys(changes).length === 0) return existing;
  changes.updatedAt = toIsoSeconds(deps.clock.now());
  const [row] = await deps.db
    .update(webhooks)
    .set(changes)
    .where(and(ownedBy(webhooks.accountId, accountId), eq(webhooks.id, id)))
    .returning();
  if (!row) throw ApiError.notFound("Couldn't find Webhook");
  return row;
}

/** Seconds a rotated-away secret keeps signing deliveries unless the request says otherwise: 24 hours. */
export const DEFAULT_SECRET_GRACE_S = 86_400;
/** Longest grace period `POST /webhooks/{id}/rotate_secret` accepts: 7 days, in seconds. */
export const MAX_SECRET_GRACE_S = 7 * 86_400;

/**
 * `POST /webhooks/{id}/rotate_secret` (issue 11 §5; the reference service has no rotation): gives the webhook a new
 * generated secret and keeps the one it replaces as `previous_secret` until now + `graceSeconds`. Until then every
 * delivery's `webhook-signature` carries a `v1,` signature of each secret (Standard Webhooks allows several,
 * space-separated), so receivers can switch at their own pace; `X-SVC-Webhook-Signature` (one hex value,
 * docs/webhooks.md §Signatures) uses the new secret at once. A rotation within a grace period drops the older secret:
 * only the secret just replaced stays valid. `graceSeconds` 0 drops the old secret at once. One conditional UPDATE
 * (SQLite evaluates every SET expression on the row as it was, so the old secret is what is kept), so two concurrent
 * rotations cannot lose a secret in between.
 * @param graceSeconds 0 to {@link MAX_SECRET_GRACE_S} (checked by the route's schema).
 * @returns the webhook with its new secret.
 * @throws ApiError 404 when absent or another account's.
 */
export async function rotateWebhookSecret(
  deps: Pick<WebhookDeps, "db" | "clock">,
  accountId: string,
  id: string,
  graceSeconds: number = DEFAULT_SECRET_GRACE_S,
): Promise<WebhookRow> {
  const nowMs = deps.clock.now();
  const keep = graceSeconds > 0;
  const [row] = await deps.db
    .update(webhooks)
    .set({
      secret: generateWebhookSecret(),
      previousSecret: keep ? sql`${webhooks.secret}` : null,
      previousSecretExpiresAt: keep ? toIsoSeconds(nowMs + graceSeconds * 1000) : null,
      updatedAt: toIsoSeconds(nowMs),
    })
    .where(and(ownedBy(webhooks.accountId, accountId), eq(webhooks.id, id)))
    .returning();
  if (!row) throw ApiError.notFound("Couldn't find Webhook");
  return row;
}

/**
 * Deletes a webhook (docs/webhooks.md §Webhook endpoints) together with its notifications and their delivery attempts,
 * in one D1 batch (a transaction; the foreign keys of `webhook_notifications` and `webhook_deliveries` allow no other
 * order). Pending notifications are thereby cancelled: nothing more is sent to a URL the client removed, and a delivery
 * message already on the queue finds no notification and is acked by the consumer (src/webhooks/delivery.ts). The
 * account's webhook count goes down by the rows actually deleted, counted inside the same transaction, so two
 * concurrent deletes cannot make it drift. (Notifications keep no count: their lists count rows, see
 * src/webhook-notifications/service.ts.)
 * @throws ApiError 404 when absent or another account's.
 */
export async function deleteWebhook(db: Database, accountId: string, id: string): Promise<void> {
  await getWebhook(db, accountId, id);
  const ofWebhook = and(eq(webhookNotifications.webhookId, id), eq(webhookNotifications.accountId, accountId));
  const notificationIds = db.select({ id: webhookNotifications.id }).from(webhookNotifications).where(ofWebhook);
  const deletedWebhooks = sql`select count(*) from webhooks w where w.id = ${id} and w.account_id = ${accountId}`;
  await db.batch([
    db
      .update(accountResourceCounts)
      .set({ count: sql`${accountResourceCounts.count} - (${deletedWebhooks})` })
      .where(and(eq(accountResourceCounts.accountId, accountId), eq(accountResourceCounts.resource, "webhook"))),
    db.delete(webhookDeliveries).where(inArray(webhookDeliveries.notificationId, notificationIds)),
    db.delete(webhookNotifications).where(ofWebhook),
    db.delete(webhooks).where(and(eq(webhooks.accountId, accountId), eq(webhooks.id, id))),
  ]);
}

/** Longest secret `POST /webhooks/trigger` accepts, in characters. */
export const MAX_TRIGGER_SECRET_LENGTH = 256;

/** Input of `POST /webhooks/trigger` (docs/webhooks.md §Trigger), after zod. */
export interface TriggerWebhookInput {
  url: string;
  event: string;
  /** Signs the delivery when non-empty (any string the caller picks; `whsec_…` for Standard Webhooks keys). */
  secret: string | null;
}

/** Answer of `POST /webhooks/trigger` (docs/webhooks.md §Trigger), snake_case as on the wire. */
export interface TriggerWebhookResult {
  url: string;
  event: string;
  succeeded: boolean;
  error: string | null;
  status_code: number | null;
  latency_ms: number;
  request_headers: Record<string, string> | null;
  request_body: string;
  response_headers: Record<string, string> | null;
  response_body: string | null;
}

/**
 * `POST /webhooks/trigger` (docs/webhooks.md §Trigger, docs/decisions.md §Webhooks): validates `url` (the SSRF rules of
 * a webhook's URL), `event` (from the catalog) and `secret` (at most `MAX_TRIGGER_SECRET_LENGTH` characters), all
 * failures reported together with pointers `/url`, `/event`, `/secret`; then sends the event's example payload
 * (`examplePayload`, the document `GET /webhook_notifications/examples` returns) through `sendWebhook`, signed when a
 * secret is given, and describes the attempt. Nothing is stored. Outbound HTTP goes through `sendWebhook`'s fetch seam.
 * @throws ApiError 422 for invalid input (no request is sent then).
 */
export async function triggerWebhook(
  deps: Pick<WebhookDeps, "clock" | "allowInsecureHosts">,
  input: TriggerWebhookInput,
): Promise<TriggerWebhookResult> {
  const errors: FieldError[] = [];
  const url = validateWebhookUrl(input.url, deps.allowInsecureHosts, "/url");
  if ("error" in url) errors.push(url.error);
  if (input.event.trim() === "") {
    errors.push({ detail: "Event can't be blank", source: { pointer: "/event" }, code: "blank" });
  } else if (!isWebhookEvent(input.event)) {
    errors.push({
      detail: `Event '${input.event.slice(0, 100)}' is not a webhook event (GET /webhooks/events lists them).`,
      source: { pointer: "/event" },
      code: "not_recognized",
    });
  }
  if (input.secret !== null && input.secret.length > MAX_TRIGGER_SECRET_LENGTH) {
    errors.push({
      detail: `Secret must be at most ${MAX_TRIGGER_SECRET_LENGTH} characters.`,
      source: { pointer: "/secret" },
      code: "too_long",
    });
  }
  if (errors.length > 0 || "error" in url) throw new ApiError(422, errors);

  const payload = examplePayload(input.event);
  const body = JSON.stringify(payload);
  const attempt = await sendWebhook({
    url: url.url,
    secret: input.secret === "" ? null : input.secret,
    headers: [],
    notificationId: payload.data.id,
    body,
    nowMs: deps.clock.now(),
    allowInsecureHosts: deps.allowInsecureHosts,
  });
  return {
    url: url.url,
    event: input.event,
    succeeded: attempt.succeeded,
    error: attempt.error,
    status_code: attempt.statusCode,
    latency_ms: attempt.latencyMs,
    request_headers: attempt.requestHeaders ?? null,
    request_body: body,
    response_headers: attempt.responseHeaders ?? null,
    response_body: attempt.responseBody ?? null,
  };
}
