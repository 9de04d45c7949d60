/**
 * Money as exact integers of a currency's minor unit (cents for USD, none for JPY): tariffs carry decimal strings
 * (`"150.00"`), every sum is an integer of minor units, and the wire gets a decimal string again, so no amount ever
 * passes through a binary float (ISO 4217; the minor-unit digits are the ones `Intl.NumberFormat` knows, which follow
 * ISO 4217's table in CLDR).
 */

const digitsCache = new Map<string, number>();
let knownCurrencies: Set<string> | null = null;

/** True when `code` is an ISO 4217 currency code `Intl` knows (upper-case, three letters). */
export function isCurrencyCode(code: string): boolean {
  if (!/^[A-Z]{3}$/.test(code)) return false;
  knownCurrencies ??= new Set(Intl.supportedValuesOf("currency"));
  return knownCurrencies.has(code);
}

/**
 * The digits of `currencyCode`'s minor unit (USD 2, JPY 0, KWD 3).
 * @throws RangeError for a code that is not an ISO 4217 currency.
 */
export function minorDigits(currencyCode: string): number {
  let digits = digitsCache.get(currencyCode);
  if (digits === undefined) {
    if (!isCurrencyCode(currencyCode)) throw new RangeError(`Unknown currency ${currencyCode}`);
    digits =
      new Intl.NumberFormat("en", { style: "currency", currency: currencyCode }).resolvedOptions()
        .maximumFractionDigits ?? 2;
    digitsCache.set(currencyCode, digits);
  }
  return digits;
}

/**
 * A non-negative decimal string (`"150"`, `"150.5"`, `"150.50"`) as an integer of `currencyCode`'s minor units, or null
 * when it is not such a decimal or has more decimals than the currency's minor unit (`"1.234"` in USD).
 */
export function toMinorUnits(amount: string, currencyCode: string): number | null {
  const digits = minorDigits(currencyCode);
  const match = /^(\d{1,12})(?:\.(\d+))?$/.exec(amount);
  if (!match) return null;
  const fraction = match[2] ?? "";
  if (fraction.length > digits) return null;
  return Number(match[1]) * 10 ** digits + Number(fraction.padEnd(digits, "0") || "0");
}

/** An integer of `currencyCode`'s minor units as a decimal string with exactly its minor digits (`15000` → `"150.00"`). */
export function formatMinorUnits(minor: number, currencyCode: string): string {
  const digits = minorDigits(currencyCode);
  const sign = minor < 0 ? "-" : "";
  const abs = Math.abs(minor);
  if (digits === 0) return `${sign}${abs}`;
  const unit = 10 ** digits;
  return `${sign}${Math.floor(abs / unit)}.${String(abs % unit).padStart(digits, "0")}`;
}
