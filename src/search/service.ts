import type { Database } from "../db/client";
import { ApiError } from "../lib/errors";
import { hasControlCharacter } from "../lib/validation";
import { CLASS_QUERY_SQL, runClasses, type SearchHitRow, type SearchMatch } from "./query";

export type { SearchMatch } from "./query";

/** What a search result is (the reference's `entity_type`): a shipment, a container ("cargo") or a tracking request. */
export type SearchEntityType = "shipment" | "cargo" | "tracking_request";

/** Longest query accepted (characters, before spaces and dashes are dropped). */
export const MAX_SEARCH_QUERY_LENGTH = 100;
/** Results reachable by paging (offset + page size); a page past them is a 400 (docs/api.md §Search). */
export const MAX_SEARCH_RESULTS = 1000;

/**
 * One result (docs/api.md §Search): the reference's `search_result` attributes, in our row's terms. Kind-specific
 * members are null for the other kinds (docs/api.md §Search): port names, containers count and tracking stop for
 * shipments; status and failed reason for tracking requests; `shipmentId` for containers and tracking requests.
 */
export interface SearchHit {
  entityType: SearchEntityType;
  id: string;
  match: SearchMatch;
  /** BL/booking number (shipment), container number (cargo), request number (tracking request). */
  number: string;
  shipmentId: string | null;
  scac: string | null;
  portOfLadingName: string | null;
  portOfDischargeName: string | null;
  containersCount: number | null;
  trackingStopped: boolean | null;
  trackingStoppedReason: string | null;
  status: string | null;
  failedReason: string | null;
  refNumbers: string[];
  createdAt: string;
  updatedAt: string;
}

/** A page of results in rank order, and whether another page follows. */
export interface SearchPage {
  hits: SearchHit[];
  hasMore: boolean;
}

/** Options of {@link searchAccount}. */
export interface SearchOptions {
  /** Rows to skip (page offset) and page size; `offset + size` at most {@link MAX_SEARCH_RESULTS}. */
  offset: number;
  size: number;
  /**
   * Keep tracking requests whose number is also a shipment's BL/booking number in the account. The reference drops
   * them (docs/api.md §Search), and so does `GET /v2/search`; the MCP `search_container` tool keeps
   * them, to show the request's status next to its shipment (docs/mcp.md §Tools).
   */
  keepTrackedRequests?: boolean;
}

/**
 * The normal form of a search query, as the index stores terms (migration 0011): trimmed, whitespace and dashes
 * dropped (as `filter[number]` normalises container numbers, docs/api.md §Container endpoints); case and diacritics
 * are folded by the FTS5 trigram tokenizer.
 * @throws ApiError 400 (`source.parameter: "query"`): missing or blank (`Query parameter is required`, the reference's
 *   detail), over {@link MAX_SEARCH_QUERY_LENGTH} characters, holding a control character (code `control_character`)
 *   or text that is not well-formed Unicode (an unpaired surrogate, or U+FFFD from bytes that were not UTF-8; code
 *   `unpaired_surrogate`).
 */
export function normalizeSearchQuery(raw: string | null | undefined): string {
  const query = raw?.trim() ?? "";
  if (query === "") throw ApiError.badParameter("query", "Query parameter is required");
  if (query.length > MAX_SEARCH_QUERY_LENGTH) {
    throw ApiError.badParameter("query", `query must be at most ${MAX_SEARCH_QUERY_LENGTH} characters.`);
  }
  if (hasControlCharacter(query)) {
    throw new ApiError(400, [
      {
        detail: "query must not contain control characters (U+0000–U+001F, U+007F).",
        source: { parameter: "query" },
        code: "control_character",
      },
    ]);
  }
  if (!query.isWellFormed() || query.includes("\uFFFD")) {
    throw new ApiError(400, [
      {
        detail: "query must be well-formed UTF-8 text (no unpaired surrogate, no invalid byte sequence).",
        source: { parameter: "query" },
        code: "unpaired_surrogate",
      },
    ]);
  }
  const normalized = query.replace(/[\s-]/g, "");
  if (normalized === "") throw ApiError.badParameter("query", "Query parameter is required");
  return normalized;
}

/** Runs one class's statement in D1 (the drizzle handle's binding: the statement is plain SQL, src/search/query.ts). */
function classQuery(db: Database, accountId: string, keepTrackedRequests: boolean) {
  const d1 = (db as unknown as { $client: D1Database }).$client;
  const statement = d1.prepare(CLASS_QUERY_SQL);
  return async (expression: string, limit: number) =>
    (await statement.bind(accountId, expression, limit, keepTrackedRequests ? 1 : 0).all<SearchHitRow>()).results;
}

function toHit(row: SearchHitRow, match: SearchMatch): SearchHit {
  const isShipment = row.entity_type === "shipment";
  return {
    entityType: row.entity_type,
    id: row.id,
    match,
    number: row.number,
    shipmentId: isShipment ? null : row.shipment_id,
    scac: row.scac,
    portOfLadingName: isShipment ? row.port_of_lading_name : null,
    portOfDischargeName: isShipment ? row.port_of_discharge_name : null,
    containersCount: isShipment ? row.containers_count : null,
    trackingStopped: isShipment ? row.tracking_stopped === 1 : null,
    trackingStoppedReason: isShipment ? row.tracking_stopped_reason : null,
    status: row.entity_type === "tracking_request" ? row.status : null,
    failedReason: row.entity_type === "tracking_request" ? row.failed_reason : null,
    refNumbers: parseRefNumbers(row.ref_numbers),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function parseRefNumbers(json: string | null): string[] {
  if (json === null) return [];
  const value: unknown = JSON.parse(json);
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

/**
 * Searches one account's shipments, containers and tracking requests (docs/api.md §Search): container numbers, BL
 * and booking numbers, request numbers, reference numbers (shipments', containers', tracking requests'), vessel names
 * and POL/POD names and UN/LOCODEs (a vessel or port finds the shipments and the containers on them). Ranked exact →
 * prefix → contains, then shipments, containers, tracking requests, then newest first; tracking requests whose number
 * is a shipment's BL/booking number in the account are dropped unless `keepTrackedRequests`.
 *
 * Index-backed (docs/architecture.md §Search index): each class is one FTS5 query walked in rank order inside the
 * account's rowid range and cut at `offset + size + 1` rows; the next class is asked only when the better ones did not
 * fill the page, so a whole-term or prefix page costs about its offset plus its size in index entries, whatever the
 * account holds (a substring page also steps through its trigrams' postings; bench/README.md §bench/search).
 * @param normalized a query from {@link normalizeSearchQuery}.
 * @throws ApiError 400 (`page[number]`) when `offset + size` exceeds {@link MAX_SEARCH_RESULTS}.
 */
export async function searchAccount(
  db: Database,
  accountId: string,
  normalized: string,
  options: SearchOptions,
): Promise<SearchPage> {
  const { offset, size } = options;
  if (offset + size > MAX_SEARCH_RESULTS) {
    throw ApiError.badParameter(
      "page[number]",
      `Search serves the first ${MAX_SEARCH_RESULTS} results; page[number] × page[size] must be at most ${MAX_SEARCH_RESULTS}.`,
    );
  }
  const rows = await runClasses(
    normalized,
    offset + size + 1,
    classQuery(db, accountId, options.keepTrackedRequests ?? false),
  );
  const hits = rows.map(({ row, match }) => toHit(row, match));
  return { hits: hits.slice(offset, offset + size), hasMore: hits.length > offset + size };
}
