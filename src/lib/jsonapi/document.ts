import {
  type IncludeTree,
  type LoadContext,
  type PrefetchedIncludes,
  type ResourceType,
  resolveIncluded,
} from "./include";
import { listLinksAndMeta, type PageRequest } from "./pagination";
import type { JsonApiDocument } from "./types";

/** Media type of every JSON:API response (docs/decisions.md §Wire format). */
export const JSON_API_MEDIA_TYPE = "application/vnd.api+json";

/**
 * `rows` completed with what their serialization needs (`type.hydrate`, e.g. a container's event ids, one read for
 * all of them), as every document serializes them: the step before `type.serialize` for callers that want the
 * resource objects without a document (the MCP tools). Rows that already carry it come back as they are.
 */
export async function hydrated<Row>(ctx: LoadContext, type: ResourceType<Row>, rows: Row[]): Promise<Row[]> {
  return type.hydrate ? type.hydrate(ctx, rows) : rows;
}

/**
 * A single-resource document: `{data, links:{self}, included?}`. `included` appears only when something was
 * included (docs/api.md §Container endpoints).
 */
export async function resourceDocument<Row>(
  ctx: LoadContext,
  type: ResourceType<Row>,
  row: Row,
  include: IncludeTree,
  selfUrl: string,
  prefetched?: PrefetchedIncludes,
): Promise<JsonApiDocument> {
  const [complete = row] = await hydrated(ctx, type, [row]);
  const data = type.serialize(complete);
  const doc: JsonApiDocument = { data, links: { self: selfUrl } };
  if (include.size > 0) {
    doc.included = await resolveIncluded(ctx, type, [complete], include, [data], prefetched);
  }
  return doc;
}

/**
 * A list document: `{data, included?, links, meta}` with the pagination links and meta of
 * docs/decisions.md §Wire format. `total` is the number of matching records (not rows counted here).
 */
export async function listDocument<Row>(
  ctx: LoadContext,
  type: ResourceType<Row>,
  rows: Row[],
  include: IncludeTree,
  requestUrl: string,
  page: PageRequest,
  total: number,
  prefetched?: PrefetchedIncludes,
): Promise<JsonApiDocument> {
  const complete = await hydrated(ctx, type, rows);
  const data = complete.map((r) => type.serialize(r));
  const { links, meta } = listLinksAndMeta(requestUrl, page, data.length, total);
  const doc: JsonApiDocument = { data };
  if (include.size > 0) doc.included = await resolveIncluded(ctx, type, complete, include, data, prefetched);
  doc.links = links;
  doc.meta = meta;
  return doc;
}

/**
 * An unpaginated collection document: `{data, included?}` with no `links` and no `meta`, the shape of the
 * reference service's raw events endpoint (docs/api.md §Container endpoints).
 */
export async function collectionDocument<Row>(
  ctx: LoadContext,
  type: ResourceType<Row>,
  rows: Row[],
  include: IncludeTree,
): Promise<JsonApiDocument> {
  const complete = await hydrated(ctx, type, rows);
  const data = complete.map((r) => type.serialize(r));
  const doc: JsonApiDocument = { data };
  if (include.size > 0) doc.included = await resolveIncluded(ctx, type, complete, include, data);
  return doc;
}
