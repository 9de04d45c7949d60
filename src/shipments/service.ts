import { and, eq, gte, isNotNull, isNull, lte, or, sql } from "drizzle-orm";
import type { Database } from "../db/client";
import { placeholder, shaped } from "../db/query-shapes";
import { readMany } from "../db/read-batch";
import { containers, shipments, trackingRequests } from "../db/schema";
import { type Clock, toIsoSeconds } from "../lib/clock";
import { ApiError } from "../lib/errors";
import type { PageRequest } from "../lib/jsonapi/pagination";
import { listFilter, listPage } from "../lib/list-query";
import { ownedBy } from "../lib/tenant";
import { checkBodyId } from "../lib/validation";
import { stopShipmentTracking } from "../tracking/maintenance";
import { trackerName } from "../tracking/tracker-state";
import { normalizeRequestNumber } from "../tracking-requests/service";
import type { ShipmentFilters } from "./schemas";
import type { ShipmentRow } from "./serializer";
import { shipmentLinkageQueries, withShipmentLinkage } from "./serializer";

/**
 * One shipment of the account, read through a cached query shape (src/db/query-shapes.ts: built once per
 * isolate, the account and id bound per request).
 * @throws ApiError 404 when absent or another account's.
 */
export async function getShipment(db: Database, accountId: string, id: string): Promise<ShipmentRow> {
  const read = shaped(
    db,
    "shipment.get",
    () => [
      db
        .select()
        .from(shipments)
        .where(and(ownedBy(shipments.accountId, placeholder("accountId")), eq(shipments.id, placeholder("id"))))
        .limit(1),
    ],
    { accountId, id },
  );
  const [[row] = []] = (await readMany(db, [read])) as ShipmentRow[][];
  if (!row) throw ApiError.notFound("Couldn't find Shipment");
  return row;
}

/**
 * The deprecated `q` of `GET /shipments` (docs/api.md §Shipment endpoints): the shipment's tracked number, one of its
 * reference numbers, or the number of one of its containers equals `q` (numbers normalised as stored, reference numbers
 * compared case-insensitively). Whole values, not substrings: `q` is a lookup, and LIKE wildcards in it mean nothing.
 */
function shipmentSearch(q: string) {
  const containerNumber = q.replace(/[\s-]/g, "").toUpperCase();
  return or(
    eq(shipments.normalizedNumber, normalizeRequestNumber(q)),
    sql`EXISTS (SELECT 1 FROM json_each(${shipments.refNumbers}) WHERE lower(value) = lower(${q}))`,
    sql`EXISTS (SELECT 1 FROM ${containers} WHERE ${containers.shipmentId} = ${shipments.id} AND ${containers.number} = ${containerNumber})`,
  );
}

/**
 * A page of the account's shipments, newest first, with the filters of docs/decisions.md §Wire format
 * (`parseShipmentFilters` checks them): `number` (the tracked BL/booking number), `filter[tracking_stopped]`,
 * `filter[scac]`, `filter[pod_locode]`, `filter[updated_at][start|end]`, and the reference's `filter[customer_id]`
 * (the customer party) and deprecated `q` (docs/api.md §Shipment endpoints: the BL/booking number, a reference number
 * or a container number, each matched whole, case-insensitively). The page, its total and the rows' linkage are read in
 * one D1 round trip, as a cached query shape (`listPage`; with `q`, built for the request).
 */
export async function listShipments(db: Database, accountId: string, filters: ShipmentFilters, page: PageRequest) {
  const {
    number,
    "filter[tracking_stopped]": stopped,
    "filter[scac]": scac,
    "filter[pod_locode]": podLocode,
    "filter[updated_at][start]": updatedStart,
    "filter[updated_at][end]": updatedEnd,
    "filter[customer_id]": customerId,
    q,
  } = filters;
  const t = shipments;
  const result = await listPage(
    db,
    t,
    "shipment",
    accountId,
    [
      listFilter("number", number === undefined ? undefined : normalizeRequestNumber(number), (v) =>
        eq(t.normalizedNumber, v),
      ),
      stopped === "true"
        ? { name: "tracking_stopped=true", where: () => isNotNull(t.lineTrackingStoppedAt) }
        : undefined,
      stopped === "false"
        ? { name: "tracking_stopped=false", where: () => isNull(t.lineTrackingStoppedAt) }
        : undefined,
      listFilter("scac", scac?.toUpperCase(), (v) => eq(t.shippingLineScac, v)),
      listFilter("pod_locode", podLocode?.toUpperCase(), (v) => eq(t.portOfDischargeLocode, v)),
      listFilter("updated_at.start", updatedStart, (v) => gte(t.updatedAt, v)),
      listFilter("updated_at.end", updatedEnd, (v) => lte(t.updatedAt, v)),
      listFilter("customer_id", customerId, (v) => eq(t.customerId, v)),
      q === undefined ? undefined : shipmentSearch(q),
    ],
    page,
    { key: "linkage", build: (pageIds, account) => [...shipmentLinkageQueries(db, account, pageIds)] },
  );
  const [found = [], customers = []] = result.companions;
  return { rows: withShipmentLinkage(result.rows, found, customers), total: result.total };
}

/** What the shipment write operations need. `env` gives the Tracker namespace (and D1, for maintenance code). */
export interface ShipmentDeps {
  db: Database;
  clock: Clock;
  env: Pick<Env, "DB" | "TRACKER">;
}

/**
 * Replaces a shipment's `ref_numbers` and/or `tags` (`PATCH /shipments/{id}`, docs/api.md §Shipment endpoints); a list
 * left out is kept. Nothing to change returns the shipment as it is.
 * @throws ApiError 404 when the shipment is unknown or another account's; 422 when `data.id` is another id.
 */
export async function updateShipment(
  deps: Pick<ShipmentDeps, "db" | "clock">,
  accountId: string,
  id: string,
  input: { bodyId?: string; refNumbers?: string[]; tags?: string[] },
): Promise<ShipmentRow> {
  checkBodyId(input.bodyId, id);
  const changes: Partial<ShipmentRow> = {};
  if (input.refNumbers !== undefined) changes.refNumbers = input.refNumbers;
  if (input.tags !== undefined) changes.tags = input.tags;
  if (Object.keys(changes).length === 0) return getShipment(deps.db, accountId, id);
  changes.updatedAt = toIsoSeconds(deps.clock.now());
  const [row] = await deps.db
    .update(shipments)
    .set(changes)
    .where(and(ownedBy(shipments.accountId, accountId), eq(shipments.id, id)))
    .returning();
  if (!row) throw ApiError.notFound("Couldn't find Shipment");
  return row;
}

/**
 * Stops tracking a shipment at the user's request (`PATCH /shipments/{id}/stop_tracking`,
 * docs/api.md §Shipment endpoints, docs/decisions.md §Tracking requests): `line_tracking_stopped_at` is set with reason
 * `cancelled_by_user`, the shipment's `created` tracking requests become `tracking_stopped`, and its containers leave
 * their Trackers (a box nobody else follows stops polling). Data collected so far stays readable. Idempotent: a stopped
 * shipment keeps its first stop time and reason.
 * @throws ApiError 404 when the shipment is unknown or another account's; 422 when `data.id` is another id.
 */
export async function stopTrackingShipment(
  deps: ShipmentDeps,
  accountId: string,
  id: string,
  bodyId?: string,
): Promise<ShipmentRow> {
  checkBodyId(bodyId, id);
  await getShipment(deps.db, accountId, id);
  await stopShipmentTracking(deps.env, deps.db, accountId, id, "cancelled_by_user", deps.clock.now());
  return getShipment(deps.db, accountId, id);
}

/**
 * Resumes tracking a shipment (`PATCH /shipments/{id}/resume_tracking`, docs/api.md §Shipment endpoints): clears
 * `line_tracking_stopped_at/_reason`, moves the shipment's `tracking_stopped` requests back to `created`, and
 * re-attaches each container to its box's Tracker, which writes the box's current state and the events recorded
 * meanwhile to the row and restarts polling (what happened while stopped and is no longer reported upstream may
 * be missed). A request is left stopped when the account has since made another pending or created request for
 * the same number and line (one active request per number, docs/decisions.md §Tracking requests). Idempotent.
 * @throws ApiError 404 when the shipment is unknown or another account's; 422 when `data.id` is another id.
 */
export async function resumeShipmentTracking(
  deps: ShipmentDeps,
  accountId: string,
  id: string,
  bodyId?: string,
): Promise<ShipmentRow> {
  checkBodyId(bodyId, id);
  await getShipment(deps.db, accountId, id);
  const nowMs = deps.clock.now();
  const now = toIsoSeconds(nowMs);
  const t = trackingRequests;
  const [, , boxes] = await deps.db.batch([
    deps.db
      .update(shipments)
      .set({ lineTrackingStoppedAt: null, lineTrackingStoppedReason: null, updatedAt: now })
      .where(
        and(ownedBy(shipments.accountId, accountId), eq(shipments.id, id), isNotNull(shipments.lineTrackingStoppedAt)),
      ),
    deps.db
      .update(t)
      .set({ status: "created", updatedAt: now })
      .where(
        and(
          eq(t.accountId, accountId),
          eq(t.shipmentId, id),
          eq(t.status, "tracking_stopped"),
          // Keep the unique "one active request per (number, line)" rule: skip a number tracked anew since,
          // and move back only the newest stopped request of each number.
          sql`NOT EXISTS (SELECT 1 FROM tracking_requests AS active WHERE active.account_id = ${accountId}
                AND active.normalized_number = "tracking_requests"."normalized_number"
                AND active.line_scac = "tracking_requests"."line_scac"
                AND active.status IN ('pending', 'created'))`,
          sql`"tracking_requests"."id" = (SELECT newest.id FROM tracking_requests AS newest
                WHERE newest.account_id = ${accountId} AND newest.shipment_id = ${id}
                  AND newest.normalized_number = "tracking_requests"."normalized_number"
                  AND newest.status = 'tracking_stopped'
                ORDER BY newest.created_at DESC, newest.id DESC LIMIT 1)`,
        ),
      ),
    deps.db
      .select({ id: containers.id, scac: containers.scac, number: containers.number })
      .from(containers)
      .where(and(ownedBy(containers.accountId, accountId), eq(containers.shipmentId, id))),
  ]);
  for (const box of boxes) {
    if (!box.scac) continue;
    const tracker = deps.env.TRACKER.get(deps.env.TRACKER.idFromName(trackerName(box.scac, box.number)));
    await tracker.resubscribe({ accountId, containerId: box.id, shipmentId: id }, nowMs);
  }
  return getShipment(deps.db, accountId, id);
}
