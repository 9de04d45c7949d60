import { and, eq, getTableColumns, gte, inArray, lte, or, sql } from "drizzle-orm";
import { type InitialCustomFields, stageInitialCustomFields } from "../custom-fields/initial";
import type { Database } from "../db/client";
import { inIdChunks, placeholder, type ShapeValues, shaped } from "../db/query-shapes";
import { runShaped } from "../db/read-batch";
import { parties, trackingRequests } from "../db/schema";
import type { Clock } from "../lib/clock";
import { toIsoSeconds } from "../lib/clock";
import { bumpCount } from "../lib/counts";
import { ApiError, type ErrorObject } from "../lib/errors";
import { newId } from "../lib/ids";
import type { PageRequest } from "../lib/jsonapi/pagination";
import { listPage } from "../lib/list-query";
import { ownedBy } from "../lib/tenant";
import { CONTAINER_OWNERS } from "../reference/generated/container-prefixes";
import { findShippingLine } from "../reference/shipping-lines";
import type { TrackingRequestMessage } from "./queue-message";
import type { REQUEST_TYPES, TrackingRequestFilters } from "./schemas";
import type { TrackingRequestRow } from "./serializer";

/** Container owners outside the carrier registry (data/container-prefixes.csv), by SCAC. */
const CONTAINER_OWNER_BY_SCAC = new Map(CONTAINER_OWNERS.map((o) => [o.scac, o]));

/** What the tracking-request service needs. */
export interface TrackingRequestDeps {
  db: Database;
  clock: Clock;
  queue: Pick<Queue<TrackingRequestMessage>, "send">;
  /** SCACs with a configured source (docs/decisions.md §Tracking requests: "supported"). */
  supportedScacs: Set<string>;
  /**
   * Runs work after the response (the request's `waitUntil`): the create's queue message is sent there when given,
   * so the answer does not wait for the send. Without it the send is awaited.
   */
  defer?: (work: Promise<unknown>) => void;
}

/** Validated create input (after zod). */
export interface CreateTrackingRequestInput {
  requestType: (typeof REQUEST_TYPES)[number];
  requestNumber: string;
  scac?: string | null;
  refNumbers?: string[];
  shipmentTags?: string[];
  autoDetectScac?: boolean;
  customerId?: string | null;
  /** `initial_custom_fields`, checked against the account's definitions (docs/api.md §Custom fields). */
  initialCustomFields?: InitialCustomFields;
}

/** Normal form of a tracking number for comparisons: trimmed and upper-cased (docs/decisions.md). */
export function normalizeRequestNumber(value: string): string {
  return value.trim().toUpperCase();
}

const POINTER = {
  scac: "/data/attributes/scac",
  requestNumber: "/data/attributes/request_number",
  customer: "/data/relationships/customer/data/id",
} as const;

/**
 * Creates a tracking request (docs/api.md §Tracking request endpoints, docs/decisions.md §Tracking requests): every
 * rule is checked and all failures are reported together as one 422 (blank, not recognised, not supported, duplicate,
 * unknown customer). On success the row is written as `pending` (with the account's count, in one batch: the only D1
 * round trip of a create without customer or initial custom fields) and a message goes to the `tracking-requests`
 * queue (after the response with `deps.defer`; a send that fails is logged, and the request re-queued by the
 * every-minute repair).
 * @throws ApiError 422 listing every failed rule; nothing is written then.
 */
export async function createTrackingRequest(
  deps: TrackingRequestDeps,
  accountId: string,
  input: CreateTrackingRequestInput,
): Promise<TrackingRequestRow> {
  const errors: Omit<ErrorObject, "status" | "title">[] = [];
  const requestNumber = input.requestNumber.trim();
  const normalized = normalizeRequestNumber(requestNumber);
  const autoDetect = input.autoDetectScac === true;
  const scacSent = (input.scac ?? "").trim().toUpperCase();
  let lineScac: string | null = null;

  if (scacSent === "") {
    if (!autoDetect) errors.push({ detail: "Scac can't be blank", source: { pointer: POINTER.scac }, code: "blank" });
  } else {
    const resolved = resolveScac(scacSent, deps.supportedScacs, autoDetect);
    if (resolved.error) errors.push({ ...resolved.error, source: { pointer: POINTER.scac } });
    lineScac = resolved.lineScac;
  }
  if (requestNumber === "") {
    errors.push({ detail: "Request number can't be blank", source: { pointer: POINTER.requestNumber }, code: "blank" });
  } else if (!REQUEST_NUMBER_PATTERN.test(requestNumber)) {
    errors.push({
      detail: `Request number '${requestNumber}' is not a valid tracking number`,
      source: { pointer: POINTER.requestNumber },
      code: "invalid",
    });
  }

  const { db } = deps;
  // The common create (every rule checked so far holds, no customer, no initial custom fields) reads nothing: the
  // partial unique index on (account, number, line) of pending and created requests refuses a duplicate inside the
  // write's own batch, with the same 422 the read would give. Otherwise the duplicate is looked for first, so that it
  // is reported together with the other failures.
  const readFirst = errors.length > 0 || input.customerId != null || input.initialCustomFields !== undefined;
  const [duplicate, customer] = await Promise.all([
    readFirst && lineScac && requestNumber !== ""
      ? db
          .select({ id: trackingRequests.id })
          .from(trackingRequests)
          .where(
            and(
              eq(trackingRequests.accountId, accountId),
              eq(trackingRequests.normalizedNumber, normalized),
              eq(trackingRequests.lineScac, lineScac),
              inArray(trackingRequests.status, ["pending", "created"]),
            ),
          )
          .limit(1)
      : [],
    // An empty id is an id too: it must name a party (it never does), not silently mean "no customer".
    input.customerId != null
      ? db
          .select({ id: parties.id })
          .from(parties)
          .where(and(ownedBy(parties.accountId, accountId), eq(parties.id, input.customerId)))
          .limit(1)
      : [],
  ]);
  if (duplicate.length > 0) errors.push(duplicateError(requestNumber, scacSent));
  if (input.customerId != null && customer.length === 0) {
    errors.push({
      detail: `Customer '${input.customerId}' was not found`,
      source: { pointer: POINTER.customer },
      code: "not_found",
    });
  }
  const initial = await stageInitialCustomFields(db, accountId, input.initialCustomFields);
  errors.push(...initial.errors);
  if (errors.length > 0) throw new ApiError(422, errors);

  const now = toIsoSeconds(deps.clock.now());
  const row: TrackingRequestRow = {
    id: newId(),
    accountId,
    requestType: input.requestType,
    requestNumber,
    normalizedNumber: normalized,
    compactNumber: normalized.replace(/[\s-]/g, ""),
    scac: scacSent === "" ? null : scacSent,
    lineScac: autoDetect && !lineScac ? null : lineScac,
    autoDetectScac: autoDetect,
    refNumbers: input.refNumbers ?? [],
    shipmentTags: input.shipmentTags ?? [],
    status: "pending",
    failedReason: null,
    isRetrying: false,
    retryCount: null,
    customerId: input.customerId ?? null,
    shipmentId: null,
    initialCustomFields: initial.staged,
    nextAttemptAt: null,
    createdAt: now,
    updatedAt: now,
  };
  try {
    await insertTrackingRequest(db, row);
  } catch (err) {
    // The partial unique index refuses a duplicate (the common path's only duplicate check; on the other path it
    // settles a race between two identical creates).
    if (isUniqueViolation(err)) throw new ApiError(422, [duplicateError(requestNumber, scacSent)]);
    throw err;
  }
  // The row is durable: a message that fails to go out is not the client's failure. The every-minute repair
  // re-queues a pending request no message reached (src/tracking/maintenance.ts, LOST_LOOKUP_GRACE_S).
  const send = deps.queue.send({ trackingRequestId: row.id, accountId }).catch((err: unknown) => {
    console.error("tracking-requests: enqueue failed; the every-minute repair re-queues it", row.id, String(err));
  });
  if (deps.defer) deps.defer(send);
  else await send;
  return row;
}

/**
 * Writes a new tracking request and adds one to the account's `tracking_request` count, in one D1 batch (one round
 * trip; atomic, so a refused insert counts nothing). Both statements are a query shape (src/db/query-shapes.ts):
 * built and compiled once per isolate, then only bound (the create's SQL never depends on its values: every column
 * is written).
 * @throws the D1 error of the batch; a duplicate pending or created request is a UNIQUE violation
 *   (`tracking_requests_active_number_idx`, see {@link isUniqueViolation}).
 */
async function insertTrackingRequest(db: Database, row: TrackingRequestRow): Promise<void> {
  const write = shaped(
    db,
    "tracking_request.create",
    () => [
      db
        .insert(trackingRequests)
        .values(
          Object.fromEntries(TRACKING_REQUEST_COLUMNS.map((k) => [k, placeholder(k)])) as unknown as TrackingRequestRow,
        ),
      bumpCount(db, placeholder("accountId"), "tracking_request", 1),
    ],
    row as unknown as ShapeValues,
  );
  await runShaped(db, [write]);
}

/** Every column of `tracking_requests` (the keys of its row), in the table's order: what a create binds. */
const TRACKING_REQUEST_COLUMNS = Object.keys(getTableColumns(trackingRequests)) as (keyof TrackingRequestRow)[];

/**
 * The shape of a tracking number (docs/decisions.md §Tracking requests): a letter or digit, then letters, digits,
 * spaces and `.` `_` `/` `-`.
 */
export const REQUEST_NUMBER_PATTERN = /^[\p{L}\p{N}][\p{L}\p{N} ._/-]*$/u;

/**
 * The line a non-blank, upper-cased SCAC names (docs/decisions.md §Tracking requests): its own SCAC (`MEDU` → `MSCU`)
 * when it is a carrier with a configured source (or any carrier with `autoDetect`), else the error create reports:
 * `not_supported` (a container owner outside the carrier registry, or a carrier without a source) or
 * `not_recognized`. The one SCAC rule of POST /tracking_requests and of imports (src/tracking-request-imports/).
 */
export function resolveScac(
  scac: string,
  supportedScacs: Set<string>,
  autoDetect = false,
): { lineScac: string | null; error: { detail: string; code: string } | null } {
  const line = findShippingLine(scac);
  const owner = line ? undefined : CONTAINER_OWNER_BY_SCAC.get(scac);
  if (owner) {
    // A container owner outside the carrier registry (a forwarder, lessor or equipment operator): known, but no
    // source tracks it, so "not supported" says more than "not recognized".
    return {
      lineScac: null,
      error: {
        detail: `Scac '${scac}' is not supported. We do not currently integrate with ${owner.name}`,
        code: "not_supported",
      },
    };
  }
  if (!line) return { lineScac: null, error: { detail: `Scac '${scac}' is not recognized`, code: "not_recognized" } };
  if (!supportedScacs.has(line.scac) && !autoDetect) {
    return {
      lineScac: null,
      error: {
        detail: `Scac '${scac}' is not supported. We do not currently integrate with ${line.name}`,
        code: "not_supported",
      },
    };
  }
  return { lineScac: line.scac, error: null };
}

/** Whether a D1 error (possibly wrapped by drizzle as "Failed query: …" with the D1 error as `cause`) is a UNIQUE violation. */
export function isUniqueViolation(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (/UNIQUE constraint failed/i.test(String((e as { message?: unknown }).message ?? e))) return true;
  }
  return false;
}

function duplicateError(requestNumber: string, scac: string): Omit<ErrorObject, "status" | "title"> {
  return {
    detail: `Request number '${requestNumber}' with scac '${scac}' already exists in a tracking_request with a pending or created status`,
    source: { pointer: POINTER.requestNumber },
    code: "duplicate",
  };
}

/** One tracking request of the account. @throws ApiError 404 when absent or another account's. */
export async function getTrackingRequest(db: Database, accountId: string, id: string): Promise<TrackingRequestRow> {
  const [row] = await db
    .select()
    .from(trackingRequests)
    .where(and(ownedBy(trackingRequests.accountId, accountId), eq(trackingRequests.id, id)))
    .limit(1);
  if (!row) throw ApiError.notFound("Couldn't find TrackingRequest");
  return row;
}

/**
 * The account's tracking requests with the given ids (unknown and other accounts' ids skipped), in no order: the
 * rows behind search results (src/search/service.ts) for callers that serve whole resources (the MCP tools).
 */
export async function getTrackingRequestsByIds(
  db: Database,
  accountId: string,
  ids: readonly string[],
): Promise<TrackingRequestRow[]> {
  if (ids.length === 0) return [];
  return inIdChunks([...new Set(ids)], (chunk) =>
    db
      .select()
      .from(trackingRequests)
      .where(and(ownedBy(trackingRequests.accountId, accountId), inArray(trackingRequests.id, chunk))),
  );
}

/**
 * A page of the account's tracking requests, newest first, with the filters of docs/decisions.md §Wire format
 * (`parseTrackingRequestFilters` checks them): `filter[request_number]`, `filter[status]`, `filter[scac]`,
 * `filter[request_type]`, `filter[created_at][start|end]`, `filter[updated_at][start|end]`, and the reference's
 * deprecated `q` (docs/api.md §Tracking request endpoints: the request number or one of the reference numbers equals
 * `q`, case-insensitively; whole values, not substrings).
 */
export async function listTrackingRequests(
  db: Database,
  accountId: string,
  filters: TrackingRequestFilters,
  page: PageRequest,
) {
  const {
    "filter[request_number]": number,
    "filter[status]": status,
    "filter[scac]": scac,
    "filter[request_type]": requestType,
    "filter[created_at][start]": createdStart,
    "filter[created_at][end]": createdEnd,
    "filter[updated_at][start]": updatedStart,
    "filter[updated_at][end]": updatedEnd,
    q,
  } = filters;
  const t = trackingRequests;
  return listPage(
    db,
    t,
    "tracking_request",
    accountId,
    [
      number !== undefined ? eq(t.normalizedNumber, normalizeRequestNumber(number)) : undefined,
      status !== undefined ? eq(t.status, status) : undefined,
      scac !== undefined ? scacCondition(scac) : undefined,
      requestType !== undefined ? eq(t.requestType, requestType) : undefined,
      createdStart !== undefined ? gte(t.createdAt, createdStart) : undefined,
      createdEnd !== undefined ? lte(t.createdAt, createdEnd) : undefined,
      updatedStart !== undefined ? gte(t.updatedAt, updatedStart) : undefined,
      updatedEnd !== undefined ? lte(t.updatedAt, updatedEnd) : undefined,
      q !== undefined
        ? or(
            eq(t.normalizedNumber, normalizeRequestNumber(q)),
            sql`EXISTS (SELECT 1 FROM json_each(${t.refNumbers}) WHERE lower(value) = lower(${q}))`,
          )
        : undefined,
    ],
    page,
  );
}

/** `filter[scac]`: a line's own SCAC matches requests made with any of its SCACs (MSCU finds MEDU requests). */
function scacCondition(scac: string) {
  const code = scac.toUpperCase();
  const line = findShippingLine(code);
  return line && line.scac === code ? eq(trackingRequests.lineScac, line.scac) : eq(trackingRequests.scac, code);
}

/**
 * Replaces a tracking request's reference numbers and/or shipment tags (docs/api.md §Tracking request endpoints).
 * @throws ApiError 404 when absent or another account's; 422 when `data.id` disagrees with the path.
 */
export async function updateTrackingRequest(
  deps: Pick<TrackingRequestDeps, "db" | "clock">,
  accountId: string,
  id: string,
  input: { bodyId?: string; refNumbers?: string[]; refNumber?: string; shipmentTags?: string[] },
): Promise<TrackingRequestRow> {
  if (input.bodyId !== undefined && input.bodyId !== id) {
    throw ApiError.invalidField("/data/id", "data.id does not match the id in the path", "invalid");
  }
  const existing = await getTrackingRequest(deps.db, accountId, id);
  const refNumbers = input.refNumbers ?? (input.refNumber !== undefined ? [input.refNumber] : undefined);
  const changes: Partial<TrackingRequestRow> = {};
  if (refNumbers !== undefined) changes.refNumbers = refNumbers;
  if (input.shipmentTags !== undefined) changes.shipmentTags = input.shipmentTags;
  if (Object.keys(changes).length === 0) return existing;
  changes.updatedAt = toIsoSeconds(deps.clock.now());
  const [row] = await deps.db
    .update(trackingRequests)
    .set(changes)
    .where(and(ownedBy(trackingRequests.accountId, accountId), eq(trackingRequests.id, id)))
    .returning();
  if (!row) throw ApiError.notFound("Couldn't find TrackingRequest");
  return row;
}
