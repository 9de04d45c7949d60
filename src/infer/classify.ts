/**
 * Classification of a bare tracking number for `POST /tracking_requests/infer_number` (docs/api.md §Infer number,
 * docs/decisions.md §Infer number). Pure: the BL prefix table is built once at module load.
 */
import { allShippingLines } from "../reference/shipping-lines.ts";
import { CONTAINER_NUMBER_PATTERN, hasValidCheckDigit } from "./iso6346.ts";

/** `container`, `bill_of_lading` or `booking` (docs/api.md §Infer number; note `booking`, not `booking_number`). */
export type NumberType = "container" | "bill_of_lading" | "booking";

/** The `validation` object of an infer-number result (docs/api.md §Infer number). */
export interface NumberValidation {
  /** true valid, false invalid, null unknown (bookings have no checkable format). */
  isValid: boolean | null;
  /** `container` for container numbers, `shipment` for BL and booking numbers. */
  type: "container" | "shipment";
  /** ISO 6346 check digit result for containers; null for other number types. */
  checkDigitPassed: boolean | null;
  /** Why the number is invalid; null when it is not. */
  reason: string | null;
}

/** A classified number. */
export interface Classification {
  /** Trimmed, upper-cased, spaces and dashes removed. */
  normalized: string;
  numberType: NumberType;
  validation: NumberValidation;
  /** Container numbers: the owner prefix (owner code + category letter, e.g. `MSKU`); else null. */
  ownerPrefix: string | null;
  /**
   * Bills of lading: the BL prefix or SCAC the number starts with and the SCACs (each line's own SCAC) of the
   * lines that use it; else null.
   */
  blPrefix: { prefix: string; scacs: readonly string[] } | null;
}

/** Longest input accepted after normalisation (docs/decisions.md §Infer number). */
export const MAX_NUMBER_LENGTH = 40;
/** Characters that must follow a BL prefix or SCAC (docs/decisions.md §Infer number). */
export const MIN_BL_SUFFIX = 6;

/** Thrown for garbage input: the route answers 422 `This reference number is not valid.` */
export class InvalidReferenceNumber extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = "InvalidReferenceNumber";
  }
}

/**
 * BL prefix table: every line's BL prefixes, own SCAC and alternative SCACs (e.g. `MEDU` → `MSCU`) mapped to
 * the own SCACs of the lines using them (several lines may share one prefix). Built once, at module load; the
 * lists are frozen and shared by every classification that matches them (never copied per call).
 */
const BL_PREFIXES: ReadonlyMap<string, readonly string[]> = (() => {
  const map = new Map<string, string[]>();
  for (const line of allShippingLines()) {
    for (const code of new Set([line.scac, ...line.alternativeScacs, ...line.bolPrefixes])) {
      const key = code.toUpperCase();
      const list = map.get(key) ?? [];
      if (!list.includes(line.scac)) list.push(line.scac);
      map.set(key, list);
    }
  }
  for (const list of map.values()) Object.freeze(list);
  return map;
})();

/** Prefix lengths present in the BL table, longest first (the longest matching prefix wins). */
const BL_PREFIX_LENGTHS: readonly number[] = [...new Set([...BL_PREFIXES.keys()].map((k) => k.length))].sort(
  (a, b) => b - a,
);

/** Normal form: trimmed, upper-cased, spaces (any whitespace) and dashes removed (docs/decisions.md §Infer number). */
export function normalizeNumber(raw: string): string {
  return raw
    .trim()
    .toUpperCase()
    .replace(/[\s-]+/g, "");
}

/**
 * The longest known BL prefix / SCAC / alternative SCAC `normalized` starts with, followed by ≥ 6 alphanumerics.
 * `scacs` is the table's own frozen list (shared, read-only).
 */
export function matchBlPrefix(normalized: string): { prefix: string; scacs: readonly string[] } | null {
  if (!/^[A-Z0-9]+$/.test(normalized)) return null;
  for (const length of BL_PREFIX_LENGTHS) {
    if (normalized.length < length + MIN_BL_SUFFIX) continue;
    const prefix = normalized.slice(0, length);
    const scacs = BL_PREFIXES.get(prefix);
    if (scacs) return { prefix, scacs };
  }
  return null;
}

/**
 * Normalises and classifies a number (docs/decisions.md §Infer number):
 * - garbage (empty after normalisation, longer than 40 characters, or without any letter or digit) throws
 *   {@link InvalidReferenceNumber};
 * - `^[A-Z]{3}[UJZ]\d{7}$` is a container number, valid when its ISO 6346 check digit passes (reason
 *   `Invalid check digit` otherwise);
 * - a known BL prefix or SCAC (or alternative SCAC) followed by ≥ 6 alphanumerics is a bill of lading (valid);
 * - other alphanumerics are a booking number (validity unknown: `is_valid` null); input with other characters
 *   (e.g. `/`) is a booking number that is invalid.
 */
export function classifyNumber(raw: string): Classification {
  const normalized = normalizeNumber(raw);
  if (normalized.length === 0) throw new InvalidReferenceNumber("empty");
  if (normalized.length > MAX_NUMBER_LENGTH) throw new InvalidReferenceNumber("too long");
  if (!/[A-Z0-9]/.test(normalized)) throw new InvalidReferenceNumber("no letter or digit");

  if (CONTAINER_NUMBER_PATTERN.test(normalized)) {
    const passed = hasValidCheckDigit(normalized);
    return {
      normalized,
      numberType: "container",
      validation: {
        isValid: passed,
        type: "container",
        checkDigitPassed: passed,
        reason: passed ? null : "Invalid check digit",
      },
      ownerPrefix: normalized.slice(0, 4),
      blPrefix: null,
    };
  }
  const blPrefix = matchBlPrefix(normalized);
  if (blPrefix) {
    return {
      normalized,
      numberType: "bill_of_lading",
      validation: { isValid: true, type: "shipment", checkDigitPassed: null, reason: null },
      ownerPrefix: null,
      blPrefix,
    };
  }
  const alphanumeric = /^[A-Z0-9]+$/.test(normalized);
  return {
    normalized,
    numberType: "booking",
    validation: {
      isValid: alphanumeric ? null : false,
      type: "shipment",
      checkDigitPassed: null,
      reason: alphanumeric ? null : "Contains characters other than letters and digits",
    },
    ownerPrefix: null,
    blPrefix: null,
  };
}
