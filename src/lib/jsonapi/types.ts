/** Resource identifier object: `{id, type}` (JSON:API 1.0 §7.2.4 / docs/api.md §Conventions). */
export interface Linkage {
  id: string;
  type: string;
}

/** A relationship as serialised: to-one linkage (or null) or to-many linkage. */
export interface RelationshipObject {
  data: Linkage | Linkage[] | null;
}

/** A resource object. `relationships` always carries linkage, included or not (docs/api.md §Includes). */
export interface ResourceObject {
  id: string;
  type: string;
  attributes: Record<string, unknown>;
  relationships?: Record<string, RelationshipObject>;
  links?: { self: string; [name: string]: string };
}

/** Top-level links of a document; list documents carry the pagination keys (docs/decisions.md §Wire format). */
export interface DocumentLinks {
  self: string;
  current?: string;
  first?: string;
  prev?: string;
  next?: string;
  last?: string;
}

/** List `meta`: `size` is the number of items on this page, `total` the number of matching records. */
export interface ListMeta {
  size: number;
  total: number;
  pagination: { current: number; next?: number; last?: number; records: number };
}

/** A JSON:API top-level document with primary data. */
export interface JsonApiDocument {
  data: ResourceObject | ResourceObject[];
  included?: ResourceObject[];
  links?: DocumentLinks;
  meta?: ListMeta;
}

/**
 * A resource object whose attributes have a known shape: what a resource's serializer writes, typed by the zod
 * schema of its attributes (e.g. `Resource<ContainerAttributes>` from `serializeContainer`). Read without a document
 * by the MCP tools; wrapped in one only by the REST routes.
 */
export interface Resource<A extends Record<string, unknown>> extends ResourceObject {
  attributes: A;
}

/** The id of a to-one relationship of `resource`; null when it is absent, null or to-many. */
export function toOneId(resource: ResourceObject, name: string): string | null {
  const data = resource.relationships?.[name]?.data;
  return data && !Array.isArray(data) ? data.id : null;
}

/** The ids of a to-many relationship of `resource`, in order; [] when it is absent or to-one. */
export function toManyIds(resource: ResourceObject, name: string): string[] {
  const data = resource.relationships?.[name]?.data;
  return Array.isArray(data) ? data.map((d) => d.id) : [];
}
