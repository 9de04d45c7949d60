/**
 * Container numbers (docs/documents.md §What is recognised): ISO 6346 owner code + category letter + 6-digit serial +
 * check digit, written with or without spaces or a dash before the check digit (`MSKU 123456-7`). Only numbers whose
 * check digit is valid are kept (src/infer/iso6346.ts, the check infer_number uses).
 */
import { hasValidCheckDigit } from "../../../infer/iso6346.ts";
import type { ExtractedField } from "../types.ts";
import { field } from "./field.ts";

/** Letters, category, serial, check digit; separators allowed between the groups. */
const CONTAINER_TOKEN = /\b([A-Z]{3}[UJZ])[\s-]?(\d{6})[\s-]?(\d)\b/g;

/** Confidence of a container number whose ISO 6346 check digit is valid: a random 11-character token passes 1 in 11. */
export const CHECKED_CONTAINER_CONFIDENCE = 0.97;

/** Each container number with a valid check digit, once, in order of first appearance. */
export function recogniseContainerNumbers(text: string): ExtractedField[] {
  const seen = new Set<string>();
  const found: ExtractedField[] = [];
  for (const match of text.toUpperCase().matchAll(CONTAINER_TOKEN)) {
    const number = `${match[1]}${match[2]}${match[3]}`;
    if (seen.has(number) || !hasValidCheckDigit(number)) continue;
    seen.add(number);
    found.push(field(number, CHECKED_CONTAINER_CONFIDENCE, match[0]));
  }
  return found;
}
