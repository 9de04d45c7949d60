import type { HolidayCalendar } from "./holidays";
import { addDays, isoWeekday } from "./local-dates";

/**
 * Free time (issue 27 §1; docs/charges.md §Free time). Day 1 of free time is the local day after the day the clock
 * starts (the field's usual "free time begins the day after discharge"); the day the clock starts is never charged.
 * With `calendar` days every day counts; with `business` days Saturdays, Sundays and public holidays of the port's
 * calendar do not. A day the box could not be picked up (`blockedReason` answers) does not count either: the clock
 * stops. The last free day (LFD) is the day the `freeDays`-th counted day falls on.
 */

/** Why a day before or at the LFD is what it is. */
export interface FreeDayNote {
  date: string;
  /** `free` (counted or not) or `not_chargeable` (the box could not be picked up). */
  state: "free" | "not_chargeable";
  reason: string;
}

/** What {@link freeTimeEndOf} needs. */
export interface FreeTimeInput {
  /** Local date (port time zone) on which the clock started. */
  clockStartDate: string;
  freeDays: number;
  basis: "calendar" | "business";
  holidays: HolidayCalendar;
  /** Why the box could not be picked up on a local date, or null when it could. */
  blockedReason: (date: string) => string | null;
}

/** Longest run of days searched for the end of free time (a box blocked longer has no LFD yet). */
const MAX_SEARCH_DAYS = 3660;

/**
 * The last free day (a local date) and a note for each day from the clock's start day to it.
 * @returns `lastFreeDay` null when more than ten years of blocked days pass first (never in practice).
 */
export function freeTimeEndOf(input: FreeTimeInput): { lastFreeDay: string | null; days: FreeDayNote[] } {
  const days: FreeDayNote[] = [];
  const startBlocked = input.blockedReason(input.clockStartDate);
  days.push({
    date: input.clockStartDate,
    state: startBlocked ? "not_chargeable" : "free",
    reason: startBlocked ? `${startBlocked}; the clock starts this day` : "the clock starts this day (not counted)",
  });
  let counted = 0;
  let date = input.clockStartDate;
  for (let i = 0; counted < input.freeDays; i++) {
    if (i >= MAX_SEARCH_DAYS) return { lastFreeDay: null, days };
    date = addDays(date, 1);
    const blocked = input.blockedReason(date);
    if (blocked) {
      days.push({ date, state: "not_chargeable", reason: `${blocked}; free time stopped` });
      continue;
    }
    if (input.basis === "business") {
      const weekday = isoWeekday(date);
      if (weekday >= 6) {
        days.push({ date, state: "free", reason: `${weekday === 6 ? "Saturday" : "Sunday"}: not a business day` });
        continue;
      }
      const holiday = input.holidays(date);
      if (holiday) {
        days.push({ date, state: "free", reason: `public holiday (${holiday}): not a business day` });
        continue;
      }
    }
    counted++;
    days.push({ date, state: "free", reason: `free day ${counted} of ${input.freeDays}` });
  }
  return { lastFreeDay: date, days };
}
