import { sql } from "drizzle-orm";
import type { Database } from "../db/client";
import { ApiError } from "../lib/errors";
import { hasControlCharacter } from "../lib/validation";

/** What a search result is (the reference's `entity_type`): a shipment, a container ("cargo") or a tracking request. */
export type SearchEntityType = "shipment" | "cargo" | "tracking_request";

/** How a result matched the query: a whole term, the start of one, or inside one (docs/api.md §Search). */
export type SearchMatch = "exact" | "prefix" | "contains";

/** Longest query accepted (characters, before spaces and dashes are dropped). */
export const MAX_SEARCH_QUERY_LENGTH = 100;
/** Results reachable by paging (offset + page size); a page past them is a 400 (docs/api.md §Search). */
export const MAX_SEARCH_RESULTS = 1000;

/**
 * One result (docs/api.md §Search): the reference's `search_result` attributes, in our row's terms. Kind-specific
 * members are null for the other kinds (REFERENCE §3.2): port names, containers count and tracking stop for
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
   * them (REFERENCE §3.1, docs/api.md §Search), and so does `GET /v2/search`; the MCP `search_container` tool keeps
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

/** Term frames of the index (migration 0011): U+0002 before each term, U+0003 after it. */
const START = "\u0002";
const END = "\u0003";

/** An FTS5 phrase of `text` (double quotes doubled, the rest taken literally by the trigram tokenizer). */
function phrase(text: string): string {
  return `"${text.replaceAll('"', '""')}"`;
}

/**
 * The FTS5 query of each match class for a normalised query, best first. Each class leaves out what a better class
 * already matched (an entity is ranked by its best term). The trigram tokenizer matches nothing under three
 * characters, so a one-character query matches whole terms only, and a two-character one whole terms and prefixes.
 */
export function matchExpressions(normalized: string): { match: SearchMatch; expression: string }[] {
  const exact = phrase(`${START}${normalized}${END}`);
  const prefix = phrase(`${START}${normalized}`);
  const classes: { match: SearchMatch; expression: string }[] = [{ match: "exact", expression: exact }];
  if (normalized.length >= 2) classes.push({ match: "prefix", expression: `${prefix} NOT ${exact}` });
  if (normalized.length >= 3) classes.push({ match: "contains", expression: `${phrase(normalized)} NOT ${prefix}` });
  return classes;
}

/** A row of one class's query, as D1 returns it. */
interface HitRow {
  entity_type: SearchEntityType;
  id: string;
  number: string;
  shipment_id: string | null;
  scac: string | null;
  port_of_lading_name: string | null;
  port_of_discharge_name: string | null;
  containers_count: number | null;
  tracking_stopped: number | null;
  tracking_stopped_reason: string | null;
  status: string | null;
  failed_reason: string | null;
  ref_numbers: string | null;
  created_at: string;
  updated_at: string;
}

/** Width of an account's range of `search_docs.id` (its seq in the high bits, docs/architecture.md §Search index). */
const ACCOUNT_SHIFT = 39;
const ACCOUNT_SPAN = 2 ** ACCOUNT_SHIFT - 1;

/**
 * Up to `limit` results of one match class, in rank order (kind: shipments, containers, tracking requests; then
 * newest first), as one statement: the FTS5 phrase walked in descending rowid within the account's range (so it stops
 * after `limit` rows, however many match), each hit joined to its row by primary key.
 */
function classQuery(db: Database, accountId: string, expression: string, limit: number, keepTrackedRequests: boolean) {
  return db.all<HitRow>(sql`
    SELECT d.entity_type AS entity_type, d.entity_id AS id,
      COALESCE(s.bill_of_lading_number, c.number, t.request_number) AS number,
      COALESCE(c.shipment_id, t.shipment_id) AS shipment_id,
      CASE d.entity_type WHEN 'shipment' THEN s.shipping_line_scac
        WHEN 'cargo' THEN COALESCE(c.scac, (SELECT x.shipping_line_scac FROM shipments x WHERE x.id = c.shipment_id))
        ELSE t.scac END AS scac,
      s.port_of_lading_name AS port_of_lading_name, s.port_of_discharge_name AS port_of_discharge_name,
      CASE WHEN s.id IS NULL THEN NULL ELSE (SELECT count(*) FROM containers y WHERE y.shipment_id = s.id) END
        AS containers_count,
      CASE WHEN s.id IS NULL THEN NULL ELSE s.line_tracking_stopped_at IS NOT NULL END AS tracking_stopped,
      s.line_tracking_stopped_reason AS tracking_stopped_reason,
      t.status AS status, t.failed_reason AS failed_reason,
      COALESCE(s.ref_numbers, c.ref_numbers, t.ref_numbers) AS ref_numbers,
      COALESCE(s.created_at, c.created_at, t.created_at) AS created_at,
      COALESCE(s.updated_at, c.updated_at, t.updated_at) AS updated_at
    FROM search_fts f
    JOIN search_docs d ON d.id = f.rowid
    LEFT JOIN shipments s ON d.entity_type = 'shipment' AND s.id = d.entity_id AND s.account_id = ${accountId}
    LEFT JOIN containers c ON d.entity_type = 'cargo' AND c.id = d.entity_id AND c.account_id = ${accountId}
    LEFT JOIN tracking_requests t
      ON d.entity_type = 'tracking_request' AND t.id = d.entity_id AND t.account_id = ${accountId}
    WHERE search_fts MATCH ${expression}
      AND f.rowid BETWEEN (SELECT seq << ${ACCOUNT_SHIFT} FROM search_accounts WHERE account_id = ${accountId})
        AND (SELECT (seq << ${ACCOUNT_SHIFT}) + ${ACCOUNT_SPAN} FROM search_accounts WHERE account_id = ${accountId})
      AND d.account_id = ${accountId}
      AND COALESCE(s.id, c.id, t.id) IS NOT NULL
      AND (${keepTrackedRequests ? 1 : 0} OR t.id IS NULL OR NOT EXISTS (
        SELECT 1 FROM shipments z WHERE z.account_id = ${accountId} AND z.normalized_number = t.normalized_number))
    ORDER BY f.rowid DESC
    LIMIT ${limit}`);
}

function toHit(row: HitRow, match: SearchMatch): SearchHit {
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
 * fill the page, so a page costs about its offset plus its size in index entries, whatever the account holds.
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
  const wanted = offset + size + 1;
  const hits: SearchHit[] = [];
  for (const { match, expression } of matchExpressions(normalized)) {
    const rows = await classQuery(
      db,
      accountId,
      expression,
      wanted - hits.length,
      options.keepTrackedRequests ?? false,
    );
    for (const row of rows) hits.push(toHit(row, match));
    if (hits.length >= wanted) break;
  }
  return { hits: hits.slice(offset, offset + size), hasMore: hits.length > offset + size };
}
