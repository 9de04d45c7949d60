/**
 * Retention configuration (docs/configuration.md §Retention), read from the Worker's vars with safe defaults: a value
 * that is missing, empty or out of range falls back to its default, so a typo never archives everything at once.
 */
export interface ArchiveConfig {
  /**
   * Days after which rows move to R2: after the shipment's tracking stopped (`line_tracking_stopped_at`, for its
   * containers' raw events) or after a notification finished (`updated_at` of a `succeeded` / `failed` one).
   */
  afterDays: number;
  /** Most rows archived per cron run, per shard and per kind (raw events; notifications). */
  rowsPerRun: number;
}

/** Defaults: 90 days (issue 29 §2: "on the order of 90 days after tracking stops"), 500 rows a run. */
export const DEFAULT_ARCHIVE_CONFIG: ArchiveConfig = { afterDays: 90, rowsPerRun: 500 };

/** Largest accepted `ARCHIVE_ROWS_PER_RUN`: one object's NDJSON and one run's work stay small. */
export const MAX_ROWS_PER_RUN = 5000;

/** A whole number in [min, max] from a var, else `fallback`. */
function intVar(value: string | undefined, min: number, max: number, fallback: number): number {
  if (value === undefined || !/^\s*\d+\s*$/.test(value)) return fallback;
  const n = Number(value);
  return Number.isSafeInteger(n) && n >= min && n <= max ? n : fallback;
}

/**
 * The retention settings of `env`: `ARCHIVE_AFTER_DAYS` (whole days ≥ 1, at most 36 500) and `ARCHIVE_ROWS_PER_RUN`
 * (1 … {@link MAX_ROWS_PER_RUN}); anything else gives the default of {@link DEFAULT_ARCHIVE_CONFIG}.
 */
export function archiveConfigOf(env: { ARCHIVE_AFTER_DAYS?: string; ARCHIVE_ROWS_PER_RUN?: string }): ArchiveConfig {
  return {
    afterDays: intVar(env.ARCHIVE_AFTER_DAYS, 1, 36_500, DEFAULT_ARCHIVE_CONFIG.afterDays),
    rowsPerRun: intVar(env.ARCHIVE_ROWS_PER_RUN, 1, MAX_ROWS_PER_RUN, DEFAULT_ARCHIVE_CONFIG.rowsPerRun),
  };
}
