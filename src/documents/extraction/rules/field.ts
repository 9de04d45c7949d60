import type { ExtractedField } from "../types.ts";

/** An {@link ExtractedField} with its confidence clamped to 0..1 and rounded to two decimals. */
export function field(value: string, confidence: number, sourceText: string): ExtractedField {
  const clamped = Math.min(1, Math.max(0, confidence));
  return { value, confidence: Math.round(clamped * 100) / 100, source_text: sourceText.trim() };
}

/** The field with the highest confidence (the first of equals), or null. */
export function best(candidates: readonly ExtractedField[]): ExtractedField | null {
  let top: ExtractedField | null = null;
  for (const candidate of candidates) if (!top || candidate.confidence > top.confidence) top = candidate;
  return top;
}
