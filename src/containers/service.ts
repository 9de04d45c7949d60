import { and, desc, eq, gte, lt, lte, type SQL, type SQLWrapper, sql } from "drizzle-orm";
import type { Database } from "../db/client";
import { placeholder, shaped } from "../db/query-shapes";
import { type ReadItem, readMany } from "../db/read-batch";
import { containers, customFieldDefinitions, customFields, parties, shipments } from "../db/schema";
import { type Clock, toIsoSeconds } from "../lib/clock";
import { ApiError } from "../lib/errors";
import { type IncludeTree, type PrefetchedIncludes, prefetchPlan } from "../lib/jsonapi/include";
import type { PageRequest } from "../lib/jsonapi/pagination";
import { listFilter, listPage } from "../lib/list-query";
import { ownedBy } from "../lib/tenant";
import { checkBodyId } from "../lib/validation";
import { MAX_SEARCH_RESULTS, normalizeSearchQuery, searchAccount } from "../search/service";
import { trackerName } from "../tracking/tracker-state";
import { type ContainerSort, containerListOrder } from "./list-order";
import type { ContainerFilters } from "./schemas";
import {
  type ContainerRow,
  type ContainerView,
  containerLinkageQueries,
  containerResource,
  withContainerLinkage,
} from "./serializer";

/**
 * One container of the account with its linkage, and the rows of the includes that can be prefetched
 * (`shipment`, with its own linkage), all read in one D1 round trip (docs/decisions.md §Wire format: `include`).
 * The queries are a cached query shape (src/db/query-shapes.ts; about 0.95 ms of CPU per request saved) keyed by
 * the prefetched includes: the account and id are its only values.
 * @param include the parsed `include` of the request; relationships without a prefetch are left to the loaders.
 * @throws ApiError 404 when absent or another account's.
 */
export async function getContainerView(
  db: Database,
  accountId: string,
  id: string,
  include: IncludeTree = new Map(),
  also: readonly ReadItem[] = [],
): Promise<{ view: ContainerView; prefetched: PrefetchedIncludes; also: unknown[][] }> {
  const prefetch = prefetchPlan(containerResource, include);
  const read = shaped(
    db,
    `container.view:${prefetch.key}`,
    () => {
      const account = placeholder("accountId");
      const containerId = placeholder("id");
      const owned = and(ownedBy(containers.accountId, account), eq(containers.id, containerId));
      return [
        db.select().from(containers).where(owned).limit(1),
        ...containerLinkageQueries(db, [containerId]),
        ...prefetch.queries({ db, accountId: account }, db.select({ id: containers.id }).from(containers).where(owned)),
      ];
    },
    { accountId, id },
  );
  const results = await readMany(db, [read, ...also]);
  const [rows, events, raws, ...included] = results.slice(0, results.length - also.length);
  const [view] = withContainerLinkage((rows ?? []) as ContainerRow[], events ?? [], raws ?? []);
  if (!view) throw ApiError.notFound("Couldn't find Container");
  return { view, prefetched: prefetch.read(included), also: results.slice(results.length - also.length) };
}

/**
 * A page of the account's containers, newest first, with the filters of docs/decisions.md §Wire format
 * (`parseContainerFilters` checks them): `filter[number]` (spaces and dashes ignored, any case), `filter[status]`,
 * `filter[shipment_id]`, `filter[pod_locode]`, `filter[scac]`, `filter[updated_at][start|end]`,
 * `filter[pickup_lfd][start|end]`, and the reference's `filter[customer_id]` and `filter[customer_name]`
 * (docs/api.md §Container endpoints: the customer party of the container's shipment, by id or by company name compared
 * case-insensitively), and the extensions `filter[has_holds]`, `filter[custom_field][slug|value]` and
 * `filter[search]` (docs/api.md §Container endpoints "Extensions"). `sort` ({@link parseContainerSort}) replaces the
 * newest-first order. The page, its total, the rows' linkage and the prefetched includes are read in one D1 round
 * trip, as a cached query shape (`listPage`); `filter[search]` first runs the account search (`searchAccount`, its
 * first {@link MAX_SEARCH_RESULTS} results), one more round trip.
 * @throws ApiError 400 (`filter[search]`) for a query the search refuses.
 */
export async function listContainers(
  db: Database,
  accountId: string,
  filters: ContainerFilters,
  page: PageRequest,
  include: IncludeTree = new Map(),
  sort?: ContainerSort,
) {
  const {
    "filter[number]": number,
    "filter[status]": status,
    "filter[shipment_id]": shipmentId,
    "filter[pod_locode]": podLocode,
    "filter[scac]": scac,
    "filter[updated_at][start]": updatedStart,
    "filter[updated_at][end]": updatedEnd,
    "filter[pickup_lfd][start]": lfdStart,
    "filter[pickup_lfd][end]": lfdEnd,
    "filter[customer_id]": customerId,
    "filter[customer_name]": customerName,
    "filter[has_holds]": hasHolds,
    "filter[custom_field][slug]": customFieldSlug,
    "filter[custom_field][value]": customFieldValue,
    "filter[search]": search,
  } = filters;
  const t = containers;
  const searched = search === undefined ? undefined : await searchMatches(db, accountId, search);
  const prefetch = prefetchPlan(containerResource, include);
  const result = await listPage(
    db,
    t,
    "container",
    accountId,
    [
      listFilter("number", number?.replace(/[\s-]/g, "").toUpperCase(), (v) => eq(t.number, v)),
      listFilter("status", status, (v) => eq(t.currentStatus, v)),
      listFilter("shipment_id", shipmentId, (v) => eq(t.shipmentId, v)),
      listFilter("pod_locode", podLocode?.toUpperCase(), (v) => eq(t.podLocode, v)),
      listFilter("scac", scac?.toUpperCase(), (v) => eq(t.scac, v)),
      listFilter("updated_at.start", updatedStart, (v) => gte(t.updatedAt, v)),
      listFilter("updated_at.end", updatedEnd, (v) => lte(t.updatedAt, v)),
      listFilter("pickup_lfd.start", lfdStart, (v) => gte(t.pickupLfd, v)),
      listFilter("pickup_lfd.end", lfdEnd, (v) => lte(t.pickupLfd, v)),
      listFilter(
        "customer_id",
        customerId,
        (v) =>
          sql`EXISTS (SELECT 1 FROM ${shipments} WHERE ${shipments.id} = ${t.shipmentId} AND ${shipments.customerId} = ${v})`,
      ),
      listFilter(
        "customer_name",
        customerName,
        (v) =>
          sql`EXISTS (SELECT 1 FROM ${shipments} JOIN ${parties} ON ${parties.id} = ${shipments.customerId} WHERE ${shipments.id} = ${t.shipmentId} AND lower(${parties.companyName}) = lower(${v}))`,
      ),
      hasHolds === undefined ? undefined : { name: `has_holds.${hasHolds}`, where: () => holdsInForce(hasHolds) },
      listFilter(
        "custom_field",
        customFieldSlug === undefined ? undefined : JSON.stringify({ slug: customFieldSlug, value: customFieldValue }),
        customFieldCondition,
      ),
      listFilter(
        "search",
        searched,
        (v) =>
          sql`(${t.id} IN (SELECT value FROM json_each(${v}, '$.containers')) OR ${t.shipmentId} IN (SELECT value FROM json_each(${v}, '$.shipments')))`,
      ),
    ],
    page,
    {
      key: `linkage+${prefetch.key}`,
      build: (pageIds, account) => [
        ...containerLinkageQueries(db, pageIds),
        ...prefetch.queries({ db, accountId: account }, pageIds),
      ],
    },
    sort ? containerListOrder(sort) : undefined,
  );
  const [events = [], raws = [], ...included] = result.companions;
  return {
    rows: withContainerLinkage(result.rows, events, raws),
    total: result.total,
    prefetched: prefetch.read(included),
  };
}

/** `has_holds`: whether the box has a hold in force (`status: hold`) among its POD terminal holds. */
function holdsInForce(wanted: "true" | "false"): SQL {
  const exists = sql`EXISTS (SELECT 1 FROM json_each(${containers.holdsAtPodTerminal}) WHERE json_extract(value, '$.status') = 'hold')`;
  return wanted === "true" ? exists : sql`NOT ${exists}`;
}

/**
 * `custom_field`: the box's value of the account's container definition with the slug `$.slug` equals `$.value` as
 * text, case-insensitively (a boolean as `true`/`false`, any element of an array). Through the values'
 * `(entity_type, entity_id, definition_id)` index.
 */
function customFieldCondition(v: SQLWrapper): SQL {
  const wanted = sql`lower(json_extract(${v}, '$.value'))`;
  const cf = customFields;
  const d = customFieldDefinitions;
  return sql`EXISTS (SELECT 1 FROM ${cf} JOIN ${d} ON ${d.id} = ${cf.definitionId}
    WHERE ${cf.entityType} = 'container' AND ${cf.entityId} = ${containers.id} AND ${d.accountId} = ${containers.accountId}
      AND ${d.entityType} = 'Container' AND ${d.apiSlug} = json_extract(${v}, '$.slug')
      AND (CASE json_type(${cf.value})
        WHEN 'array' THEN EXISTS (SELECT 1 FROM json_each(${cf.value}) WHERE lower(CAST(value AS TEXT)) = ${wanted})
        WHEN 'true' THEN ${wanted} = 'true'
        WHEN 'false' THEN ${wanted} = 'false'
        ELSE lower(CAST(json_extract(${cf.value}, '$') AS TEXT)) = ${wanted} END))`;
}

/**
 * What `filter[search]` keeps, as the JSON bound to its condition: the ids of the containers (`cargo` hits) and of the
 * shipments the account search finds among its first {@link MAX_SEARCH_RESULTS} results.
 * @throws ApiError 400 at `filter[search]` for a query `normalizeSearchQuery` refuses.
 */
async function searchMatches(db: Database, accountId: string, raw: string): Promise<string> {
  let normalized: string;
  try {
    normalized = normalizeSearchQuery(raw);
  } catch (e) {
    if (e instanceof ApiError) {
      throw ApiError.badParameter("filter[search]", e.errors[0]?.detail ?? "filter[search] is not a valid query.");
    }
    throw e;
  }
  const { hits } = await searchAccount(db, accountId, normalized, { offset: 0, size: MAX_SEARCH_RESULTS });
  return JSON.stringify({
    containers: hits.filter((h) => h.entityType === "cargo").map((h) => h.id),
    shipments: hits.filter((h) => h.entityType === "shipment").map((h) => h.id),
  });
}

/**
 * Up to `limit` of the account's containers whose number or id starts with `prefix` (case-insensitive), newest
 * first when `prefix` is empty; for completions of container arguments. Reads through the account's
 * `(account_id, number)` and `(account_id, created_at, id)` indexes and the primary key.
 */
export async function recentContainerKeys(
  db: Database,
  accountId: string,
  prefix: string,
  limit = 20,
): Promise<{ id: string; number: string }[]> {
  const cols = { id: containers.id, number: containers.number };
  const p = prefix.trim();
  if (p === "") {
    return db
      .select(cols)
      .from(containers)
      .where(eq(containers.accountId, accountId))
      .orderBy(desc(containers.createdAt), desc(containers.id))
      .limit(limit);
  }
  const upper = p.toUpperCase();
  const lower = p.toLowerCase();
  const [byNumber, byId] = await db.batch([
    db
      .select(cols)
      .from(containers)
      .where(
        and(eq(containers.accountId, accountId), gte(containers.number, upper), lt(containers.number, `${upper}~`)),
      )
      .orderBy(containers.number)
      .limit(limit),
    db
      .select(cols)
      .from(containers)
      .where(and(ownedBy(containers.accountId, accountId), gte(containers.id, lower), lt(containers.id, `${lower}~`)))
      .orderBy(containers.id)
      .limit(limit),
  ]);
  return [...byNumber, ...byId].slice(0, limit);
}

/** What `refreshContainer` needs: the database and the Tracker namespace. */
export interface RefreshDeps {
  db: Database;
  trackers: Env["TRACKER"];
}

/**
 * Asks the Tracker of a container's box for a poll now (`PATCH /containers/{id}/refresh`, docs/decisions.md
 * §Containers): the poll goes on the `terminal-polls` queue and its results arrive as updates and webhooks.
 * The box is shared by every account tracking it, so one account's refresh refreshes it for all.
 * @returns the sources queued, in the reference's words (`Shipping line`, `Terminal`).
 * @throws ApiError 404 when the container is unknown or another account's; 422 `tracking_stopped` when its
 *   shipment stopped tracking or its box is no longer polled.
 */
export async function refreshContainer(deps: RefreshDeps, accountId: string, id: string): Promise<string[]> {
  const [row] = await deps.db
    .select({
      scac: containers.scac,
      number: containers.number,
      stoppedAt: shipments.lineTrackingStoppedAt,
    })
    .from(containers)
    .innerJoin(shipments, eq(shipments.id, containers.shipmentId))
    .where(and(ownedBy(containers.accountId, accountId), eq(containers.id, id)))
    .limit(1);
  if (!row) throw ApiError.notFound("Couldn't find Container");
  if (row.stoppedAt !== null) {
    throw trackingStopped("Tracking of this container's shipment is stopped; resume tracking to refresh it.");
  }
  const sources = row.scac
    ? await deps.trackers.get(deps.trackers.idFromName(trackerName(row.scac, row.number))).requestPoll()
    : [];
  if (sources.length === 0)
    throw trackingStopped("This container is no longer being tracked, so it cannot be refreshed.");
  return sources;
}

function trackingStopped(detail: string): ApiError {
  return new ApiError(422, [{ detail, code: "tracking_stopped" }]);
}

/**
 * Replaces a container's `ref_numbers` (`PATCH /containers/{id}`, docs/api.md §Container endpoints; the list is a full
 * replacement, an empty list clears it) and bumps its `updated_at`; `refNumbers` left out changes nothing. Like the
 * shipment edit (`updateShipment`) it writes no webhook notification: reference numbers are the account's own labels,
 * not tracking data. The one write path of REST and any other caller.
 * @returns the container as `getContainerView` reads it (no includes).
 * @throws ApiError 404 when the container is unknown or another account's; 422 when `bodyId` is another id.
 */
export async function updateContainerRefNumbers(
  deps: { db: Database; clock: Clock },
  accountId: string,
  id: string,
  input: { bodyId?: string; refNumbers?: string[] },
): Promise<ContainerView> {
  checkBodyId(input.bodyId, id);
  if (input.refNumbers !== undefined) {
    const [row] = await deps.db
      .update(containers)
      .set({ refNumbers: input.refNumbers, updatedAt: toIsoSeconds(deps.clock.now()) })
      .where(and(ownedBy(containers.accountId, accountId), eq(containers.id, id)))
      .returning({ id: containers.id });
    if (!row) throw ApiError.notFound("Couldn't find Container");
  }
  return (await getContainerView(deps.db, accountId, id)).view;
}
