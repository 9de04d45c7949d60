// The inputs of bench/infer: a deterministic mix of the numbers `POST /tracking_requests/infer_number` sees, built
// from the compiled reference data (so every container number uses a real owner prefix and every BL a real BL
// prefix or SCAC). Same seed → same numbers, in the same order, on every machine.

import { withCheckDigit } from "../../src/infer/iso6346.ts";
import { CONTAINER_PREFIXES } from "../../src/reference/generated/container-prefixes.ts";
import { SHIPPING_LINES } from "../../src/reference/generated/shipping-lines.ts";

/** Share of each kind of input, in percent (sums to 100). */
export const MIX = {
  /** ISO 6346 container numbers with a real owner prefix and a correct check digit. */
  container_valid: 35,
  /** The same with a wrong check digit (`check_digit_passed: false`, still predicted). */
  container_bad_check_digit: 10,
  /** A real BL prefix / SCAC / alternative SCAC followed by 6–12 alphanumerics. */
  bill_of_lading: 25,
  /** Bare digits or alphanumerics no BL prefix matches. */
  booking: 20,
  /** 422 input: empty, punctuation only, or over 40 characters; plus bookings with a `/` (invalid, not 422). */
  garbage: 10,
};

/** mulberry32: a small, fast, well-distributed 32-bit PRNG; returns floats in [0, 1). */
export function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const DIGITS = "0123456789";
const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

/**
 * `count` raw numbers in a deterministic order, with how many of each kind. About a quarter of the container and
 * BL numbers come in the forms users type (lower case, spaces, dashes), so normalisation is exercised too.
 * @param {number} count
 * @param {number} seed
 */
export function generateNumbers(count, seed) {
  const rand = prng(seed);
  const pick = (list) => list[Math.floor(rand() * list.length)];
  const chars = (alphabet, n) => {
    let s = "";
    for (let i = 0; i < n; i++) s += alphabet[Math.floor(rand() * alphabet.length)];
    return s;
  };
  const typed = (s) => {
    const r = rand();
    if (r < 0.1) return s.toLowerCase();
    if (r < 0.18) return `${s.slice(0, 4)} ${s.slice(4, 10)} ${s.slice(10)}`;
    if (r < 0.25) return ` ${s.slice(0, 4)}-${s.slice(4)} `;
    return s;
  };
  const ownerPrefixes = CONTAINER_PREFIXES.map((p) => p.prefix);
  const blPrefixes = [
    ...new Set(SHIPPING_LINES.flatMap((l) => [l.scac, ...l.alternativeScacs, ...l.bolPrefixes])),
  ].filter((p) => /^[A-Z0-9]+$/.test(p));
  const garbage = ["", "   ", "--", "!!!", "#/#", "A".repeat(41), "1".repeat(45), "---- ----"];

  const kinds = Object.entries(MIX);
  const numbers = new Array(count);
  const counts = Object.fromEntries(kinds.map(([k]) => [k, 0]));
  for (let i = 0; i < count; i++) {
    let roll = rand() * 100;
    let kind = kinds[kinds.length - 1][0];
    for (const [k, share] of kinds) {
      if (roll < share) {
        kind = k;
        break;
      }
      roll -= share;
    }
    counts[kind]++;
    let raw;
    switch (kind) {
      case "container_valid":
        raw = typed(withCheckDigit(`${pick(ownerPrefixes)}${chars(DIGITS, 6)}`));
        break;
      case "container_bad_check_digit": {
        const good = withCheckDigit(`${pick(ownerPrefixes)}${chars(DIGITS, 6)}`);
        const wrong = (Number(good[10]) + 1 + Math.floor(rand() * 9)) % 10;
        raw = typed(`${good.slice(0, 10)}${wrong}`);
        break;
      }
      case "bill_of_lading":
        raw = typed(`${pick(blPrefixes)}${chars(ALNUM, 6 + Math.floor(rand() * 7))}`);
        break;
      case "booking":
        raw = rand() < 0.6 ? chars(DIGITS, 8 + Math.floor(rand() * 5)) : `${chars(DIGITS, 2)}${chars(ALNUM, 8)}`;
        break;
      default:
        raw = rand() < 0.7 ? pick(garbage) : `${chars(DIGITS, 6)}/${chars(DIGITS, 3)}`;
    }
    numbers[i] = raw;
  }
  return { numbers, counts };
}
