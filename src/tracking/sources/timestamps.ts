/**
 * Reading the timestamps upstream providers send, shared by the carrier source (DCSA) and the terminal operators'
 * adapters (APM Terminals, LBCT, Port of Virginia). No I/O.
 *
 * Providers write times three ways: with a UTC offset (exact), as the local wall clock of the place the event
 * happens (TNT 2.2 `eventDateTime` "is the local date and time"; Port of Virginia and APMT `…Local` fields), or as a
 * bare date (a last free day). docs/api.md §Timestamps and time zones asks for UTC, so a time without an offset is read
 * in the IANA zone of the place it belongs to (src/lib/time-zones.ts), and a last free day becomes local midnight of
 * its date at the terminal. Reading is in two steps: parse the text into a {@link WallClock} (what is written), then
 * place it in time ({@link instantMs}, {@link lastFreeDayMs}).
 */
import { toIsoSeconds } from "../../lib/clock";
import { wallClockToUtcMs, zoneOffsetMs } from "../../lib/time-zones";

/** A timestamp as written, before it is placed in time. */
export interface WallClock {
  /** The written date and time read as if they were UTC, ms since the epoch (millisecond fractions kept). */
  fieldsMs: number;
  /** The UTC offset the text states, minutes east of UTC (`Z` is 0), or null when it states none. */
  offsetMinutes: number | null;
  /** Whether the text has a time of day (false for a bare date, whose `fieldsMs` is its midnight). */
  hasTime: boolean;
}

/** A calendar date: year, month (1–12), day. */
export type CalendarDate = readonly [year: number, month: number, day: number];

/**
 * ISO 8601 / RFC 3339 in the forms providers use: `YYYY-MM-DD`, optionally `T` (or `t`, or a space) `hh:mm`,
 * optionally `:ss` and a fraction after `.` or `,`, optionally (after optional blanks) `Z` or `±hh`, `±hhmm`,
 * `±hh:mm`.
 */
const ISO_DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?)?\s*(?:([Zz])|([+-])(\d{2})(?::?(\d{2}))?)?$/;

/** US month-first dates as Navis N4 web services write them: `7/7/2024`, `07/07/2024 10:15`, `07/07/2024 10:15 (A)`. */
const US_DATE_TIME = /^(\d{1,2})\/(\d{1,2})\/(\d{4})(?:\s+(\d{1,2}):(\d{2}))?\s*(?:\((A|E)\w*\)?)?$/i;

/**
 * The fields as if UTC, ms, or null when they name no real date and time (month 13, 30 February, hour 24). A leap
 * second (`:60`, allowed by RFC 3339 §5.6) reads as `:59`.
 */
function fieldsToMs(y: number, mo: number, d: number, h: number, mi: number, s: number, ms: number): number | null {
  if (mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || s > 60) return null;
  const fieldsMs = Date.UTC(y, mo - 1, d, h, mi, Math.min(s, 59), ms);
  const check = new Date(fieldsMs);
  if (check.getUTCFullYear() !== y || check.getUTCMonth() !== mo - 1 || check.getUTCDate() !== d) return null;
  return fieldsMs;
}

/**
 * Parses an ISO 8601 date or date-time as providers write it (see {@link ISO_DATE_TIME}): `2022-02-15T18:16:13.973`,
 * `2024-07-07T10:15:00-04:00`, `2024-07-07 10:15Z`, `2024-06-09`. Surrounding blanks are ignored. An offset must be at
 * most 23:59 (RFC 3339 `time-numoffset`).
 * @returns null for anything else, or for a date or time that does not exist (`2026-02-30`, `24:00`).
 */
export function parseIsoWallClock(text: string): WallClock | null {
  const m = ISO_DATE_TIME.exec(text.trim());
  if (!m) return null;
  const fraction = m[7] ? Math.floor(Number(`0.${m[7]}`) * 1000) : 0;
  const fieldsMs = fieldsToMs(
    Number(m[1]),
    Number(m[2]),
    Number(m[3]),
    Number(m[4] ?? 0),
    Number(m[5] ?? 0),
    Number(m[6] ?? 0),
    fraction,
  );
  if (fieldsMs === null) return null;
  const hasTime = m[4] !== undefined;
  if (m[8]) return { fieldsMs, offsetMinutes: 0, hasTime };
  if (!m[9]) return { fieldsMs, offsetMinutes: null, hasTime };
  const offsetHours = Number(m[10]);
  const offsetMins = Number(m[11] ?? 0);
  if (offsetHours > 23 || offsetMins > 59) return null;
  return { fieldsMs, offsetMinutes: (m[9] === "-" ? -1 : 1) * (offsetHours * 60 + offsetMins), hasTime };
}

/**
 * Parses a US month-first local date or date-time (`07/07/2024`, `7/7/2024 9:05`, `07/07/2024 10:15 (A)`), as LBCT's
 * Cargo Search writes them; `marker` is the `(A)` (actual) or `(E)` (estimated) after the time, if any
 * (`(Actual)`, `(a)` too). These never carry an offset.
 * @returns null for anything else, or for a date or time that does not exist.
 */
export function parseUsWallClock(text: string): { wall: WallClock; marker: "A" | "E" | null } | null {
  const m = US_DATE_TIME.exec(text.trim());
  if (!m) return null;
  const fieldsMs = fieldsToMs(Number(m[3]), Number(m[1]), Number(m[2]), Number(m[4] ?? 0), Number(m[5] ?? 0), 0, 0);
  if (fieldsMs === null) return null;
  const marker = m[6] ? (m[6].toUpperCase() as "A" | "E") : null;
  return { wall: { fieldsMs, offsetMinutes: null, hasTime: m[4] !== undefined }, marker };
}

/**
 * The instant a timestamp names, ms since the epoch: exact when it states an offset; else its wall clock read in
 * `timeZone` (an IANA name: the zone of the port or terminal it belongs to; a DST gap or overlap is settled as
 * src/lib/time-zones.ts `wallClockToUtcMs` says); else, with no zone known or a zone `Intl` does not know, its wall
 * clock as if UTC (docs/api.md §Timestamps and time zones: better an hour off than no time).
 */
export function instantMs(wall: WallClock, timeZone: string | null): number {
  if (wall.offsetMinutes !== null) return wall.fieldsMs - wall.offsetMinutes * 60_000;
  if (!timeZone) return wall.fieldsMs;
  try {
    return wallClockToUtcMs(wall.fieldsMs, timeZone);
  } catch {
    return wall.fieldsMs;
  }
}

/**
 * The calendar date a timestamp names at a place: for a date-time with an offset and a known `timeZone`, the date of
 * that instant in the zone (`2023-06-09T23:59:00-07:00` is 9 June in Los Angeles, 10 June in New York); otherwise the
 * date as written (a bare date names its own date, whatever offset follows it).
 */
export function localDateOf(wall: WallClock, timeZone: string | null): CalendarDate {
  let dateMs = wall.fieldsMs;
  if (wall.hasTime && wall.offsetMinutes !== null && timeZone) {
    const instant = wall.fieldsMs - wall.offsetMinutes * 60_000;
    dateMs = instant + zoneOffsetMs(instant, timeZone);
  }
  const day = new Date(dateMs);
  return [day.getUTCFullYear(), day.getUTCMonth() + 1, day.getUTCDate()];
}

/**
 * Local midnight of `date` in `timeZone`, ms since the epoch (docs/api.md §Timestamps and time zones: how a last free
 * day is served: `2024-07-07T04:00:00Z` for 7 July in America/New_York). Throws RangeError for a zone `Intl` does not
 * know.
 */
export function localMidnightMs(date: CalendarDate, timeZone: string): number {
  return wallClockToUtcMs(Date.UTC(date[0], date[1] - 1, date[2]), timeZone);
}

/** {@link localMidnightMs} as UTC ISO 8601 at second precision (`2024-07-07T04:00:00Z`), as LFDs are served. */
export function localMidnightIso(date: CalendarDate, timeZone: string): string {
  return toIsoSeconds(localMidnightMs(date, timeZone));
}

/**
 * A last free day as the instant it is served at (docs/api.md §Timestamps and time zones): local midnight, at the
 * terminal, of the date the timestamp names there ({@link localDateOf}). Without a known zone: midnight at the offset
 * the text states, else midnight as if UTC.
 */
export function lastFreeDayMs(wall: WallClock, timeZone: string | null): number {
  const date = localDateOf(wall, timeZone);
  if (timeZone) return localMidnightMs(date, timeZone);
  const midnight = Date.UTC(date[0], date[1] - 1, date[2]);
  return wall.offsetMinutes !== null ? midnight - wall.offsetMinutes * 60_000 : midnight;
}
