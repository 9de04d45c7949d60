import { and, eq, inArray } from "drizzle-orm";
import type { Database } from "../db/client";
import {
  containerUpdatedEvents,
  estimatedEvents,
  trackingRequests,
  transportEvents,
  webhookNotifications,
} from "../db/schema";
import { ApiError } from "../lib/errors";
import { parseEnumFilter, parseStringFilter } from "../lib/jsonapi/filters";
import type { LoadContext } from "../lib/jsonapi/include";
import type { PageRequest } from "../lib/jsonapi/pagination";
import type { ResourceObject } from "../lib/jsonapi/types";
import { listPage } from "../lib/list-query";
import { ownedBy } from "../lib/tenant";
import { serializeTrackingRequest } from "../tracking-requests/serializer";
import { serializeTransportEvent } from "../transport-events/serializer";
import { isWebhookEvent, WEBHOOK_EVENTS } from "../webhooks/catalog";
import {
  examplePayload,
  serializeContainerUpdatedEvent,
  serializeEstimatedEvent,
  type WebhookPayloadDocument,
} from "../webhooks/payloads";
import { DELIVERY_STATUSES } from "./schemas";
import type { WebhookNotificationRow } from "./serializer";

/** One notification of the account. @throws ApiError 404 when absent or another account's. */
export async function getWebhookNotification(
  db: Database,
  accountId: string,
  id: string,
): Promise<WebhookNotificationRow> {
  const [row] = await db
    .select()
    .from(webhookNotifications)
    .where(and(ownedBy(webhookNotifications.accountId, accountId), eq(webhookNotifications.id, id)))
    .limit(1);
  if (!row) throw ApiError.notFound("Couldn't find WebhookNotification");
  return row;
}

/**
 * A page of the account's notifications, newest first, with the filters `filter[event]` (a catalog event),
 * `filter[delivery_status]` (`pending`, `succeeded`, `failed`) and `filter[webhook_id]` (issue 4; the reference
 * documents none). Another account's webhook id simply matches nothing. Without filters the total is the account's
 * count in `account_resource_counts`, kept exact by triggers (migrations/0002_webhook_notification_counts.sql);
 * with filters, a COUNT over the account's index range.
 * @throws ApiError 400 (`source.parameter`) for an invalid filter value.
 */
export async function listWebhookNotifications(
  db: Database,
  accountId: string,
  params: URLSearchParams,
  page: PageRequest,
) {
  const event = parseEnumFilter(params, "filter[event]", WEBHOOK_EVENTS);
  const status = parseEnumFilter(params, "filter[delivery_status]", DELIVERY_STATUSES);
  const webhookId = parseStringFilter(params, "filter[webhook_id]", 64);
  const t = webhookNotifications;
  return listPage(
    db,
    t,
    "webhook_notification",
    accountId,
    [
      event !== undefined ? eq(t.event, event) : undefined,
      status !== undefined ? eq(t.deliveryStatus, status) : undefined,
      webhookId !== undefined ? eq(t.webhookId, webhookId) : undefined,
    ],
    page,
  );
}

/**
 * The reference object as it was delivered: the resource of the row's reference type and id in the stored payload's
 * `included` (R §3.17: a notification shows what its delivery carried), or null when the payload does not carry it
 * (the minimal bodies of `available`, `not_available`, `delivered`) or cannot be read.
 */
export function referenceObjectFromPayload(row: WebhookNotificationRow): ResourceObject | null {
  if (!row.referenceObjectType || !row.referenceObjectId) return null;
  let payload: unknown;
  try {
    payload = JSON.parse(row.payload);
  } catch {
    return null;
  }
  const included = (payload as { included?: unknown } | null)?.included;
  if (!Array.isArray(included)) return null;
  const match = included.find(
    (r): r is ResourceObject =>
      typeof r === "object" &&
      r !== null &&
      (r as ResourceObject).type === row.referenceObjectType &&
      (r as ResourceObject).id === row.referenceObjectId,
  );
  return match ?? null;
}

/**
 * Loader of `include=reference_object`: for each notification, its reference object as delivered
 * (`referenceObjectFromPayload`); when the payload does not carry it, the live row of the types that have a table
 * (`tracking_request`, `transport_event`, `container_updated_event`, `estimated_event`), read in one query per type
 * and scoped to the account. `container_created_event` and `container_pod_terminal_changed_event` exist only in
 * payloads.
 */
export async function loadReferenceObjects(
  ctx: LoadContext,
  parents: WebhookNotificationRow[],
): Promise<ResourceObject[]> {
  const out: ResourceObject[] = [];
  const missing = new Map<string, Set<string>>();
  for (const row of parents) {
    if (!row.referenceObjectType || !row.referenceObjectId) continue;
    const delivered = referenceObjectFromPayload(row);
    if (delivered) {
      out.push(delivered);
      continue;
    }
    let ids = missing.get(row.referenceObjectType);
    if (!ids) {
      ids = new Set();
      missing.set(row.referenceObjectType, ids);
    }
    ids.add(row.referenceObjectId);
  }
  const ids = (type: string) => [...(missing.get(type) ?? [])];
  const { db, accountId } = ctx;
  const reads: Promise<ResourceObject[]>[] = [];
  if (ids("tracking_request").length > 0) {
    reads.push(
      db
        .select()
        .from(trackingRequests)
        .where(
          and(ownedBy(trackingRequests.accountId, accountId), inArray(trackingRequests.id, ids("tracking_request"))),
        )
        .then((rows) => rows.map(serializeTrackingRequest)),
    );
  }
  if (ids("transport_event").length > 0) {
    reads.push(
      db
        .select()
        .from(transportEvents)
        .where(and(ownedBy(transportEvents.accountId, accountId), inArray(transportEvents.id, ids("transport_event"))))
        .then((rows) => rows.map(serializeTransportEvent)),
    );
  }
  if (ids("container_updated_event").length > 0) {
    reads.push(
      db
        .select()
        .from(containerUpdatedEvents)
        .where(
          and(
            ownedBy(containerUpdatedEvents.accountId, accountId),
            inArray(containerUpdatedEvents.id, ids("container_updated_event")),
          ),
        )
        .then((rows) => rows.map(serializeContainerUpdatedEvent)),
    );
  }
  if (ids("estimated_event").length > 0) {
    reads.push(
      db
        .select()
        .from(estimatedEvents)
        .where(and(ownedBy(estimatedEvents.accountId, accountId), inArray(estimatedEvents.id, ids("estimated_event"))))
        .then((rows) => rows.map((r) => serializeEstimatedEvent(r, null))),
    );
  }
  for (const rows of await Promise.all(reads)) out.push(...rows);
  return out;
}

/**
 * `GET /webhook_notifications/examples?event=` (R §3.18): the example body of `event` (`examplePayload`, the same
 * document `POST /webhooks/trigger` sends) with `links.self` echoing the request, as the reference's examples show.
 * @throws ApiError 400 with `source.parameter: "event"` when the event is missing or not in the catalog.
 */
export function exampleNotificationDocument(
  event: string | null,
  selfUrl: string,
): WebhookPayloadDocument & { links: { self: string } } {
  if (event === null || event.trim() === "") {
    throw ApiError.badParameter("event", "event is required: one of the events GET /webhooks/events lists.");
  }
  if (!isWebhookEvent(event)) {
    throw ApiError.badParameter(
      "event",
      `'${event.slice(0, 100)}' is not a webhook event (GET /webhooks/events lists them).`,
    );
  }
  return { ...examplePayload(event), links: { self: selfUrl } };
}
