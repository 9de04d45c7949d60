/**
 * Vessel name and voyage number (docs/documents.md §What is recognised): read after a `Vessel / Voyage` label (the
 * value split at `/`, or before a last token holding digits: `MSC ANNA 412W`), or after separate `Vessel` and
 * `Voyage` labels. A vessel name is letters, digits, spaces, `.`, `-`, `'`; a voyage is 2–10 letters and digits with
 * at least one digit.
 */
import { labelledValues } from "../labels.ts";
import type { TextLine } from "../text-layer.ts";
import type { ExtractedField } from "../types.ts";
import { field } from "./field.ts";

/** Confidences of the vessel and voyage rules. */
export const VESSEL_CONFIDENCE = { labelled: 0.85, combined: 0.8, nextLine: 0.75 } as const;

const VESSEL_NAME = /^(?:M\/?V\.?\s+)?([A-Z][A-Z0-9 .'-]{1,38}[A-Z0-9])$/;
const VOYAGE = /^[A-Z0-9]{0,9}\d[A-Z0-9]{0,9}$/;

/** A clean vessel name (upper case, `M/V` dropped) or null. */
function vesselName(raw: string): string | null {
  const match = VESSEL_NAME.exec(raw.trim().toUpperCase().replace(/\s+/g, " "));
  const name = match?.[1]?.trim();
  return name && /[A-Z]{2}/.test(name) ? name : null;
}

/** A voyage number (upper case) or null. */
function voyage(raw: string): string | null {
  const token = raw
    .trim()
    .toUpperCase()
    .replace(/^V\.?\s*/, "");
  return token.length >= 2 && token.length <= 10 && VOYAGE.test(token) ? token : null;
}

/** Splits `MSC ANNA / 412W` or `MSC ANNA 412W` into name and voyage. */
function splitVesselVoyage(raw: string): { vessel: string | null; voyage: string | null } {
  const value = raw.replace(/^\s*M\/?V\.?\s+/i, "");
  const slash = value.split(/\s*\/\s*/);
  if (slash.length === 2) return { vessel: vesselName(slash[0] ?? ""), voyage: voyage(slash[1] ?? "") };
  const words = value.trim().split(/\s+/);
  const last = words.at(-1) ?? "";
  if (words.length >= 2 && voyage(last))
    return { vessel: vesselName(words.slice(0, -1).join(" ")), voyage: voyage(last) };
  return { vessel: vesselName(value), voyage: null };
}

/** The vessel name and the voyage number, each or both null. */
export function recogniseVesselVoyage(lines: readonly TextLine[]): {
  vessel: ExtractedField | null;
  voyage: ExtractedField | null;
} {
  let vesselField: ExtractedField | null = null;
  let voyageField: ExtractedField | null = null;
  for (const { value, sameLine, sourceText } of labelledValues(lines, "vessel_voyage")) {
    const split = splitVesselVoyage(value);
    const confidence = sameLine ? VESSEL_CONFIDENCE.combined : VESSEL_CONFIDENCE.nextLine;
    if (split.vessel && !vesselField) vesselField = field(split.vessel, confidence, sourceText);
    if (split.voyage && !voyageField) voyageField = field(split.voyage, confidence, sourceText);
  }
  if (!vesselField) {
    for (const { value, sameLine, sourceText } of labelledValues(lines, "vessel")) {
      const name = vesselName(value);
      if (!name) continue;
      vesselField = field(name, sameLine ? VESSEL_CONFIDENCE.labelled : VESSEL_CONFIDENCE.nextLine, sourceText);
      break;
    }
  }
  if (!voyageField) {
    for (const { value, sameLine, sourceText } of labelledValues(lines, "voyage")) {
      const number = voyage(value.split(/\s+/)[0] ?? "");
      if (!number) continue;
      voyageField = field(number, sameLine ? VESSEL_CONFIDENCE.labelled : VESSEL_CONFIDENCE.nextLine, sourceText);
      break;
    }
  }
  return { vessel: vesselField, voyage: voyageField };
}
