import type { Placeholder, SQLWrapper } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { ApiError } from "../errors";
import type { ResourceObject } from "./types";

/** What relationship loaders need: the database, the account every query must be scoped to, and the base URL. */
export interface LoadContext {
  db: import("../../db/client").Database;
  accountId: string;
}

/**
 * A JSON:API resource type: how one row becomes a resource object and how each relationship is loaded
 * for `include`. `hydrate` (optional) completes rows with what their linkage needs (e.g. event ids of a
 * container) in one query for all rows; it runs before `serialize` wherever rows come from.
 */
export interface ResourceType<Row> {
  type: string;
  /** Name used in the reference service's 400 text: `<name> is not specified as a relationship on <serializerName>`. */
  serializerName: string;
  hydrate?: (ctx: LoadContext, rows: Row[]) => Promise<Row[]>;
  serialize: (row: Row) => ResourceObject;
  relationships: Record<string, RelationshipLoader<Row>>;
}

/** Loads the related rows of a set of parent rows (one query for all parents, scoped by account). */
export interface RelationshipLoader<Row> {
  // biome-ignore lint/suspicious/noExplicitAny: the target type's row shape is its own business
  target: () => ResourceType<any>;
  load: (ctx: LoadContext, parents: Row[]) => Promise<unknown[]>;
  /**
   * Optional: the same rows as `load`, for parents given by a subquery selecting their ids, as queries that can
   * join the D1 round trip that reads the parents (`prefetch` turns their results into the related rows). The
   * queries are part of the parents' query shape (src/db/query-shapes.ts): `queries` must always return `size`
   * queries whose SQL depends on nothing but its arguments, and take the account from `ctx.accountId` (a
   * placeholder there), never from a value it closes over.
   */
  prefetch?: {
    size: number;
    queries: (ctx: PrefetchContext, parentIds: SQLWrapper) => BatchItem<"sqlite">[];
    rows: (results: unknown[][]) => unknown[];
  };
}

/** What prefetch queries are built with: the database and the account, as an id or a query-shape placeholder. */
export interface PrefetchContext {
  db: import("../../db/client").Database;
  accountId: string | Placeholder;
}

/** Related rows already read for first-level includes, by relationship name (see `RelationshipLoader.prefetch`). */
export type PrefetchedIncludes = Map<string, unknown[]>;

/**
 * The prefetchable first-level includes of a request: which ones (`key`, part of a query-shape key), how many
 * queries they add (`size`), how to build those queries, and how to read their results back.
 */
export interface PrefetchPlan {
  /** The names of the prefetched relationships in request order, comma-separated ("" for none). */
  key: string;
  /** How many queries `queries` returns. */
  size: number;
  /** The prefetch queries, for parents given by a subquery selecting their ids. @throws Error on a size mismatch. */
  queries: (ctx: PrefetchContext, parentIds: SQLWrapper) => BatchItem<"sqlite">[];
  /** The prefetched rows by relationship name, from the `size` results of the queries. */
  read: (results: unknown[][]) => PrefetchedIncludes;
}

/**
 * The prefetch plan of the first-level relationships of `tree` that offer a prefetch (others are left to their
 * loaders). Works out everything but the queries without building them, so a cached query shape can be used.
 */
export function prefetchPlan<Row>(root: ResourceType<Row>, tree: IncludeTree): PrefetchPlan {
  const parts: { name: string; size: number; prefetch: NonNullable<RelationshipLoader<Row>["prefetch"]> }[] = [];
  for (const name of tree.keys()) {
    const prefetch = root.relationships[name]?.prefetch;
    if (prefetch) parts.push({ name, size: prefetch.size, prefetch });
  }
  const queries = (ctx: PrefetchContext, parentIds: SQLWrapper): BatchItem<"sqlite">[] => {
    const out: BatchItem<"sqlite">[] = [];
    for (const part of parts) {
      const q = part.prefetch.queries(ctx, parentIds);
      if (q.length !== part.size) {
        throw new Error(`prefetch of ${part.name} built ${q.length} queries, declared ${part.size}`);
      }
      out.push(...q);
    }
    return out;
  };
  const read = (results: unknown[][]): PrefetchedIncludes => {
    const out: PrefetchedIncludes = new Map();
    let offset = 0;
    for (const part of parts) {
      out.set(part.name, part.prefetch.rows(results.slice(offset, offset + part.size)));
      offset += part.size;
    }
    return out;
  };
  return {
    key: parts.map((p) => p.name).join(","),
    size: parts.reduce((n, p) => n + p.size, 0),
    queries,
    read,
  };
}

/** A parsed `include` parameter: relationship name → nested includes. */
export type IncludeTree = Map<string, IncludeTree>;

/** Longest include value and deepest path accepted, so a hostile parameter cannot make work explode. */
const MAX_INCLUDE_LENGTH = 500;
const MAX_INCLUDE_DEPTH = 3;

/**
 * Parses `include` (comma-separated, dotted paths: `shipment,shipment.port_of_lading`) and checks every name
 * against the resource types (R §0.4).
 * @throws ApiError 400 with `source.parameter: "include"` for an unknown name, as the reference service words it.
 */
// biome-ignore lint/suspicious/noExplicitAny: any resource type may be the root
export function parseInclude(raw: string | null | undefined, root: ResourceType<any>): IncludeTree {
  const tree: IncludeTree = new Map();
  if (raw === null || raw === undefined || raw.trim() === "") return tree;
  if (raw.length > MAX_INCLUDE_LENGTH) throw ApiError.badParameter("include", "include is too long.");
  for (const path of raw.split(",")) {
    const trimmed = path.trim();
    if (trimmed === "") continue;
    const names = trimmed.split(".");
    if (names.length > MAX_INCLUDE_DEPTH) throw ApiError.badParameter("include", `${trimmed} is nested too deeply.`);
    let node = tree;
    // biome-ignore lint/suspicious/noExplicitAny: walks across resource types
    let type: ResourceType<any> = root;
    for (const name of names) {
      const rel = Object.hasOwn(type.relationships, name) ? type.relationships[name] : undefined;
      if (!rel) {
        throw ApiError.badParameter("include", `${name} is not specified as a relationship on ${type.serializerName}`);
      }
      let child = node.get(name);
      if (!child) {
        child = new Map();
        node.set(name, child);
      }
      node = child;
      type = rel.target();
    }
  }
  return tree;
}

/**
 * Loads every included resource of `tree` for the primary `rows`, level by level (one query per
 * relationship per level), de-duplicated by (type, id) and never repeating a primary resource (JSON:API: one
 * resource object per type and id in a document; a related resource that is primary data is found in `data`).
 * `prefetched` holds the first-level relationships of the primary rows only: a nested path that comes back to the
 * root's type (`shipment.containers.pickup_facility` under containers) loads its own, for its own parents (issue 23 §5).
 */
export async function resolveIncluded<Row>(
  ctx: LoadContext,
  root: ResourceType<Row>,
  rows: Row[],
  tree: IncludeTree,
  primary: ResourceObject[],
  prefetched: PrefetchedIncludes = new Map(),
): Promise<ResourceObject[]> {
  const seen = new Set(primary.map((r) => `${r.type}:${r.id}`));
  const included: ResourceObject[] = [];
  const walk = async (
    // biome-ignore lint/suspicious/noExplicitAny: walks across resource types
    type: ResourceType<any>,
    parents: unknown[],
    node: IncludeTree,
    ready: PrefetchedIncludes,
  ): Promise<void> => {
    for (const [name, children] of node) {
      const rel = type.relationships[name];
      if (!rel || parents.length === 0) continue;
      const target = rel.target();
      let related = ready.get(name) ?? (await rel.load(ctx, parents));
      if (target.hydrate) related = await target.hydrate(ctx, related);
      for (const row of related) {
        const resource = target.serialize(row);
        const key = `${resource.type}:${resource.id}`;
        if (seen.has(key)) continue;
        seen.add(key);
        included.push(resource);
      }
      if (children.size > 0) await walk(target, related, children, new Map());
    }
  };
  await walk(root, rows, tree, prefetched);
  return included;
}
