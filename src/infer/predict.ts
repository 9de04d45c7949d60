/**
 * Carrier prediction for `POST /tracking_requests/infer_number` (docs/api.md §Infer number,
 * docs/decisions.md §Infer number). Pure: history evidence is passed in as data; the owner-prefix table is built once
 * at module load.
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
import { CONTAINER_OWNERS, CONTAINER_PREFIXES } from "../reference/generated/container-prefixes.ts";
import { findShippingLine } from "../reference/shipping-lines.ts";
import type { Classification } from "./classify.ts";

/** Successes of one SCAC in the service's own tracking history. */
export interface HistoryCount {
  scac: string;
  successes: number;
}

/** History evidence for one number (docs/decisions.md §Infer number, evidence 1). */
export interface HistoryEvidence {
  /** The same number tracked before with a SCAC that succeeded (tracking requests, container numbers). */
  exactNumber: readonly HistoryCount[];
  /** Containers only: boxes with the same owner prefix seen before with a SCAC. */
  ownerPrefix: readonly HistoryCount[];
}

export const NO_HISTORY: HistoryEvidence = { exactNumber: [], ownerPrefix: [] };

/** `auto_select` ≥ 0.95, `needs_confirmation` ≥ 0.70, else `no_prediction` (docs/api.md §Infer number). */
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

/** docs/api.md §Infer number: auto_select at 95 % or more. */
export const AUTO_SELECT_THRESHOLD = 0.95;
/** docs/api.md §Infer number: needs_confirmation from 70 % up to 95 %. */
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
 * vessel-sharing partners and boxes sold or sub-let to others (docs/decisions.md §Infer number: the prefix alone is not
 * enough). A prefix claimed by several lines (the table's conflict flag) is split evenly; a lessor prefix (no mapped
 * SCAC) gives no evidence at all.
 */
export const OWNER_PREFIX_CONFIDENCE = 0.96;

/**
 * Owner prefix of an owner outside the carrier registry (`CONTAINER_OWNERS`: a SCAC of
 * data/container-prefixes.csv that data/carriers.csv does not list, e.g. ADMU Admiral
 * Container Lines or DHC2 DHL Global Forwarding): the owner-prefix confidence times 0.5, i.e. 0.48 for a prefix
 * of one owner. The prefix says whose box it is, exactly as for a line's own prefix (0.96 if the owner runs the
 * ships the box sails on), but nothing in the data says whether the owner does: the list mixes ocean lines with
 * forwarders and equipment operators (Kuehne + Nagel, DSV, Stolt Tank Containers, TransContainer) whose boxes sail
 * with any line, as a lessor's do (evidence 0). Knowing neither way, each case gets half the weight (the
 * uninformed prior). Such a candidate is listed with its SCAC and name but cannot reach needs_confirmation on the
 * prefix alone — fitting, since no source tracks these owners (auto-detect only ever picks supported lines).
 */
export const OUTSIDE_REGISTRY_OWNER_FACTOR = 0.5;

/** At most this many candidates are listed. */
export const MAX_CANDIDATES = 5;

/** Table evidence for one SCAC: its own SCAC, the name shown, and the probability the table gives it. */
export interface TableEvidence {
  scac: string;
  name: string;
  p: number;
}

const NO_TABLE_EVIDENCE: readonly TableEvidence[] = Object.freeze([]);

/**
 * Owner prefix → what the prefix table says, split and weighted once per isolate on first use (never per call; not
 * at module load, where it cost every isolate's startup: docs/SCALING.md §Worker bundle, startup and cold start): each mapped SCAC gets
 * `OWNER_PREFIX_CONFIDENCE / n` (n = SCACs claiming the prefix; the conflict flag's split), times
 * `OUTSIDE_REGISTRY_OWNER_FACTOR` for an owner outside the registry. Lessor prefixes (no SCAC) are absent.
 */
let ownerPrefixTable: ReadonlyMap<string, readonly TableEvidence[]> | undefined;

function ownerPrefixEvidenceTable(): ReadonlyMap<string, readonly TableEvidence[]> {
  ownerPrefixTable ??= buildOwnerPrefixEvidence();
  return ownerPrefixTable;
}

function buildOwnerPrefixEvidence(): ReadonlyMap<string, readonly TableEvidence[]> {
  const outsideOwners = new Map(CONTAINER_OWNERS.map((o) => [o.scac, o]));
  const map = new Map<string, readonly TableEvidence[]>();
  for (const record of CONTAINER_PREFIXES) {
    const n = record.mappedScacs.length;
    const evidence: TableEvidence[] = [];
    for (const scac of record.mappedScacs) {
      const line = findShippingLine(scac);
      const owner = line ? null : outsideOwners.get(scac);
      if (line) evidence.push({ scac: line.scac, name: line.name, p: OWNER_PREFIX_CONFIDENCE / n });
      else if (owner) {
        evidence.push({
          scac: owner.scac,
          name: owner.name,
          p: (OWNER_PREFIX_CONFIDENCE / n) * OUTSIDE_REGISTRY_OWNER_FACTOR,
        });
      }
    }
    if (evidence.length > 0) map.set(record.prefix, Object.freeze(evidence));
  }
  return map;
}

/** The table evidence of a container owner prefix (empty for lessors and unknown prefixes). */
export function ownerPrefixEvidence(prefix: string): readonly TableEvidence[] {
  return ownerPrefixEvidenceTable().get(prefix) ?? NO_TABLE_EVIDENCE;
}

/** Noisy-OR of two independent probabilities: `1 - (1 - a)(1 - b)`. */
function noisyOr(a: number, b: number): number {
  return 1 - (1 - a) * (1 - b);
}

/** Rounds to 2 decimals. */
function round2(value: number): number {
  return Math.round(value * 100) / 100;
}

/** The decision for a top confidence (docs/api.md §Infer number); null (no candidate) is `no_prediction`. */
export function decide(confidence: number | null): Decision {
  if (confidence === null) return "no_prediction";
  if (confidence >= AUTO_SELECT_THRESHOLD) return "auto_select";
  if (confidence >= NEEDS_CONFIRMATION_THRESHOLD) return "needs_confirmation";
  return "no_prediction";
}

/** What is known about one SCAC while a prediction is built. */
interface Evidence {
  scac: string;
  name: string;
  /** Combined history probability. */
  history: number;
  /** Combined table probability (before the history discount). */
  table: number;
  /** Successes counted for the history source being added (scratch). */
  successes: number;
}

/** The entry of `scac` in `evidence`, added if absent (a handful of SCACs at most: a list beats a map). */
function entryFor(evidence: Evidence[], scac: string, name: string): Evidence {
  for (const e of evidence) if (e.scac === scac) return e;
  const e: Evidence = { scac, name, history: 0, table: 0, successes: 0 };
  evidence.push(e);
  return e;
}

/**
 * Spreads a history confidence `f(N)` (N = all successes) over the SCACs by their share of the successes:
 * `f(N) · n_s / N`, noisy-OR'd into what `evidence` holds. SCACs are mapped to the line's own SCAC (MEDU → MSCU);
 * SCACs of no known line and non-positive counts are ignored.
 */
function addHistory(evidence: Evidence[], counts: readonly HistoryCount[], confidenceOf: (n: number) => number): void {
  let total = 0;
  for (const { scac, successes } of counts) {
    const line = findShippingLine(scac);
    if (!line || !(successes > 0)) continue;
    entryFor(evidence, line.scac, line.name).successes += successes;
    total += successes;
  }
  if (total === 0) return;
  const f = confidenceOf(total);
  for (const e of evidence) {
    if (e.successes === 0) continue;
    e.history = noisyOr(e.history, (f * e.successes) / total);
    e.successes = 0;
  }
}

/** Adds table evidence (noisy-OR with what the SCAC already has from other tables). */
function addTable(evidence: Evidence[], table: readonly TableEvidence[]): void {
  for (const t of table) {
    const e = entryFor(evidence, t.scac, t.name);
    e.table = noisyOr(e.table, t.p);
  }
}

/** Spreads the BL prefix confidence evenly over the lines using the prefix (own SCACs; unknown ones dropped). */
function addBlPrefix(evidence: Evidence[], scacs: readonly string[]): void {
  const share = BL_PREFIX_CONFIDENCE / scacs.length;
  for (const scac of scacs) {
    const line = findShippingLine(scac);
    if (!line) continue;
    const e = entryFor(evidence, line.scac, line.name);
    e.table = noisyOr(e.table, share);
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

/** Higher confidence first, then SCAC (ordinal: SCACs are upper-case letters and digits). */
function byConfidenceThenScac(a: Candidate, b: Candidate): number {
  return b.confidence - a.confidence || (a.scac < b.scac ? -1 : a.scac > b.scac ? 1 : 0);
}

/**
 * Ranked carrier candidates and the decision for a classified number (docs/decisions.md §Infer number): history
 * first, then BL prefix / SCAC tables, then container owner prefix tables. Candidates are sorted by confidence
 * (then SCAC), rounded to 2 decimals, those rounding to 0 dropped; `selected` is the top one or null. Pure and
 * cheap: every table is built at module load (bench/infer measures the path; issue 5 asks ≥ 100 000 numbers/s).
 */
export function predictCarrier(classification: Classification, history: HistoryEvidence = NO_HISTORY): Prediction {
  const evidence: Evidence[] = [];
  addHistory(evidence, history.exactNumber, exactHistoryConfidence);
  if (classification.numberType === "container") addHistory(evidence, history.ownerPrefix, prefixHistoryConfidence);
  if (classification.blPrefix) addBlPrefix(evidence, classification.blPrefix.scacs);
  if (classification.ownerPrefix) addTable(evidence, ownerPrefixEvidence(classification.ownerPrefix));

  const candidates: Candidate[] = [];
  for (const e of evidence) {
    // The table's belief only applies where history does not point at another carrier.
    let otherHistoryMiss = 1;
    for (const other of evidence) if (other !== e) otherHistoryMiss *= 1 - other.history;
    const confidence = round2(noisyOr(e.history, e.table * otherHistoryMiss));
    if (confidence > 0) candidates.push({ scac: e.scac, name: e.name, confidence });
  }
  candidates.sort(byConfidenceThenScac);
  if (candidates.length > MAX_CANDIDATES) candidates.length = MAX_CANDIDATES;
  const selected = candidates[0] ?? null;
  return { decision: decide(selected?.confidence ?? null), selected, candidates };
}
