import { and, eq, gte, lte } from "drizzle-orm";
import type { Database } from "../db/client";
import { containers } from "../db/schema";
import { ApiError } from "../lib/errors";
import { parseEnumFilter, parseStringFilter, parseTimeBound } from "../lib/jsonapi/filters";
import type { PageRequest } from "../lib/jsonapi/pagination";
import { listPage } from "../lib/list-query";
import type { ContainerRow } from "./serializer";

/** Every `current_status` value (DECISIONS.md §Containers). */
export const CONTAINER_STATUSES = [
  "new",
  "on_ship",
  "grounded",
  "available",
  "not_available",
  "awaiting_inland_transfer",
  "on_rail",
  "off_dock",
  "picked_up",
  "delivered",
  "empty_returned",
] as const;

/** One container of the account. @throws ApiError 404 when absent or another account's. */
export async function getContainer(db: Database, accountId: string, id: string): Promise<ContainerRow> {
  const [row] = await db
    .select()
    .from(containers)
    .where(and(eq(containers.accountId, accountId), eq(containers.id, id)))
    .limit(1);
  if (!row) throw ApiError.notFound("Couldn't find Container");
  return row;
}

/**
 * A page of the account's containers, newest first, with the filters of DECISIONS.md §Wire format:
 * `filter[number]`, `filter[status]`, `filter[shipment_id]`, `filter[pod_locode]`, `filter[scac]`,
 * `filter[updated_at][start|end]`, `filter[pickup_lfd][start|end]`.
 * @throws ApiError 400 for an invalid filter value.
 */
export async function listContainers(db: Database, accountId: string, params: URLSearchParams, page: PageRequest) {
  const number = parseStringFilter(params, "filter[number]", 20);
  const status = parseEnumFilter(params, "filter[status]", CONTAINER_STATUSES);
  const shipmentId = parseStringFilter(params, "filter[shipment_id]", 64);
  const podLocode = parseStringFilter(params, "filter[pod_locode]", 5);
  const scac = parseStringFilter(params, "filter[scac]", 8);
  const updatedStart = parseTimeBound(params, "filter[updated_at][start]");
  const updatedEnd = parseTimeBound(params, "filter[updated_at][end]");
  const lfdStart = parseTimeBound(params, "filter[pickup_lfd][start]");
  const lfdEnd = parseTimeBound(params, "filter[pickup_lfd][end]");
  const t = containers;
  return listPage(
    db,
    t,
    "container",
    accountId,
    [
      number !== undefined ? eq(t.number, number.replace(/[\s-]/g, "").toUpperCase()) : undefined,
      status !== undefined ? eq(t.currentStatus, status) : undefined,
      shipmentId !== undefined ? eq(t.shipmentId, shipmentId) : undefined,
      podLocode !== undefined ? eq(t.podLocode, podLocode.toUpperCase()) : undefined,
      scac !== undefined ? eq(t.scac, scac.toUpperCase()) : undefined,
      updatedStart !== undefined ? gte(t.updatedAt, updatedStart) : undefined,
      updatedEnd !== undefined ? lte(t.updatedAt, updatedEnd) : undefined,
      lfdStart !== undefined ? gte(t.pickupLfd, lfdStart) : undefined,
      lfdEnd !== undefined ? lte(t.pickupLfd, lfdEnd) : undefined,
    ],
    page,
  );
}
