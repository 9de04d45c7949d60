import type { Placeholder, SQLWrapper } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Database } from "../../db/client";
import type { ResourceObject } from "./types";

/**
 * The include registry: every JSON:API resource type, by its `type` name, for `include` (src/lib/jsonapi/include.ts).
 *
 * Each resource's serializer registers its own type here (`registerResourceType`) and names the targets of its
 * relationships by type name (`target: "shipment"`), resolved here when a request includes them. A relationship to
 * another type's rows by id is read by that type (`loadByIds`, `byIdsQueries`). So no serializer imports another,
 * and none has to be loaded before another. Registering happens when a serializer module is evaluated:
 * src/resource-types.ts loads every one of them, from the Worker's entry point and the tests' setup.
 */

/** What relationship loaders need: the database and the account every query must be scoped to. */
export interface LoadContext {
  db: Database;
  accountId: string;
}

/** What prefetch queries are built with: the database and the account, as an id or a query-shape placeholder. */
export interface PrefetchContext {
  db: Database;
  accountId: string | Placeholder;
}

/**
 * A type's rows for ids given by a subquery, as queries that can join the D1 round trip of another read (the parents'
 * of a relationship, `prefetchPlan`). They are part of that read's query shape (src/db/query-shapes.ts): `queries`
 * must always return `size` queries whose SQL depends on nothing but its arguments, and take the account from
 * `ctx.accountId` (a placeholder there), never from a value it closes over.
 */
export interface ByIdsQueries {
  /** How many queries `queries` returns. */
  size: number;
  /** The queries, for the ids `ids` selects. */
  queries(ctx: PrefetchContext, ids: SQLWrapper): BatchItem<"sqlite">[];
  /** The rows, from the `size` results of the queries in order. */
  rows(results: unknown[][]): unknown[];
}

/**
 * A relationship whose related rows are rows of the target type by id (a container's `shipment`, a shipment's
 * `pod_terminal`): the target reads them (`loadByIds`), one query for all parents.
 */
export interface ToOneRelationship<Row> {
  /** JSON:API type of the related resources (a name registered here). */
  target: string;
  /** The related id of one parent row; null when it has none. */
  idOf(parent: Row): string | null;
  /**
   * Optional: the subquery selecting the related ids of parents that are given by a subquery selecting their ids, so
   * the relationship can be read in the parents' own D1 round trip (the target's `byIdsQueries`, `prefetchPlan`).
   */
  prefetchIds?(ctx: PrefetchContext, parentIds: SQLWrapper): SQLWrapper;
}

/**
 * A relationship that reads its related rows itself (to-many links such as a shipment's `containers`, rows made from
 * the parents such as the vessels of events), one query for all parents, scoped by account.
 */
export interface LoadedRelationship<Row> {
  /** JSON:API type of the related resources (a name registered here). */
  target: string;
  /** The related rows of `parents` (rows of the target type). */
  load(ctx: LoadContext, parents: Row[]): Promise<unknown[]>;
}

/** How one relationship of a resource type finds its related rows for `include`. */
export type Relationship<Row> = ToOneRelationship<Row> | LoadedRelationship<Row>;

/**
 * A JSON:API resource type: how one row becomes a resource object, how each relationship is loaded for `include`,
 * and how other types' relationships read its rows by id. `hydrate` (optional) completes rows with what their
 * linkage needs (e.g. event ids of a container) in one query for all rows; it runs before `serialize` wherever rows
 * come from.
 */
export interface ResourceType<Row> {
  /**
   * The name the type is registered under: the JSON:API `type` its `serialize` emits, or for another form of a
   * resource the reference's schema name of that form (`document_email_submission`, a compact `email_submission`).
   */
  type: string;
  /** Name used in the reference service's 400 text: `<name> is not specified as a relationship on <serializerName>`. */
  serializerName: string;
  hydrate?(ctx: LoadContext, rows: Row[]): Promise<Row[]>;
  serialize(row: Row): ResourceObject;
  relationships: Record<string, Relationship<Row>>;
  /**
   * This type's rows with the given ids (nulls skipped, each id read once), for the {@link ToOneRelationship}s that
   * target it. Reference data (ports, terminals) is shared by every account; account data is scoped by `ctx`.
   */
  loadByIds?(ctx: LoadContext, ids: readonly (string | null)[]): Promise<Row[]>;
  /** `loadByIds` as queries for ids given by a subquery, for to-one relationships that prefetch this type. */
  byIdsQueries?: ByIdsQueries;
}

const registry = new Map<string, ResourceType<unknown>>();

/**
 * Registers a resource type under its `type` name and returns it, for a serializer module to export:
 * `export const portResource = registerResourceType<PortView>({ type: "port", … })`. Registering the same type again
 * (a module evaluated twice) replaces it.
 * @throws Error when another serializer (another `serializerName`) has registered that name.
 */
export function registerResourceType<Row>(resource: ResourceType<Row>): ResourceType<Row> {
  const existing = registry.get(resource.type);
  if (existing && existing.serializerName !== resource.serializerName) {
    throw new Error(
      `resource type "${resource.type}" is registered by ${existing.serializerName}; ${resource.serializerName} cannot register it too`,
    );
  }
  registry.set(resource.type, resource);
  return resource;
}

/**
 * The resource type registered under `name`.
 * @throws Error when none is: its serializer module was not loaded (src/resource-types.ts lists them all) or the
 *   name is misspelt.
 */
export function resourceTypeNamed(name: string): ResourceType<unknown> {
  const resource = registry.get(name);
  if (!resource) {
    throw new Error(`no resource type "${name}" is registered (is its serializer listed in src/resource-types.ts?)`);
  }
  return resource;
}

/** Every registered resource type by name (a snapshot), e.g. to check that each relationship's target is there. */
export function registeredResourceTypes(): ReadonlyMap<string, ResourceType<unknown>> {
  return new Map(registry);
}
