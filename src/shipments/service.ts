import { and, eq, gte, isNotNull, isNull, lte } from "drizzle-orm";
import type { Database } from "../db/client";
import { shipments } from "../db/schema";
import { ApiError } from "../lib/errors";
import { parseBooleanFilter, parseStringFilter, parseTimeBound } from "../lib/jsonapi/filters";
import type { PageRequest } from "../lib/jsonapi/pagination";
import { listPage } from "../lib/list-query";
import { normalizeRequestNumber } from "../tracking-requests/service";
import type { ShipmentRow } from "./serializer";

/** One shipment of the account. @throws ApiError 404 when absent or another account's. */
export async function getShipment(db: Database, accountId: string, id: string): Promise<ShipmentRow> {
  const [row] = await db
    .select()
    .from(shipments)
    .where(and(eq(shipments.accountId, accountId), eq(shipments.id, id)))
    .limit(1);
  if (!row) throw ApiError.notFound("Couldn't find Shipment");
  return row;
}

/**
 * A page of the account's shipments, newest first, with the filters of DECISIONS.md §Wire format:
 * `number` (the tracked BL/booking number), `filter[tracking_stopped]`, `filter[scac]`, `filter[pod_locode]`,
 * `filter[updated_at][start|end]`.
 * @throws ApiError 400 for an invalid filter value.
 */
export async function listShipments(db: Database, accountId: string, params: URLSearchParams, page: PageRequest) {
  const number = parseStringFilter(params, "number", 64);
  const stopped = parseBooleanFilter(params, "filter[tracking_stopped]");
  const scac = parseStringFilter(params, "filter[scac]", 8);
  const podLocode = parseStringFilter(params, "filter[pod_locode]", 5);
  const updatedStart = parseTimeBound(params, "filter[updated_at][start]");
  const updatedEnd = parseTimeBound(params, "filter[updated_at][end]");
  const t = shipments;
  return listPage(
    db,
    t,
    "shipment",
    accountId,
    [
      number !== undefined ? eq(t.normalizedNumber, normalizeRequestNumber(number)) : undefined,
      stopped === true
        ? isNotNull(t.lineTrackingStoppedAt)
        : stopped === false
          ? isNull(t.lineTrackingStoppedAt)
          : undefined,
      scac !== undefined ? eq(t.shippingLineScac, scac.toUpperCase()) : undefined,
      podLocode !== undefined ? eq(t.portOfDischargeLocode, podLocode.toUpperCase()) : undefined,
      updatedStart !== undefined ? gte(t.updatedAt, updatedStart) : undefined,
      updatedEnd !== undefined ? lte(t.updatedAt, updatedEnd) : undefined,
    ],
    page,
  );
}
