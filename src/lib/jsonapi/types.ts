/** Resource identifier object: `{id, type}` (JSON:API 1.0 §7.2.4 / R §0). */
export interface Linkage {
  id: string;
  type: string;
}

/** A relationship as serialised: to-one linkage (or null) or to-many linkage. */
export interface RelationshipObject {
  data: Linkage | Linkage[] | null;
}

/** A resource object. `relationships` always carries linkage, included or not (R §0.4). */
export interface ResourceObject {
  id: string;
  type: string;
  attributes: Record<string, unknown>;
  relationships?: Record<string, RelationshipObject>;
  links?: { self: string };
}

/** Top-level links of a document; list documents carry the pagination keys (DECISIONS.md §Wire format). */
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
