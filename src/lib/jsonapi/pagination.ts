import { ApiError } from "../errors";
import type { DocumentLinks, ListMeta } from "./types";

/** Default and maximum `page[size]` (docs/decisions.md §Wire format: larger values are clamped to 100). */
export const DEFAULT_PAGE_SIZE = 30;
export const MAX_PAGE_SIZE = 100;
/** Largest `page[number]` accepted; beyond it the offset means nothing useful. */
export const MAX_PAGE_NUMBER = 1_000_000;

/** A validated page request: 1-based `number`, `size` in 1..100, and whether the client gave `page[size]`. */
export interface PageRequest {
  number: number;
  size: number;
  sizeGiven: boolean;
  /** Rows to skip: `(number - 1) * size`. */
  offset: number;
}

function parsePositiveInt(raw: string, parameter: string): number {
  const digits = raw.trim();
  if (!/^\d+$/.test(digits)) {
    throw ApiError.badParameter(parameter, `${parameter} must be a positive integer.`);
  }
  // Any length of digits is a positive integer: a huge page[size] is clamped, a huge page[number] refused by
  // the caller; past 2^53 (or Infinity) only the magnitude matters.
  const n = Number(digits);
  if (n < 1) throw ApiError.badParameter(parameter, `${parameter} must be a positive integer.`);
  return n;
}

/**
 * Reads `page[number]` and `page[size]` from decoded query parameters (the literal and percent-encoded bracket
 * forms both arrive here decoded). Defaults 1 and `defaultSize`; sizes over 100 are clamped to 100.
 * @throws ApiError 400 (`source.parameter`) when a value is not a positive integer or the number is absurd.
 */
export function parsePage(params: URLSearchParams, defaultSize = DEFAULT_PAGE_SIZE): PageRequest {
  const rawNumber = params.get("page[number]");
  const rawSize = params.get("page[size]");
  const number = rawNumber === null || rawNumber === "" ? 1 : parsePositiveInt(rawNumber, "page[number]");
  if (number > MAX_PAGE_NUMBER)
    throw ApiError.badParameter("page[number]", `page[number] must be at most ${MAX_PAGE_NUMBER}.`);
  const sizeGiven = rawSize !== null && rawSize !== "";
  const size = sizeGiven ? Math.min(parsePositiveInt(rawSize, "page[size]"), MAX_PAGE_SIZE) : defaultSize;
  return { number, size, sizeGiven, offset: (number - 1) * size };
}

/**
 * Builds the list `links` and `meta` of docs/decisions.md §Wire format from the request URL as received:
 * `self` echoes it; `current`/`first`/`last`/`prev`/`next` are absolute, with the original query parameters
 * plus `page[number]` (and `page[size]` when the client gave one), sorted by name, brackets not encoded.
 * `prev`/`next` only when such a page exists.
 */
export function listLinksAndMeta(
  requestUrl: string,
  page: PageRequest,
  itemCount: number,
  total: number,
): { links: DocumentLinks; meta: ListMeta } {
  const url = new URL(requestUrl);
  const base = `${url.origin}${url.pathname}`;
  // The query of every page link is the same but for `page[number]`'s value: sort and encode the other parameters
  // once (a stable sort by name, `page[number]` placed as if appended last) and only fill the number in per link.
  const params: [string, string | null][] = [];
  for (const [k, v] of url.searchParams) {
    if (k !== "page[number]" && k !== "page[size]") params.push([k, v]);
  }
  params.push(["page[number]", null]);
  if (page.sizeGiven) params.push(["page[size]", String(page.size)]);
  params.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  const at = params.findIndex(([, v]) => v === null);
  const encode = (list: [string, string | null][]) =>
    list.map(([k, v]) => `${encodeQueryPart(k)}=${encodeQueryPart(v ?? "")}`).join("&");
  const before = encode(params.slice(0, at));
  const after = encode(params.slice(at + 1));
  const pageUrl = (n: number): string =>
    `${base}?${before === "" ? "" : `${before}&`}page[number]=${n}${after === "" ? "" : `&${after}`}`;
  const last = Math.max(1, Math.ceil(total / page.size));
  const links: DocumentLinks = { self: requestUrl, current: pageUrl(page.number), first: pageUrl(1) };
  if (page.number > 1) links.prev = pageUrl(Math.min(page.number - 1, last));
  if (page.number < last) links.next = pageUrl(page.number + 1);
  links.last = pageUrl(last);
  const pagination: ListMeta["pagination"] = {
    current: page.number,
    ...(page.number < last ? { next: page.number + 1 } : {}),
    ...(total > 0 ? { last } : {}),
    records: total,
  };
  return { links, meta: { size: itemCount, total, pagination } };
}

/** Percent-encodes a query key or value but leaves `[`, `]` and `,` readable, as the reference service does. */
function encodeQueryPart(s: string): string {
  return encodeURIComponent(s).replace(/%5B/gi, "[").replace(/%5D/gi, "]").replace(/%2C/gi, ",");
}
