import { wallClockToUtcMs, zoneOffsetMs } from "../lib/time-zones";

/**
 * Local calendar dates (`YYYY-MM-DD`) at a port: a last free day is a date in the port's own time zone (an LFD of
 * 2026-11-20 at USLAX ends at midnight Los Angeles time, 08:00Z), so days are counted on the port's calendar, not UTC's.
 */

const DAY_MS = 86_400_000;

/** The local date at `timeZone` of the instant `utcMs` (`YYYY-MM-DD`). @throws RangeError for an unknown zone. */
export function localDateOf(utcMs: number, timeZone: string): string {
  return new Date(utcMs + zoneOffsetMs(utcMs, timeZone)).toISOString().slice(0, 10);
}

/** The instant local midnight starts `date` at `timeZone`, ms since the epoch. */
export function startOfLocalDay(date: string, timeZone: string): number {
  return wallClockToUtcMs(Date.parse(`${date}T00:00:00Z`), timeZone);
}

/** `date` moved by `days` calendar days (negative goes back). */
export function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
}

/** Whole calendar days from `from` to `to` (positive when `to` is later). */
export function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS);
}

/** ISO weekday of a date: 1 Monday … 7 Sunday. */
export function isoWeekday(date: string): number {
  const day = new Date(`${date}T00:00:00Z`).getUTCDay();
  return day === 0 ? 7 : day;
}

/** True for a `YYYY-MM-DD` string naming a real calendar date. */
export function isLocalDate(value: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const ms = Date.parse(`${value}T00:00:00Z`);
  return Number.isFinite(ms) && new Date(ms).toISOString().slice(0, 10) === value;
}
