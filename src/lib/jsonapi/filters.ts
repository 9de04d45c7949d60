import { ApiError } from "../errors";

/**
 * Raw values of a list's filter parameters by name, as decoded from a query string (`filter[updated_at][start]` →
 * `2025-06-01`): what a route reads from its request (`Object.fromEntries(queryParams(c))`) or an MCP tool sets from
 * its arguments. A missing, null or empty value means the filter is not given.
 */
export type FilterValues<K extends string> = Readonly<Partial<Record<K, string | null>>>;

/**
 * Reads an ISO 8601 bound of a range filter such as `filter[updated_at][start]`, normalised to the stored
 * form (UTC, second precision, `Z`) so string comparison in SQL orders correctly.
 * @param raw the parameter's value as decoded; null, undefined or "" when not given.
 * @throws ApiError 400 with `source.parameter` when the value is not a date or date-time.
 */
export function parseTimeBound(raw: string | null | undefined, parameter: string): string | undefined {
  if (raw === null || raw === undefined || raw === "") return undefined;
  if (raw.length > 40 || !/^\d{4}-\d{2}-\d{2}([T ][0-9:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(raw.trim())) {
    throw ApiError.badParameter(parameter, `${parameter} must be an ISO 8601 date or date-time.`);
  }
  const ms = Date.parse(raw.trim());
  // Date.parse rolls impossible days over (2024-02-30 → March 1st); such a value is invalid, not a bound.
  const [y, m, d] = raw.trim().slice(0, 10).split("-").map(Number);
  const day = new Date(Date.UTC(y ?? 0, (m ?? 1) - 1, d ?? 1));
  if (Number.isNaN(ms) || day.getUTCMonth() !== (m ?? 0) - 1 || day.getUTCDate() !== d) {
    throw ApiError.badParameter(parameter, `${parameter} must be an ISO 8601 date or date-time.`);
  }
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
}

/**
 * Reads a string filter (`filter[number]`, `filter[scac]` …): trimmed, at most `maxLength` characters.
 * @param raw the parameter's value as decoded; null or undefined when not given.
 * @throws ApiError 400 when longer.
 */
export function parseStringFilter(
  raw: string | null | undefined,
  parameter: string,
  maxLength = 64,
): string | undefined {
  if (raw === null || raw === undefined) return undefined;
  const value = raw.trim();
  if (value === "") return undefined;
  if (value.length > maxLength)
    throw ApiError.badParameter(parameter, `${parameter} must be at most ${maxLength} characters.`);
  return value;
}

/**
 * Reads an enum filter; the value must be one of `allowed`.
 * @throws ApiError 400 naming the allowed values otherwise.
 */
export function parseEnumFilter<T extends string>(
  raw: string | null | undefined,
  parameter: string,
  allowed: readonly T[],
): T | undefined {
  const value = parseStringFilter(raw, parameter);
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value)) {
    throw ApiError.badParameter(parameter, `${parameter} must be one of: ${allowed.join(", ")}.`);
  }
  return value as T;
}

/**
 * Reads a boolean filter (`true`/`false`), in its wire spelling.
 * @throws ApiError 400 otherwise.
 */
export function parseBooleanFilter(raw: string | null | undefined, parameter: string): "true" | "false" | undefined {
  const value = parseStringFilter(raw, parameter);
  if (value === undefined || value === "true" || value === "false") return value;
  throw ApiError.badParameter(parameter, `${parameter} must be true or false.`);
}
