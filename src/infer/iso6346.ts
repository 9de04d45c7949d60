/**
 * ISO 6346 container numbers: 3-letter owner code (BIC), category letter (U freight, J detachable
 * equipment, Z trailer/chassis), 6-digit serial, 1 check digit. Pure functions, no allocation of tables per
 * call.
 */

/** Letter values of ISO 6346 Annex A: A=10 and up, skipping multiples of 11 (11, 22, 33). */
const LETTER_VALUES: Record<string, number> = (() => {
  const values: Record<string, number> = {};
  let v = 10;
  for (const ch of "ABCDEFGHIJKLMNOPQRSTUVWXYZ") {
    if (v % 11 === 0) v++;
    values[ch] = v;
    v++;
  }
  return values;
})();

/** Container number shape after normalisation: `^[A-Z]{3}[UJZ]\d{7}$` (docs/decisions.md §Infer number). */
export const CONTAINER_NUMBER_PATTERN = /^[A-Z]{3}[UJZ]\d{7}$/;

/**
 * The check digit of the first 10 characters (owner code, category, serial) per ISO 6346: each character's
 * value times 2^position, summed, mod 11, with 10 mapping to 0.
 * @throws Error when `first10` is not 4 letters followed by 6 digits.
 */
export function computeCheckDigit(first10: string): number {
  if (!/^[A-Z]{4}\d{6}$/.test(first10)) throw new Error(`not an ISO 6346 prefix and serial: ${first10}`);
  let sum = 0;
  for (let i = 0; i < 10; i++) {
    const ch = first10.charAt(i);
    const value = i < 4 ? (LETTER_VALUES[ch] ?? 0) : ch.charCodeAt(0) - 48;
    sum += value * 2 ** i;
  }
  return (sum % 11) % 10;
}

/** Whether an 11-character container number's last digit is its ISO 6346 check digit. */
export function hasValidCheckDigit(number: string): boolean {
  if (!/^[A-Z]{4}\d{7}$/.test(number)) return false;
  return computeCheckDigit(number.slice(0, 10)) === number.charCodeAt(10) - 48;
}

/** Appends the check digit: `withCheckDigit("CSQU305438")` → `"CSQU3054383"`. */
export function withCheckDigit(first10: string): string {
  return `${first10}${computeCheckDigit(first10)}`;
}
