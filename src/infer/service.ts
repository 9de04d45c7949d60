import { and, eq, gte, isNotNull, lt, sql } from "drizzle-orm";
import type { Database } from "../db/client";
import { containers, trackingRequests } from "../db/schema";
import { type Classification, classifyNumber } from "./classify";
import { type HistoryCount, type HistoryEvidence, type Prediction, predictCarrier } from "./predict";

/** A classified number with its carrier prediction. */
export interface InferResult {
  classification: Classification;
  prediction: Prediction;
}

/**
 * The service's own tracking history for a normalised number (docs/decisions.md §Infer number, evidence 1), across
 * all accounts but as aggregated counts per SCAC only — nothing else of another account is read or exposed. One
 * D1 batch:
 * - tracking requests that reached `created`, by `line_scac`, whose normalised number (spaces and dashes removed
 *   as in {@link classifyNumber}) is this number;
 * - containers with this exact number, by `scac` (distinct boxes; a container is a success by construction);
 * - containers only: containers with the same owner prefix (first 4 characters), by `scac`, counting distinct
 *   numbers so one box tracked by several accounts counts once.
 * Served by `tracking_requests_compact_number_idx` and `containers_number_idx` (the account indexes lead with
 * `account_id` and cannot).
 */
export async function loadHistory(db: Database, classification: Classification): Promise<HistoryEvidence> {
  const number = classification.normalized;
  // Containers only: for other numbers the constant `0 = 1` term makes SQLite skip the containers scans.
  const isContainer = classification.numberType === "container" ? 1 : 0;
  const requestsQuery = db
    .select({ scac: trackingRequests.lineScac, successes: sql<number>`count(*)` })
    .from(trackingRequests)
    .where(
      and(
        eq(trackingRequests.status, "created"),
        isNotNull(trackingRequests.lineScac),
        eq(trackingRequests.compactNumber, number),
      ),
    )
    .groupBy(trackingRequests.lineScac);
  const exactBoxesQuery = db
    .select({ scac: containers.scac, successes: sql<number>`count(distinct ${containers.number})` })
    .from(containers)
    .where(and(sql`${isContainer} = 1`, eq(containers.number, number), isNotNull(containers.scac)))
    .groupBy(containers.scac);
  const prefix = classification.ownerPrefix ?? "";
  const prefixBoxesQuery = db
    .select({ scac: containers.scac, successes: sql<number>`count(distinct ${containers.number})` })
    .from(containers)
    .where(
      and(
        sql`${isContainer} = 1`,
        // A range on the number (not substr) so containers_number_idx serves it.
        gte(containers.number, prefix),
        lt(containers.number, `${prefix}~`),
        isNotNull(containers.scac),
      ),
    )
    .groupBy(containers.scac);

  const [requests, exactBoxes, prefixBoxes] = await db.batch([requestsQuery, exactBoxesQuery, prefixBoxesQuery]);
  const counts = (rows: { scac: string | null; successes: number }[]): HistoryCount[] =>
    rows.flatMap((r) => (r.scac ? [{ scac: r.scac, successes: Number(r.successes) }] : []));
  return {
    exactNumber: [...counts(requests), ...(classification.numberType === "container" ? counts(exactBoxes) : [])],
    ownerPrefix: classification.ownerPrefix ? counts(prefixBoxes) : [],
  };
}

/**
 * Classifies a raw number and predicts its carrier from history and the reference tables (docs/api.md §Infer number).
 * @throws InvalidReferenceNumber for garbage input.
 */
export async function inferNumber(db: Database, raw: string): Promise<InferResult> {
  const classification = classifyNumber(raw);
  const history = await loadHistory(db, classification);
  return { classification, prediction: predictCarrier(classification, history) };
}
