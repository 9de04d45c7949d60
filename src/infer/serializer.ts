import type { InferNumberAttributes } from "./schemas";
import type { InferResult } from "./service";

/**
 * The attributes of `POST /tracking_requests/infer_number` (docs/api.md §Infer number) for a classified number and its
 * carrier prediction: `parsed_number` is always null, as in the reference.
 */
export function serializeInferResult({ classification: k, prediction: p }: InferResult): InferNumberAttributes {
  return {
    number_type: k.numberType,
    validation: {
      is_valid: k.validation.isValid,
      type: k.validation.type,
      check_digit_passed: k.validation.checkDigitPassed,
      parsed_number: null,
      reason: k.validation.reason,
    },
    shipping_line: { decision: p.decision, selected: p.selected, candidates: p.candidates },
  };
}
