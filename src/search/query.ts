// The SQL of a search (docs/architecture.md §Search index), with no imports so that bench/search can run the very
// statements the Worker runs, in Node (node:sqlite) as in D1.

/** How a result matched the query: a whole term, the start of one, or inside one (docs/api.md §Search). */
export type SearchMatch = "exact" | "prefix" | "contains";

/** Term frames of the index (migration 0011): U+0002 before each term, U+0003 after it. */
const START = "\u0002";
const END = "\u0003";

/** An FTS5 phrase of `text` (double quotes doubled; the trigram tokenizer takes the rest literally). */
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

/**
 * One match class's results, in rank order (kind: shipments, containers, tracking requests; then newest first): the
 * FTS5 phrase `?2` walked in ascending rowid (FTS5's own direction: it seeks forward through its doclists) inside the
 * range of account `?1` (`search_accounts.seq << 39`, 2^39 rowids wide), so it stops after `?3` rows however many match, each hit joined to its row by primary key. `?4` = 1
 * keeps tracking requests whose number is a shipment's BL/booking number in the account (0 drops them, the
 * reference's rule). Columns: see `SearchHitRow`.
 */
export const CLASS_QUERY_SQL = `
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
LEFT JOIN shipments s ON d.entity_type = 'shipment' AND s.id = d.entity_id AND s.account_id = ?1
LEFT JOIN containers c ON d.entity_type = 'cargo' AND c.id = d.entity_id AND c.account_id = ?1
LEFT JOIN tracking_requests t ON d.entity_type = 'tracking_request' AND t.id = d.entity_id AND t.account_id = ?1
WHERE search_fts MATCH ?2
  AND f.rowid BETWEEN (SELECT seq << 39 FROM search_accounts WHERE account_id = ?1)
    AND (SELECT (seq << 39) + 549755813887 FROM search_accounts WHERE account_id = ?1)
  AND d.account_id = ?1
  AND COALESCE(s.id, c.id, t.id) IS NOT NULL
  AND (?4 OR t.id IS NULL OR NOT EXISTS (
    SELECT 1 FROM shipments z WHERE z.account_id = ?1 AND z.normalized_number = t.normalized_number))
ORDER BY f.rowid ASC
LIMIT ?3`;

/** A row of {@link CLASS_QUERY_SQL}. */
export interface SearchHitRow {
  entity_type: "shipment" | "cargo" | "tracking_request";
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

/**
 * Runs the classes of a search, best first, each asked only when the better ones did not fill `wanted` rows (docs/
 * architecture.md §Search index): `runClass(expression, limit)` runs {@link CLASS_QUERY_SQL}. Returns at most
 * `wanted` rows with their class.
 */
export async function runClasses(
  normalized: string,
  wanted: number,
  runClass: (expression: string, limit: number) => Promise<SearchHitRow[]> | SearchHitRow[],
): Promise<{ row: SearchHitRow; match: SearchMatch }[]> {
  const hits: { row: SearchHitRow; match: SearchMatch }[] = [];
  for (const { match, expression } of matchExpressions(normalized)) {
    for (const row of await runClass(expression, wanted - hits.length)) hits.push({ row, match });
    if (hits.length >= wanted) break;
  }
  return hits;
}
