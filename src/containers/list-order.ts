import { asc, desc, type SQL, type SQLWrapper, sql } from "drizzle-orm";
import { CONTAINER_STATUS_RANK, containers, shipments } from "../db/schema";
import { ApiError } from "../lib/errors";
import type { ListOrder } from "../lib/list-query";

/**
 * The sort keys of `GET /v2/containers?sort=` (an extension, docs/api.md §Container endpoints "Sorting"): what the
 * dashboard's container table sorts by (issue 28), in the attributes' own names. `pod_eta_at` is the shipment's.
 */
export const CONTAINER_SORT_KEYS = [
  "number",
  "scac",
  "pod_locode",
  "current_status",
  "available_for_pickup",
  "pickup_lfd",
  "pod_eta_at",
  "updated_at",
  "created_at",
] as const;

/** A key of {@link CONTAINER_SORT_KEYS}. */
export type ContainerSortKey = (typeof CONTAINER_SORT_KEYS)[number];

/** A parsed `sort`: its key and direction. */
export interface ContainerSort {
  key: ContainerSortKey;
  descending: boolean;
}

/** `IS NULL` first so that ascending puts the boxes without a value last (and descending, its reverse, first). */
const nullsLast = (column: SQLWrapper): SQL => sql`(${column} IS NULL)`;

/** `available_for_pickup` as a rank: available (0), not available (1), unknown (2). */
const AVAILABLE_ORDER_SQL: SQL = sql`(CASE ${containers.availableForPickup} WHEN 1 THEN 0 WHEN 0 THEN 1 ELSE 2 END)`;

/**
 * The shipment's POD ETA of a container, read by the shipment's primary key, `~` when it has none (after every ISO 8601
 * time, so missing ETAs sort last ascending): one correlated lookup per box instead of two (an `IS NULL` term and the
 * value), half the cost of this order at 10 000 boxes (bench/README.md §bench/dashboard). No index can serve it; the
 * account's boxes are sorted.
 */
const POD_ETA_SQL: SQL = sql`(SELECT coalesce(${shipments.podEtaAt}, '~') FROM ${shipments} WHERE ${shipments.id} = ${containers.shipmentId})`;

/** The ascending ORDER BY terms of each key, before the `id` tiebreak. */
function termsOf(key: ContainerSortKey): SQL[] {
  switch (key) {
    case "number":
      return [sql`${containers.number}`];
    case "scac":
      return [nullsLast(containers.scac), sql`${containers.scac}`];
    case "pod_locode":
      return [nullsLast(containers.podLocode), sql`${containers.podLocode}`];
    case "current_status":
      return [CONTAINER_STATUS_RANK];
    case "available_for_pickup":
      return [AVAILABLE_ORDER_SQL];
    case "pickup_lfd":
      return [nullsLast(containers.pickupLfd), sql`${containers.pickupLfd}`];
    case "pod_eta_at":
      return [POD_ETA_SQL];
    case "updated_at":
      return [sql`${containers.updatedAt}`];
    case "created_at":
      return [sql`${containers.createdAt}`];
  }
}

/**
 * Reads `sort` of the containers list: one key of {@link CONTAINER_SORT_KEYS}, `-` in front for descending. Ascending
 * puts missing values (no LFD, no ETA, no SCAC) last; descending is the exact reverse (missing first). Status sorts in
 * journey order, `available_for_pickup` available → not available → unknown. Ties go by `id` in the same direction,
 * so pages never overlap (ids are UUIDv7: creation order). Absent or empty: undefined (newest first, the reference's
 * order).
 * @throws ApiError 400 at `sort` for an unknown key or more than one key, listing the keys.
 */
export function parseContainerSort(raw: string | null | undefined): ContainerSort | undefined {
  const value = raw?.trim() ?? "";
  if (value === "") return undefined;
  const descending = value.startsWith("-");
  const key = descending ? value.slice(1) : value;
  if (!(CONTAINER_SORT_KEYS as readonly string[]).includes(key)) {
    throw ApiError.badParameter(
      "sort",
      `${key.slice(0, 40) || "(empty)"} is not a sort key of containers (one key): ${CONTAINER_SORT_KEYS.join(", ")}, each with - for descending.`,
    );
  }
  return { key: key as ContainerSortKey, descending };
}

/** The `ListOrder` of a parsed sort, for `listPage`: the key's terms then `id`, all in the sort's direction. */
export function containerListOrder(sort: ContainerSort): ListOrder {
  const direction = sort.descending ? desc : asc;
  return {
    key: `${sort.descending ? "-" : ""}${sort.key}`,
    by: [...termsOf(sort.key).map((t) => direction(t)), direction(containers.id)],
  };
}
