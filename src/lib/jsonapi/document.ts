import {
  type IncludeTree,
  type LoadContext,
  type PrefetchedIncludes,
  type ResourceType,
  resolveIncluded,
} from "./include";
import { listLinksAndMeta, type PageRequest } from "./pagination";
import type { JsonApiDocument } from "./types";

/** Media type of every JSON:API response (DECISIONS.md §Wire format). */
export const JSON_API_MEDIA_TYPE = "application/vnd.api+json";

/**
 * A single-resource document: `{data, links:{self}, included?}`. `included` appears only when something was
 * included (R §3.2).
 */
export async function resourceDocument<Row>(
  ctx: LoadContext,
  type: ResourceType<Row>,
  row: Row,
  include: IncludeTree,
  selfUrl: string,
  prefetched?: PrefetchedIncludes,
): Promise<JsonApiDocument> {
  const [hydrated] = type.hydrate ? await type.hydrate(ctx, [row]) : [row];
  const data = type.serialize(hydrated ?? row);
  const doc: JsonApiDocument = { data, links: { self: selfUrl } };
  if (include.size > 0) {
    doc.included = await resolveIncluded(ctx, type, [hydrated ?? row], include, [data], prefetched);
  }
  return doc;
}

/**
 * A list document: `{data, included?, links, meta}` with the pagination links and meta of
 * DECISIONS.md §Wire format. `total` is the number of matching records (not rows counted here).
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
  const hydrated = type.hydrate ? await type.hydrate(ctx, rows) : rows;
  const data = hydrated.map((r) => type.serialize(r));
  const { links, meta } = listLinksAndMeta(requestUrl, page, data.length, total);
  const doc: JsonApiDocument = { data };
  if (include.size > 0) doc.included = await resolveIncluded(ctx, type, hydrated, include, data, prefetched);
  doc.links = links;
  doc.meta = meta;
  return doc;
}

/**
 * An unpaginated collection document: `{data, included?}` with no `links` and no `meta`, the shape of the
 * reference service's raw events endpoint (R §3.5).
 */
export async function collectionDocument<Row>(
  ctx: LoadContext,
  type: ResourceType<Row>,
  rows: Row[],
  include: IncludeTree,
): Promise<JsonApiDocument> {
  const hydrated = type.hydrate ? await type.hydrate(ctx, rows) : rows;
  const data = hydrated.map((r) => type.serialize(r));
  const doc: JsonApiDocument = { data };
  if (include.size > 0) doc.included = await resolveIncluded(ctx, type, hydrated, include, data);
  return doc;
}
