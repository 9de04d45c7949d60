/**
 * Carrier prediction for `POST /tracking_requests/infer_number` (SPEC.md §4.6, DECISIONS.md §Infer number).
 * Pure: history evidence is passed in as data; the owner-prefix table is built once at module load.
 *
 * Calibration (every constant below says where its number comes from):
 * - Each piece of evidence gives a probability that the number belongs to a SCAC.
 * - Evidence for the same SCAC is combined with a noisy-OR, `1 - Π(1 - p_i)`: independent pieces of evidence
 *   that each could be wrong must all be wrong for the SCAC to be wrong.
 * - History outranks the reference tables: the tables say what a prefix usually means, history says what this
 *   service actually saw succeed. A table's belief in SCAC X therefore only applies to the probability mass that
 *   history leaves to "not another carrier": `p_table(X) · Π_{Y≠X}(1 - p_history(Y))`.
 * - The final confidence of X is `noisyOR(p_history(X), p_table(X) after the discount)`, rounded to 2 decimals.
 */
import { CONTAINER_PREFIXES } from "../reference/generated/container-prefixes";
import { findShippingLine } from "../reference/shipping-lines";
import type { Classification } from "./classify";

/** Successes of one SCAC in the service's own tracking history. */
export interface HistoryCount {
  scac: string;
  successes: number;
}

/** History evidence for one number (DECISIONS.md §Infer number, evidence 1). */
export interface HistoryEvidence {
  /** The same number tracked before with a SCAC that succeeded (tracking requests, container numbers). */
  exactNumber: readonly HistoryCount[];
  /** Containers only: boxes with the same owner prefix seen before with a SCAC. */
  ownerPrefix: readonly HistoryCount[];
}

export const NO_HISTORY: HistoryEvidence = { exactNumber: [], ownerPrefix: [] };

/** `auto_select` ≥ 0.95, `needs_confirmation` ≥ 0.70, else `no_prediction` (SPEC.md §4.6). */
export type Decision = "auto_select" | "needs_confirmation" | "no_prediction";

/** One ranked candidate: the line's own SCAC, its name and a confidence in [0, 1] with 2 decimals. */
export interface Candidate {
  scac: string;
  name: string;
  confidence: number;
}

/** The `shipping_line` object of an infer-number result. */
export interface Prediction {
  decision: Decision;
  selected: Candidate | null;
  candidates: Candidate[];
}

/** SPEC.md §4.6: auto_select at 95 % or more. */
export const AUTO_SELECT_THRESHOLD = 0.95;
/** SPEC.md §4.6: needs_confirmation from 70 % up to 95 %. */
export const NEEDS_CONFIRMATION_THRESHOLD = 0.7;

/**
 * Exact-number history: `1 - 0.04 · 0.5^(n-1)`, capped at 0.995, for n agreeing successes (0.96, 0.98, 0.99, …).
 * A success means the carrier itself returned this number, so one success already clears auto_select; the
 * residual 4 % is the chance that the same string is also a live number at another line (short booking numbers
 * are reused across lines), halving with every further agreeing success. Never 1: history can be stale.
 */
export const EXACT_HISTORY_BASE = 0.04;
export const EXACT_HISTORY_CAP = 0.995;

/**
 * Owner-prefix history: `1 - 0.5^(n+1)`, capped at 0.99, for n agreeing boxes (0.75, 0.875, 0.94, 0.97, …).
 * A box with the same owner prefix on a line is weaker evidence than the number itself (boxes are leased,
 * sub-let and slot-chartered), so each success only halves the doubt, starting from an even prior; four
 * agreeing boxes are needed for auto_select.
 */
export const PREFIX_HISTORY_BASE = 0.5;
export const PREFIX_HISTORY_CAP = 0.99;

/**
 * BL prefix / SCAC match: 0.97. The first characters of a carrier BL are the line's SCAC or BL prefix by
 * convention; the 3 % residual covers house bills and other documents that happen to start with the same
 * letters. Split evenly when several lines share the prefix.
 */
export const BL_PREFIX_CONFIDENCE = 0.97;

/**
 * Carrier-owned container prefix: 0.96. A line's own boxes mostly sail on that line; the 4 % residual covers
 * vessel-sharing partners and boxes sold or sub-let to others (R §8: the prefix alone is not enough). A prefix
 * claimed by several lines (the table's conflict flag) is split evenly; a lessor prefix (no mapped SCAC) gives
 * no evidence at all.
 */
export const OWNER_PREFIX_CONFIDENCE = 0.96;

/** At most this many candidates are listed. */
export const MAX_CANDIDATES = 5;

/** Owner prefix → own SCACs of the lines known to use it (empty for lessors). Built once. */
const OWNER_PREFIXES: ReadonlyMap<string, readonly string[]> = (() => {
  const map = new Map<string, string[]>();
  for (const record of CONTAINER_PREFIXES) map.set(record.prefix, [...record.mappedScacs]);
  return map;
})();

/** Noisy-OR of independent probabilities. */
function noisyOr(ps: readonly number[]): number {
  let miss = 1;
  for (const p of ps) miss *= 1 - p;
  return 1 - miss;
}

/** Rounds to 2 decimals. */
function round2(value: number): number {
  return Math.round(value * 100) / 100;
}

/** The decision for a top confidence (SPEC.md §4.6); null (no candidate) is `no_prediction`. */
export function decide(confidence: number | null): Decision {
  if (confidence === null) return "no_prediction";
  if (confidence >= AUTO_SELECT_THRESHOLD) return "auto_select";
  if (confidence >= NEEDS_CONFIRMATION_THRESHOLD) return "needs_confirmation";
  return "no_prediction";
}

/** The line's own SCAC for a SCAC or alternative SCAC; null when no line is known by it. */
function ownScac(scac: string): string | null {
  return findShippingLine(scac)?.scac ?? null;
}

/**
 * Spreads a history confidence `f(N)` (N = all successes) over the SCACs by their share of the successes:
 * `f(N) · n_s / N`. Adds into `into` (noisy-OR with what is there).
 */
function addHistory(
  into: Map<string, number>,
  counts: readonly HistoryCount[],
  confidenceOf: (n: number) => number,
): void {
  const byScac = new Map<string, number>();
  for (const { scac, successes } of counts) {
    const own = ownScac(scac);
    if (!own || !(successes > 0)) continue;
    byScac.set(own, (byScac.get(own) ?? 0) + successes);
  }
  let total = 0;
  for (const n of byScac.values()) total += n;
  if (total === 0) return;
  const f = confidenceOf(total);
  for (const [scac, n] of byScac) into.set(scac, noisyOr([into.get(scac) ?? 0, (f * n) / total]));
}

/** Spreads `confidence` evenly over `scacs` (own SCACs only; shares of unknown lines are dropped). */
function addSplit(into: Map<string, number>, scacs: readonly string[], confidence: number): void {
  if (scacs.length === 0) return;
  const share = confidence / scacs.length;
  for (const scac of scacs) {
    const own = ownScac(scac);
    if (!own) continue;
    into.set(own, noisyOr([into.get(own) ?? 0, share]));
  }
}

/** Exact-number history confidence for n agreeing successes. */
export function exactHistoryConfidence(n: number): number {
  return Math.min(EXACT_HISTORY_CAP, 1 - EXACT_HISTORY_BASE * 0.5 ** (n - 1));
}

/** Owner-prefix history confidence for n agreeing successes. */
export function prefixHistoryConfidence(n: number): number {
  return Math.min(PREFIX_HISTORY_CAP, 1 - PREFIX_HISTORY_BASE * 0.5 ** n);
}

/**
 * Ranked carrier candidates and the decision for a classified number (DECISIONS.md §Infer number): history
 * first, then BL prefix / SCAC tables, then container owner prefix tables. Candidates are sorted by confidence
 * (then SCAC), rounded to 2 decimals, those rounding to 0 dropped; `selected` is the top one or null.
 */
export function predictCarrier(classification: Classification, history: HistoryEvidence = NO_HISTORY): Prediction {
  const fromHistory = new Map<string, number>();
  addHistory(fromHistory, history.exactNumber, exactHistoryConfidence);
  if (classification.numberType === "container") addHistory(fromHistory, history.ownerPrefix, prefixHistoryConfidence);

  const fromTables = new Map<string, number>();
  if (classification.blPrefix) addSplit(fromTables, classification.blPrefix.scacs, BL_PREFIX_CONFIDENCE);
  if (classification.ownerPrefix) {
    addSplit(fromTables, OWNER_PREFIXES.get(classification.ownerPrefix) ?? [], OWNER_PREFIX_CONFIDENCE);
  }

  const scacs = new Set([...fromHistory.keys(), ...fromTables.keys()]);
  const candidates: Candidate[] = [];
  for (const scac of scacs) {
    const line = findShippingLine(scac);
    if (!line) continue;
    // The table's belief only applies where history does not point at another carrier.
    let otherHistoryMiss = 1;
    for (const [other, p] of fromHistory) if (other !== scac) otherHistoryMiss *= 1 - p;
    const table = (fromTables.get(scac) ?? 0) * otherHistoryMiss;
    const confidence = round2(noisyOr([fromHistory.get(scac) ?? 0, table]));
    if (confidence > 0) candidates.push({ scac: line.scac, name: line.name, confidence });
  }
  candidates.sort((a, b) => b.confidence - a.confidence || a.scac.localeCompare(b.scac));
  const ranked = candidates.slice(0, MAX_CANDIDATES);
  const selected = ranked[0] ?? null;
  return { decision: decide(selected?.confidence ?? null), selected, candidates: ranked };
}
