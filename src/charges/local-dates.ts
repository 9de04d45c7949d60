import { wallClockToUtcMs, zoneOffsetMs } from "../lib/time-zones";

/**
 * Local calendar dates (`YYYY-MM-DD`) at a port: a last free day is a date in the port's own time zone (an LFD of
 * 2026-11-20 at USLAX ends at midnight Los Angeles time, 08:00Z), so days are counted on the port's calendar, not UTC's.
 */

const DAY_MS = 86_400_000;
/** Entries a cache of this module keeps before it is emptied (a few years of days at a few hundred zones). */
const MAX_CACHED_DAY_STARTS = 200_000;

const QUARTER_HOUR_MS = 900_000;
const offsets = new Map<string, number>();

/**
 * `zoneOffsetMs`, cached per zone and quarter hour of UTC: a zone's offset changes only at its transitions, and since
 * 1972 every IANA zone's transitions fall on a quarter hour of UTC. `Intl` was most of a portfolio's time
 * (bench/charges).
 */
function cachedOffsetMs(utcMs: number, timeZone: string): number {
  const key = `${timeZone}|${Math.floor(utcMs / QUARTER_HOUR_MS)}`;
  let offset = offsets.get(key);
  if (offset === undefined) {
    if (offsets.size >= MAX_CACHED_DAY_STARTS) offsets.clear();
    offset = zoneOffsetMs(utcMs, timeZone);
    offsets.set(key, offset);
  }
  return offset;
}

/** The local date at `timeZone` of the instant `utcMs` (`YYYY-MM-DD`). @throws RangeError for an unknown zone. */
export function localDateOf(utcMs: number, timeZone: string): string {
  return new Date(utcMs + cachedOffsetMs(utcMs, timeZone)).toISOString().slice(0, 10);
}

const dayStarts = new Map<string, number>();

/**
 * The instant local midnight starts `date` at `timeZone`, ms since the epoch. Cached per zone and date: each costs
 * several `Intl` calls, and a portfolio asks for the same few hundred days of a few zones again and again.
 */
export function startOfLocalDay(date: string, timeZone: string): number {
  const key = `${timeZone}|${date}`;
  let start = dayStarts.get(key);
  if (start === undefined) {
    if (dayStarts.size >= MAX_CACHED_DAY_STARTS) dayStarts.clear();
    start = wallClockToUtcMs(Date.parse(`${date}T00:00:00Z`), timeZone);
    dayStarts.set(key, start);
  }
  return start;
}

const movedDates = new Map<string, string>();

/**
 * `date` moved by `days` calendar days (negative goes back). Cached: ledgers step through the same days one at a
 * time, and parsing and formatting a `Date` per step was most of a portfolio's time (bench/charges).
 */
export function addDays(date: string, days: number): string {
  const key = `${date}|${days}`;
  let moved = movedDates.get(key);
  if (moved === undefined) {
    if (movedDates.size >= MAX_CACHED_DAY_STARTS) movedDates.clear();
    moved = new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
    movedDates.set(key, moved);
  }
  return moved;
}

/** Whole calendar days from `from` to `to` (positive when `to` is later). */
export function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS);
}

/** ISO weekday of a date: 1 Monday … 7 Sunday. */
export function isoWeekday(date: string): number {
  let weekday = weekdays.get(date);
  if (weekday === undefined) {
    if (weekdays.size >= MAX_CACHED_DAY_STARTS) weekdays.clear();
    const day = new Date(`${date}T00:00:00Z`).getUTCDay();
    weekday = day === 0 ? 7 : day;
    weekdays.set(date, weekday);
  }
  return weekday;
}
const weekdays = new Map<string, number>();

/** True for a `YYYY-MM-DD` string naming a real calendar date. */
export function isLocalDate(value: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const ms = Date.parse(`${value}T00:00:00Z`);
  return Number.isFinite(ms) && new Date(ms).toISOString().slice(0, 10) === value;
}
