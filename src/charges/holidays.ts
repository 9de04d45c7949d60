import Holidays from "date-holidays";

/**
 * Public holidays of a port's country and subdivision, from the maintained `date-holidays` package (data under
 * CC BY-SA 3.0, from Wikipedia; see its data/countries/*.yaml). Only whole-day holidays of type `public` count: the
 * package's half-day or group holidays (China's Women's Day from 12:00, for women only) are not days the terminal
 * closes. Not modelled: China's make-up working weekends (调休), which the package does not list.
 */
export type HolidayCalendar = (date: string) => string | null;

const calendars = new Map<string, HolidayCalendar>();

/**
 * The holiday calendar of `countryCode` (ISO 3166-1 alpha-2, the first two letters of a UN/LOCODE) and optional
 * `subdivision` (ISO 3166-2 suffix, e.g. `CA` for California): a function from a local date (`YYYY-MM-DD`) to the
 * holiday's English name, or null on a working day. Years are computed on first use and cached. A country the package
 * does not know has no holidays (only weekends then separate business days).
 */
export function holidayCalendarOf(countryCode: string, subdivision?: string | null): HolidayCalendar {
  const key = `${countryCode}|${subdivision ?? ""}`;
  const cached = calendars.get(key);
  if (cached) return cached;
  let hd: Holidays | null = null;
  const opts = { types: ["public" as const], languages: ["en"] };
  try {
    const known = subdivision ? new Holidays().getStates(countryCode, "en")?.[subdivision] : undefined;
    hd = known && subdivision ? new Holidays(countryCode, subdivision, opts) : new Holidays(countryCode, opts);
  } catch {
    hd = null;
  }
  const years = new Map<number, Map<string, string>>();
  const calendar: HolidayCalendar = (date) => {
    if (!hd) return null;
    const year = Number(date.slice(0, 4));
    let days = years.get(year);
    if (!days) {
      days = new Map();
      for (const h of hd.getHolidays(year) || []) {
        if (h.type !== "public" || !h.date.endsWith(" 00:00:00")) continue;
        const day = h.date.slice(0, 10);
        if (!days.has(day)) days.set(day, h.name);
      }
      years.set(year, days);
    }
    return days.get(date) ?? null;
  };
  calendars.set(key, calendar);
  return calendar;
}
