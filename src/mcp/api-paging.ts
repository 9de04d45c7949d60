/**
 * Paging of the `TrackingApi` list methods (src/mcp/api.ts, src/mcp/documents-api.ts): the service page of a tool's
 * `page` / `pageSize`, and the page handed back.
 */

import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, type PageRequest } from "../lib/jsonapi/pagination";

/** One page of a list: `page` is 1-based, `page_size` the size used (clamped to 100), `total` the matching records. */
export interface Page<T> {
  items: T[];
  page: number;
  page_size: number;
  total: number;
  has_more: boolean;
}

/** Paging of a list call: `page` 1-based (default 1), `pageSize` default 30, larger than 100 is clamped to 100. */
export interface PageOptions {
  page?: number;
  pageSize?: number;
}

/**
 * The service page of `options`: `page` 1-based (default 1), size default 30, clamped to 1..100
 * (docs/decisions.md §Wire format).
 */
export function pageRequest(options: PageOptions): PageRequest {
  const number = Math.max(1, Math.floor(options.page ?? 1));
  const size = Math.min(MAX_PAGE_SIZE, Math.max(1, Math.floor(options.pageSize ?? DEFAULT_PAGE_SIZE)));
  return { number, size, sizeGiven: true, offset: (number - 1) * size };
}

/** The page of `items` served for `request`, of `total` matching. */
export function pageOf<T>(items: T[], request: PageRequest, total: number): Page<T> {
  return {
    items,
    page: request.number,
    page_size: request.size,
    total,
    has_more: request.offset + items.length < total,
  };
}
