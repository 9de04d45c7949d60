import { describe, expect, it } from "vitest";
import {
  CONTAINER_NUMBER_PATTERN,
  computeCheckDigit,
  hasValidCheckDigit,
  withCheckDigit,
} from "../../src/infer/iso6346";
import { REAL_CONTAINER_NUMBERS } from "../fixtures/real-container-numbers";

// Normalisation (spaces, lower case, dashes) belongs to the infer normaliser, which is tested with it; these tests
// only cover the check digit functions on already-normal input.

/** ISO 6346 Annex A letter values, written out by hand (A=10, multiples of 11 skipped). */
const ANNEX_A: Record<string, number> = {
  A: 10,
  B: 12,
  C: 13,
  D: 14,
  E: 15,
  F: 16,
  G: 17,
  H: 18,
  I: 19,
  J: 20,
  K: 21,
  L: 23,
  M: 24,
  N: 25,
  O: 26,
  P: 27,
  Q: 28,
  R: 29,
  S: 30,
  T: 31,
  U: 32,
  V: 34,
  W: 35,
  X: 36,
  Y: 37,
  Z: 38,
};

describe("fixture sanity", () => {
  it("holds every row of real-container-numbers.csv, valid and invalid", () => {
    expect(REAL_CONTAINER_NUMBERS).toHaveLength(73);
    expect(REAL_CONTAINER_NUMBERS.filter((r) => r.validCheckDigit).length).toBe(57);
    expect(REAL_CONTAINER_NUMBERS.filter((r) => !r.validCheckDigit).length).toBe(16);
  });
});

describe("computeCheckDigit on real-container-numbers.csv", () => {
  const withDigit = REAL_CONTAINER_NUMBERS.filter((r) => r.computedCheckDigit !== null);
  it.each(withDigit)(
    "$containerNumber → computed_check_digit $computedCheckDigit",
    ({ containerNumber, computedCheckDigit }) => {
      // The one printed form with spaces is reduced to its characters only to get at the first ten.
      const first10 = containerNumber.replaceAll(" ", "").slice(0, 10);
      expect(computeCheckDigit(first10)).toBe(computedCheckDigit);
    },
  );
});

describe("hasValidCheckDigit on real-container-numbers.csv", () => {
  const normalForm = REAL_CONTAINER_NUMBERS.filter((r) => r.status !== "valid_after_normalisation");
  it.each(normalForm)("$containerNumber → $validCheckDigit ($status)", ({ containerNumber, validCheckDigit }) => {
    expect(hasValidCheckDigit(containerNumber)).toBe(validCheckDigit);
  });

  it("rejects the spaced printed form as given (normalising is the caller's job)", () => {
    const spaced = REAL_CONTAINER_NUMBERS.filter((r) => r.status === "valid_after_normalisation");
    expect(spaced.map((r) => r.containerNumber)).toEqual(["CSQU 305438 3"]);
    expect(hasValidCheckDigit("CSQU 305438 3")).toBe(false);
    expect(hasValidCheckDigit("CSQU3054383")).toBe(true);
  });
});

describe("withCheckDigit on real-container-numbers.csv", () => {
  const valid = REAL_CONTAINER_NUMBERS.filter((r) => r.validCheckDigit && r.status !== "valid_after_normalisation");
  it.each(valid)("$containerNumber round-trips", ({ containerNumber }) => {
    expect(withCheckDigit(containerNumber.slice(0, 10))).toBe(containerNumber);
  });

  it("repairs every invalid row whose first ten characters are well formed to its computed digit", () => {
    const repairable = REAL_CONTAINER_NUMBERS.filter((r) => !r.validCheckDigit && r.computedCheckDigit !== null);
    expect(repairable.length).toBeGreaterThan(10);
    for (const r of repairable) {
      const fixed = withCheckDigit(r.containerNumber.slice(0, 10));
      expect(fixed).toBe(`${r.containerNumber.slice(0, 10)}${r.computedCheckDigit}`);
      expect(hasValidCheckDigit(fixed)).toBe(true);
    }
  });
});

describe("ISO 6346 arithmetic", () => {
  it("CSQU3054383 is valid (the ISO 6346 / Wikipedia example), worked by hand", () => {
    // C13·1 + S30·2 + Q28·4 + U32·8 + 3·16 + 0·32 + 5·64 + 4·128 + 3·256 + 8·512 = 6185; 6185 mod 11 = 3
    const sum = 13 * 1 + 30 * 2 + 28 * 4 + 32 * 8 + 3 * 16 + 0 * 32 + 5 * 64 + 4 * 128 + 3 * 256 + 8 * 512;
    expect(sum).toBe(6185);
    expect(computeCheckDigit("CSQU305438")).toBe(sum % 11);
    expect(withCheckDigit("CSQU305438")).toBe("CSQU3054383");
    expect(hasValidCheckDigit("CSQU3054383")).toBe(true);
    expect(CONTAINER_NUMBER_PATTERN.test("CSQU3054383")).toBe(true);
  });

  it("uses the Annex A letter values (multiples of 11 skipped)", () => {
    // With serial 000000 only the owner code and category count: 1·v0 + 2·v1 + 4·v2 + 8·v3.
    for (const [letter, value] of Object.entries(ANNEX_A)) {
      const expected = ((value * (1 + 2 + 4) + 32 * 8) /* U */ % 11) % 10;
      expect(computeCheckDigit(`${letter}${letter}${letter}U000000`), letter).toBe(expected);
    }
  });

  it("weights serial digits by 2^position", () => {
    // AAAU: 10 + 20 + 40 + 256 = 326 ≡ 7 (mod 11); a 1 in position 9 adds 512 ≡ 6.
    expect(computeCheckDigit("AAAU000000")).toBe(7);
    expect(computeCheckDigit("AAAU000001")).toBe((326 + 512) % 11);
    expect(computeCheckDigit("AAAU100000")).toBe((326 + 16) % 11);
  });

  it("maps a remainder of 10 to check digit 0", () => {
    // Rows of the CSV whose sum is ≡ 10 (mod 11), and a synthetic one.
    for (const number of ["GYOU4047990", "ARDU1824900", "MRKU9465770", "CSQU3054070"]) {
      expect(computeCheckDigit(number.slice(0, 10))).toBe(0);
      expect(hasValidCheckDigit(number)).toBe(true);
      expect(hasValidCheckDigit(`${number.slice(0, 10)}1`)).toBe(false);
    }
  });

  it("accepts exactly one check digit for any prefix and serial", () => {
    const first10 = "MSKU907032";
    const valid = [..."0123456789"].filter((d) => hasValidCheckDigit(`${first10}${d}`));
    expect(valid).toEqual(["3"]);
  });

  it("computeCheckDigit throws on anything but 4 upper-case letters and 6 digits", () => {
    for (const bad of [
      "",
      "CSQU30543",
      "CSQU3054383",
      "csqu305438",
      "CSQU3054Z8",
      "CSQ305438X",
      "CSQU 05438",
      "ÇSQU305438",
      "CSQU30543٣",
    ]) {
      expect(() => computeCheckDigit(bad), JSON.stringify(bad)).toThrow(/not an ISO 6346/);
    }
  });

  it("hasValidCheckDigit is false (never throws) for malformed input", () => {
    for (const bad of [
      "",
      "CSQU305438",
      "CSQU30543833",
      "csqu3054383",
      "CSQU3054Z83",
      "EISU8332dc1",
      "CSQU-305438-3",
      "CSQU3054383 ",
      "CSQU305438٣",
    ]) {
      expect(hasValidCheckDigit(bad), JSON.stringify(bad)).toBe(false);
    }
  });

  it("checks the digit but not the category letter (the pattern does that)", () => {
    // TEST1000001: category T is not U/J/Z; its digit is wrong too (computed 5).
    expect(computeCheckDigit("TEST100000")).toBe(5);
    expect(hasValidCheckDigit("TEST1000005")).toBe(true);
    expect(CONTAINER_NUMBER_PATTERN.test("TEST1000005")).toBe(false);
    expect(CONTAINER_NUMBER_PATTERN.test("CSQJ3054383")).toBe(true);
    expect(CONTAINER_NUMBER_PATTERN.test("CSQZ3054383")).toBe(true);
  });
});
