import type { AnyResource, Linkage, ListDocument, Resource } from "./types";

/**
 * The number of the page after `doc`, or null on the last page. Read from `meta.pagination.next`, which the API
 * sends only when a next page exists (docs/decisions.md §Wire format).
 */
export function nextPageNumber(doc: ListDocument<unknown>): number | null {
  return doc.meta.pagination.next ?? null;
}

/** Options of {@link paginate}. */
export interface PaginateOptions {
  /** First page to fetch (1-based, default 1). */
  startPage?: number;
  /** Stop after this many pages even if more exist (default: no limit). */
  maxPages?: number;
}

/**
 * Walks a list page by page: calls `fetchPage(1)`, then `fetchPage(next)` while `meta.pagination.next` says a
 * next page exists. Lazy: a page is fetched only when the previous one has been consumed. Errors of `fetchPage`
 * (e.g. a {@link TrackingClientError} 429) propagate to the loop that consumes the generator.
 *
 * Lists are newest first (docs/decisions.md §Wire format), so records created while walking shift later pages; use a
 * `created_at`/`updated_at` filter when that matters.
 */
export async function* paginate<R>(
  fetchPage: (pageNumber: number) => Promise<ListDocument<R>>,
  options: PaginateOptions = {},
): AsyncGenerator<ListDocument<R>, void, undefined> {
  let pageNumber: number | null = options.startPage ?? 1;
  let fetched = 0;
  while (pageNumber !== null && (options.maxPages === undefined || fetched < options.maxPages)) {
    const doc = await fetchPage(pageNumber);
    fetched++;
    yield doc;
    const next = nextPageNumber(doc);
    // A server that repeats the current page number would loop forever; stop instead.
    pageNumber = next !== null && next > pageNumber ? next : null;
  }
}

/** The resources of every page of `pages`, in order (see {@link paginate}). */
export async function* items<R>(pages: AsyncIterable<ListDocument<R>>): AsyncGenerator<R, void, undefined> {
  for await (const page of pages) yield* page.data;
}

/** Collects at most `limit` items of an async iterable into an array (all of them without a limit). */
export async function collect<T>(iterable: AsyncIterable<T>, limit = Number.POSITIVE_INFINITY): Promise<T[]> {
  const out: T[] = [];
  if (limit <= 0) return out;
  for await (const item of iterable) {
    out.push(item);
    if (out.length >= limit) break;
  }
  return out;
}

/** The resource in `included` that `linkage` points at, or undefined when it was not included. */
export function findIncluded(
  included: readonly AnyResource[] | undefined,
  linkage: Linkage | null | undefined,
): AnyResource | undefined {
  if (!linkage || !included) return undefined;
  return included.find((r) => r.id === linkage.id && r.type === linkage.type);
}

/** The to-one linkage of `resource.relationships[name]`, or null (absent, null, or a to-many relationship). */
export function relationshipOne(resource: Resource<string, unknown>, name: string): Linkage | null {
  const data = resource.relationships?.[name]?.data;
  return data && !Array.isArray(data) ? data : null;
}

/** The to-many linkage of `resource.relationships[name]`; empty when absent or to-one. */
export function relationshipMany(resource: Resource<string, unknown>, name: string): Linkage[] {
  const data = resource.relationships?.[name]?.data;
  return Array.isArray(data) ? data : [];
}
