/**
 * The ocean carrier's SCAC (docs/documents.md §What is recognised), from, in order of trust:
 * 1. a `SCAC` label followed by a code of our shipping lines (src/reference/shipping-lines.ts; alternative SCACs map
 *    to the line's own, MEDU → MSCU);
 * 2. a carrier's name or short name, as whole words (`Hapag-Lloyd`, `MSC`): under a `Carrier` label first, then
 *    anywhere in the text. Names of 5 characters or more match in any case; shorter ones (`ONE`, `MSC`, `MOL`) only
 *    in capitals, and only under a `Carrier` label or in the letterhead (the first {@link LETTERHEAD_LINES} lines),
 *    since in the body they are common words (`SAY: ONE (1) CONTAINER ONLY`);
 * 3. the BL number's prefix, when it names one line only.
 * Two rules that agree raise the confidence.
 */
import { matchBlPrefix } from "../../../infer/classify.ts";
import { allShippingLines, findShippingLine, SANDBOX_SCAC } from "../../../reference/shipping-lines.ts";
import { labelledValues } from "../labels.ts";
import type { TextLine } from "../text-layer.ts";
import type { ExtractedField } from "../types.ts";
import { field } from "./field.ts";

/** Confidences of the carrier rules. */
export const CARRIER_CONFIDENCE = {
  scacLabel: 0.97,
  unknownScacLabel: 0.6,
  nameUnderLabel: 0.9,
  name: 0.8,
  blPrefix: 0.7,
  agreementBonus: 0.1,
  /** No rule is certain: agreement raises a confidence to at most this. */
  max: 0.99,
} as const;

interface NamePattern {
  scac: string;
  pattern: RegExp;
  /** Under 5 characters: capitals only, and not in the body of the text. */
  short: boolean;
}

/** Lines at the top of the first page where a carrier's short name counts (its letterhead). */
export const LETTERHEAD_LINES = 3;

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Name patterns of every shipping line but the sandbox one, longest name first (so `SeaLand Europe` beats `SeaLand`). */
const NAME_PATTERNS: readonly NamePattern[] = (() => {
  const patterns: { scac: string; name: string }[] = [];
  for (const line of allShippingLines()) {
    if (line.scac === SANDBOX_SCAC) continue;
    for (const name of new Set([line.name, line.shortName])) patterns.push({ scac: line.scac, name });
  }
  patterns.sort((a, b) => b.name.length - a.name.length);
  return patterns.map(({ scac, name }) => {
    const words = escapeRegExp(name).replace(/\s+/g, "\\s+");
    // Short names are common words or initials (`ONE`, `DAL`): only in capitals, as the carriers write them.
    const short = name.length < 5;
    return { scac, pattern: new RegExp(`(?<![A-Za-z0-9])${words}(?![A-Za-z0-9])`, short ? "" : "i"), short };
  });
})();

/**
 * The line the first carrier name in `text` names (at the earliest position; of names starting there, the longest),
 * or null; short names (under 5 characters) only `withShortNames`. One search of the whole text per name.
 */
export function carrierByName(text: string, withShortNames: boolean): { scac: string; match: string } | null {
  let found: { scac: string; match: string; at: number } | null = null;
  for (const { scac, pattern, short } of NAME_PATTERNS) {
    if (short && !withShortNames) continue;
    const match = pattern.exec(text);
    if (match && (!found || match.index < found.at)) found = { scac, match: match[0], at: match.index };
  }
  return found ? { scac: found.scac, match: found.match } : null;
}

/** The carrier's SCAC, or null; `billOfLading` is the BL number already recognised (for its prefix). */
export function recogniseScac(lines: readonly TextLine[], billOfLading: string | null): ExtractedField | null {
  const prefixScacs = billOfLading ? (matchBlPrefix(billOfLading)?.scacs ?? []) : [];
  const prefixScac = prefixScacs.length === 1 ? (prefixScacs[0] ?? null) : null;
  const agreeing = (scac: string, confidence: number) =>
    scac === prefixScac ? Math.min(CARRIER_CONFIDENCE.max, confidence + CARRIER_CONFIDENCE.agreementBonus) : confidence;

  for (const { value, sourceText } of labelledValues(lines, "scac")) {
    const code = /^[A-Z]{2,4}\b/.exec(value.toUpperCase())?.[0];
    if (!code) continue;
    const line = findShippingLine(code);
    if (line) return field(line.scac, agreeing(line.scac, CARRIER_CONFIDENCE.scacLabel), sourceText);
    return field(code, CARRIER_CONFIDENCE.unknownScacLabel, sourceText);
  }
  for (const { value, sourceText } of labelledValues(lines, "carrier")) {
    const named = carrierByName(value, true);
    if (named) return field(named.scac, agreeing(named.scac, CARRIER_CONFIDENCE.nameUnderLabel), sourceText);
  }
  const texts = lines.map((l) => l.text);
  const letterhead = texts.slice(0, LETTERHEAD_LINES).join("\n");
  const text = texts.join("\n");
  const named = carrierByName(letterhead, true) ?? carrierByName(text, false);
  if (named) {
    const at = text.indexOf(named.match);
    const line = text.slice(text.lastIndexOf("\n", at) + 1).split("\n")[0] ?? named.match;
    return field(named.scac, agreeing(named.scac, CARRIER_CONFIDENCE.name), line);
  }
  if (prefixScac && billOfLading) return field(prefixScac, CARRIER_CONFIDENCE.blPrefix, billOfLading);
  return null;
}
