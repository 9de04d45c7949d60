import type { SQLWrapper } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { inIdChunks } from "../../db/query-shapes";
import { ApiError } from "../errors";
import {
  type ByIdsQueries,
  type LoadContext,
  type PrefetchContext,
  type Relationship,
  type ResourceType,
  resourceTypeNamed,
  type ToOneRelationship,
} from "./include-registry";
import type { ResourceObject } from "./types";

// The types of resource types live in the registry (include-registry.ts), which serializers import to register;
// re-exported here for the readers of documents.
export type { LoadContext, PrefetchContext, Relationship, ResourceType } from "./include-registry";

/** Related rows already read for first-level includes, by relationship name (see `prefetchPlan`). */
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
 * The prefetch plan of the first-level relationships of `tree` that can be prefetched: to-one relationships with
 * `prefetchIds` to a type with `byIdsQueries` (others are left to their loaders). Works out everything but the queries
 * without building them, so a cached query shape can be used.
 */
export function prefetchPlan<Row>(root: ResourceType<Row>, tree: IncludeTree): PrefetchPlan {
  const parts: {
    name: string;
    byIds: ByIdsQueries;
    prefetchIds: NonNullable<ToOneRelationship<Row>["prefetchIds"]>;
  }[] = [];
  for (const name of tree.keys()) {
    const rel = root.relationships[name];
    const prefetchIds = rel && "idOf" in rel ? rel.prefetchIds : undefined;
    const byIds = prefetchIds && rel ? resourceTypeNamed(rel.target).byIdsQueries : undefined;
    if (prefetchIds && byIds) parts.push({ name, byIds, prefetchIds });
  }
  const queries = (ctx: PrefetchContext, parentIds: SQLWrapper): BatchItem<"sqlite">[] => {
    const out: BatchItem<"sqlite">[] = [];
    for (const part of parts) {
      const q = part.byIds.queries(ctx, part.prefetchIds(ctx, parentIds));
      if (q.length !== part.byIds.size) {
        throw new Error(`prefetch of ${part.name} built ${q.length} queries, declared ${part.byIds.size}`);
      }
      out.push(...q);
    }
    return out;
  };
  const read = (results: unknown[][]): PrefetchedIncludes => {
    const out: PrefetchedIncludes = new Map();
    let offset = 0;
    for (const part of parts) {
      out.set(part.name, part.byIds.rows(results.slice(offset, offset + part.byIds.size)));
      offset += part.byIds.size;
    }
    return out;
  };
  return {
    key: parts.map((p) => p.name).join(","),
    size: parts.reduce((n, p) => n + p.byIds.size, 0),
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
 * against the resource types (docs/api.md §Includes).
 * @throws ApiError 400 with `source.parameter: "include"` for an unknown name, as the reference service words it.
 */
export function parseInclude(raw: string | null | undefined, root: ResourceType<unknown>): IncludeTree {
  const tree: IncludeTree = new Map();
  if (raw === null || raw === undefined || raw.trim() === "") return tree;
  if (raw.length > MAX_INCLUDE_LENGTH) throw ApiError.badParameter("include", "include is too long.");
  for (const path of raw.split(",")) {
    const trimmed = path.trim();
    if (trimmed === "") continue;
    const names = trimmed.split(".");
    if (names.length > MAX_INCLUDE_DEPTH) throw ApiError.badParameter("include", `${trimmed} is nested too deeply.`);
    let node = tree;
    let type = root;
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
      type = resourceTypeNamed(rel.target);
    }
  }
  return tree;
}

/**
 * The related rows of `parents` through `rel`: its own loader, or the target's rows by the parents' ids.
 * @throws Error when a to-one relationship targets a type that cannot read its rows by id.
 */
async function loadRelated(
  ctx: LoadContext,
  rel: Relationship<unknown>,
  target: ResourceType<unknown>,
  parents: unknown[],
): Promise<unknown[]> {
  if ("load" in rel) return inIdChunks(parents, (chunk) => rel.load(ctx, chunk));
  const { loadByIds } = target;
  if (!loadByIds) throw new Error(`resource type "${target.type}" cannot be loaded by id`);
  const ids = [...new Set(parents.map((p) => rel.idOf(p)))];
  return inIdChunks(ids, (chunk) => loadByIds(ctx, chunk));
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
    type: ResourceType<unknown>,
    parents: unknown[],
    node: IncludeTree,
    ready: PrefetchedIncludes,
  ): Promise<void> => {
    for (const [name, children] of node) {
      const rel = type.relationships[name];
      if (!rel || parents.length === 0) continue;
      const target = resourceTypeNamed(rel.target);
      let related = ready.get(name) ?? (await loadRelated(ctx, rel, target, parents));
      const { hydrate } = target;
      if (hydrate) related = await inIdChunks(related, (chunk) => hydrate(ctx, chunk));
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
