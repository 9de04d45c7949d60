/**
 * IANA time-zone arithmetic on plain epoch milliseconds, shared by the providers' timestamps (DCSA, APM Terminals,
 * LBCT, Port of Virginia: src/tracking/sources/timestamps.ts) and the simulator. Providers often send local
 * wall-clock times without an offset; docs/api.md §Timestamps and time zones asks for UTC, so these read such a time in
 * the zone of the place it belongs to. Uses only `Intl.DateTimeFormat` (workerd ships the full IANA database); second
 * precision.
 */

const zoneFormatters = new Map<string, Intl.DateTimeFormat>();

function zoneFormatter(timeZone: string): Intl.DateTimeFormat {
  let format = zoneFormatters.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
    });
    zoneFormatters.set(timeZone, format);
  }
  return format;
}

/**
 * Offset of `timeZone` from UTC at the instant `utcMs`, in ms (local minus UTC: negative west of Greenwich;
 * whole seconds). Throws RangeError for a zone name `Intl` does not know.
 */
export function zoneOffsetMs(utcMs: number, timeZone: string): number {
  const parts: Record<string, number> = {};
  for (const p of zoneFormatter(timeZone).formatToParts(utcMs)) parts[p.type] = Number(p.value);
  const local = Date.UTC(
    parts.year ?? 1970,
    (parts.month ?? 1) - 1,
    parts.day ?? 1,
    parts.hour ?? 0,
    parts.minute ?? 0,
    parts.second ?? 0,
  );
  return local - Math.floor(utcMs / 1000) * 1000;
}

const DAY_MS = 86_400_000;

/**
 * The instant a wall-clock time in `timeZone` names, ms since the epoch. `wallAsUtcMs` is the wall-clock fields
 * read as if UTC (e.g. `Date.UTC(y, mo - 1, d, h, mi)`).
 *
 * A local time a DST change skips or repeats is settled by the usual rule, the same on either side of Greenwich:
 * - skipped (spring forward, e.g. 2026-03-08 02:30 in Los Angeles): moved forward by the gap's length, i.e. read with
 *   the offset in force before the change (→ 03:30 PDT = 10:30Z);
 * - repeated (fall back, e.g. 2025-11-02 01:30 in New York): the earlier of the two readings (→ 01:30 EDT = 05:30Z).
 * Source: RFC 5545 §3.3.5 (a nonexistent local time "is interpreted using the UTC offset before the gap"; an
 * ambiguous one "refers to the first occurrence"), which is also TC39 Temporal's `disambiguation: "compatible"` and
 * java.time's `ZonedDateTime.of`. Assumes at most one offset change within a day either side of the time (true of
 * every IANA zone). Throws RangeError for an unknown zone.
 */
export function wallClockToUtcMs(wallAsUtcMs: number, timeZone: string): number {
  const offsetBefore = zoneOffsetMs(wallAsUtcMs - DAY_MS, timeZone);
  const offsetAfter = zoneOffsetMs(wallAsUtcMs + DAY_MS, timeZone);
  // Readings whose offset is the zone's offset at that instant: two in a repeated hour, none in a skipped one.
  const readings = [wallAsUtcMs - offsetBefore, wallAsUtcMs - offsetAfter].filter(
    (instant) => wallAsUtcMs - zoneOffsetMs(instant, timeZone) === instant,
  );
  if (readings.length > 0) return Math.min(...readings);
  return wallAsUtcMs - offsetBefore;
}

/** A UTC instant read on the wall clock of a place: its local date and time, the zone's abbreviation and name. */
export interface LocalTime {
  /** Local date, `YYYY-MM-DD`. */
  date: string;
  /** Local time, `HH:MM` (24-hour). */
  time: string;
  /**
   * The zone's abbreviation at that instant as CLDR names it in English (`PDT`, `EST`, `CET`), or its UTC offset
   * where CLDR has no abbreviation (`GMT+8` for Asia/Shanghai, `GMT` for UTC).
   */
  abbreviation: string;
  /** The IANA zone name, e.g. `America/Los_Angeles`. */
  timeZone: string;
}

const labelFormatters = new Map<string, Intl.DateTimeFormat>();

/**
 * `utcIso` (ISO 8601 with an offset, e.g. `2026-03-08T22:05:00Z`) on the wall clock of the IANA zone `timeZone`, for
 * showing an event in the local time of its place with the zone named (issue 28: "milestones as a timeline in local
 * times with their time zones"). Null when the time does not parse or `Intl` does not know the zone.
 */
export function localTimeIn(utcIso: string, timeZone: string): LocalTime | null {
  const ms = Date.parse(utcIso);
  if (Number.isNaN(ms)) return null;
  let format = labelFormatters.get(timeZone);
  try {
    if (!format) {
      format = new Intl.DateTimeFormat("en-US", {
        timeZone,
        hourCycle: "h23",
        year: "numeric",
        month: "2-digit",
        day: "2-digit",
        hour: "2-digit",
        minute: "2-digit",
        timeZoneName: "short",
      });
      labelFormatters.set(timeZone, format);
    }
  } catch {
    return null;
  }
  const parts: Record<string, string> = {};
  for (const p of format.formatToParts(ms)) parts[p.type] = p.value;
  return {
    date: `${parts.year}-${parts.month}-${parts.day}`,
    time: `${parts.hour}:${parts.minute}`,
    abbreviation: parts.timeZoneName ?? "",
    timeZone,
  };
}
