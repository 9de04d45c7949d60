/**
 * IANA time-zone arithmetic on plain epoch milliseconds, shared by the provider adapters (DCSA, APM Terminals,
 * LBCT, Port of Virginia) and the simulator. Providers often send local wall-clock times without an offset; R §10.1
 * asks for UTC, so these read such a time in the zone of the place it belongs to. Uses only `Intl.DateTimeFormat`
 * (workerd ships the full IANA database); second precision.
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

/**
 * The instant a wall-clock time in `timeZone` names, ms since the epoch. `wallAsUtcMs` is the wall-clock fields
 * read as if UTC (e.g. `Date.UTC(y, mo - 1, d, h, mi)`). Two passes (offset at the fields read as UTC, then at that
 * first guess), so a time next to a DST change takes the offset in force at that time. A local time a DST change
 * repeats or skips is settled by the zone's side of Greenwich: west of it (the Americas) a repeated hour gives the
 * earlier reading and a skipped time moves back by the gap; east of it the later reading, and forward. Throws
 * RangeError for an unknown zone.
 */
export function wallClockToUtcMs(wallAsUtcMs: number, timeZone: string): number {
  const first = wallAsUtcMs - zoneOffsetMs(wallAsUtcMs, timeZone);
  return wallAsUtcMs - zoneOffsetMs(first, timeZone);
}
