import { isCurrencyCode, minorDigits } from "../charges/money";
import { localTimeIn } from "../lib/time-zones";
import { findPortByLocode } from "../reference/locations";

/**
 * Text forms of the container page's values (src/dashboard/container-page.tsx): times on the wall clock of their
 * place with the zone named, statuses and yes/no in words. Pure.
 */

/** The zone used when a place's zone is unknown. */
const FALLBACK_ZONE = "UTC";

/**
 * The IANA zone of a place: the zone recorded with the event (`timezone`, written by tracking from the port or
 * terminal), else the zone of the UN/LOCODE's port in the reference data, else UTC.
 */
export function zoneOfPlace(recorded: string | null | undefined, locode: string | null | undefined): string {
  return recorded || findPortByLocode(locode)?.timeZone || FALLBACK_ZONE;
}

/**
 * `utcIso` as `YYYY-MM-DD HH:MM <abbreviation> (<IANA zone>)` in `timeZone`, e.g.
 * `2026-03-08 14:05 PDT (America/Los_Angeles)` (`2026-03-08 22:05 UTC` in UTC); the UTC text itself when it does not
 * parse; `—` for null.
 */
export function formatInstant(utcIso: string | null | undefined, timeZone: string): string {
  if (!utcIso) return "—";
  const local = localTimeIn(utcIso, timeZone) ?? localTimeIn(utcIso, FALLBACK_ZONE);
  if (!local) return utcIso;
  const zone = local.abbreviation === local.timeZone ? "" : ` (${local.timeZone})`;
  return `${local.date} ${local.time} ${local.abbreviation}${zone}`;
}

/**
 * A last free day (`pickup_lfd`, an instant at the start of the local day at the POD) as the POD's local date with the
 * zone named: `2026-12-03 (America/Los_Angeles, PST)`; `—` for null.
 */
export function formatLocalDate(utcIso: string | null | undefined, timeZone: string): string {
  if (!utcIso) return "—";
  const local = localTimeIn(utcIso, timeZone) ?? localTimeIn(utcIso, FALLBACK_ZONE);
  if (!local) return utcIso;
  return `${local.date} (${local.timeZone}, ${local.abbreviation})`;
}

/** A `current_status` value in words: `not_available` → `Not available`. */
export function statusLabel(status: string): string {
  const words = status.replace(/_/g, " ");
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** `available_for_pickup` in words; `Unknown` while the terminal has not said (`availability_known` false or null). */
export function availabilityLabel(available: boolean | null, known: boolean): string {
  if (!known || available === null) return "Unknown";
  return available ? "Yes" : "No";
}

/**
 * A money amount with its ISO 4217 currency, in the currency's minor digits (`minorDigits`, src/charges/money.ts):
 * `USD 225.50`, `JPY 1200` (2 digits for a code that is not ISO 4217). A decimal string (the charges' amounts, already in minor digits) is shown as is.
 */
export function formatMoney(amount: number | string, currencyCode: string): string {
  if (typeof amount === "string") return `${currencyCode} ${amount}`;
  return `${currencyCode} ${Number.isFinite(amount) ? amount.toFixed(isCurrencyCode(currencyCode) ? minorDigits(currencyCode) : 2) : String(amount)}`;
}
