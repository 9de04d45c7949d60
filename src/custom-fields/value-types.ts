import { ApiError } from "../lib/errors";
import { hasControlCharacter, hasUnpairedSurrogate } from "../lib/validation";

/** The data types of a custom field definition (docs/api.md §Custom fields, "Data types and value formats"). */
export const DATA_TYPES = [
  "short_text",
  "number",
  "date",
  "datetime",
  "boolean",
  "enum",
  "enum_multi",
  "reference",
] as const;
/** One of {@link DATA_TYPES}. */
export type DataType = (typeof DATA_TYPES)[number];

/** Definition entity types as stored and returned (docs/api.md §Custom fields); `Cargo` is accepted for `Container`. */
export const ENTITY_TYPES = ["Shipment", "Container", "TrackingRequest"] as const;
/** One of {@link ENTITY_TYPES}. */
export type DefinitionEntityType = (typeof ENTITY_TYPES)[number];

/** JSON:API types a value can be attached to, and a `reference` value can name (docs/api.md §Custom fields). */
export const VALUE_ENTITY_TYPES = ["shipment", "container", "tracking_request"] as const;
/** One of {@link VALUE_ENTITY_TYPES}. */
export type ValueEntityType = (typeof VALUE_ENTITY_TYPES)[number];

/** The definition entity type a value on an entity of `type` uses (tracking requests: any, docs/api.md §Custom fields). */
export const DEFINITION_TYPE_OF: Record<ValueEntityType, DefinitionEntityType | null> = {
  shipment: "Shipment",
  container: "Container",
  tracking_request: null,
};

/**
 * `api_slug` syntax (docs/api.md §Custom fields; the reference leaves it undocumented and uses lower snake_case in
 * every example): a lower-case letter, then lower-case letters, digits and `_`, at most 64 characters.
 */
export const API_SLUG_PATTERN = /^[a-z][a-z0-9_]{0,63}$/;

/** Longest `short_text` value, in characters, unless the definition's `validation.max_length` says less. */
export const MAX_TEXT_LENGTH = 1000;
/** Largest magnitude of a `number` value: the reference stores decimal(18, 6), so 12 integer digits. */
export const MAX_NUMBER = 1e12;

/** The parts of a definition that type and display a value. */
export interface ValueDefinition {
  dataType: string;
  referenceType: string | null;
  validation: Record<string, unknown> | null;
}

/** An option of an `enum` / `enum_multi` definition: its stored `value` and its `label`. */
export interface OptionLabel {
  value: string;
  label: string;
}

/** A `reference` value: the record it names. */
export interface ReferenceValue {
  type: string;
  id: string;
}

const VALUE_POINTER = "/data/attributes/value";

function invalid(detail: string, pointer: string): ApiError {
  return ApiError.invalidField(pointer, detail, "invalid");
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATETIME = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/;

function isCalendarDate(y: number, m: number, d: number): boolean {
  const date = new Date(Date.UTC(y, m - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d;
}

/** A `date` value as `YYYY-MM-DD`, or null when `text` is not a calendar date (a date-time keeps its date part). */
function parseDate(text: string): string | null {
  const m = DATE.exec(text) ?? DATETIME.exec(text);
  if (!m) return null;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  return isCalendarDate(y, mo, d) ? `${m[1]}-${m[2]}-${m[3]}` : null;
}

/** A `datetime` value as UTC `YYYY-MM-DDTHH:MM:SSZ`, or null when `text` is not an ISO 8601 date-time with offset. */
function parseDateTime(text: string): string | null {
  const m = DATETIME.exec(text);
  if (!m || !isCalendarDate(Number(m[1]), Number(m[2]), Number(m[3]))) return null;
  if (Number(m[4]) > 23 || Number(m[5]) > 59 || Number(m[6] ?? 0) > 59) return null;
  const ms = Date.parse(text.replace(" ", "T"));
  if (Number.isNaN(ms)) return null;
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(".000Z", "Z");
}

function checkText(value: unknown, definition: ValueDefinition, pointer: string): string {
  if (typeof value !== "string") throw invalid("must be a string", pointer);
  if (hasControlCharacter(value) || hasUnpairedSurrogate(value)) {
    throw invalid("must not contain control characters or unpaired surrogates", pointer);
  }
  const rules = definition.validation ?? {};
  const max = typeof rules.max_length === "number" ? rules.max_length : MAX_TEXT_LENGTH;
  if (value.length > max) throw invalid(`is too long (maximum is ${max} characters)`, pointer);
  if (typeof rules.pattern === "string" && !new RegExp(rules.pattern, "u").test(value)) {
    throw invalid(`does not match the pattern ${rules.pattern}`, pointer);
  }
  return value;
}

function checkOption(value: unknown, options: readonly OptionLabel[], pointer: string): string {
  if (typeof value !== "string")
    throw invalid("must be a string, the value of one of the definition's options", pointer);
  if (!options.some((o) => o.value === value)) {
    const allowed = options.map((o) => o.value).join(", ") || "none defined";
    throw invalid(`'${value}' is not an option of this field (options: ${allowed})`, pointer);
  }
  return value;
}

/**
 * A value checked against its definition and put in stored form (docs/api.md §Custom fields, "Data types and value
 * formats"): `short_text` a string (no control characters, `validation.max_length` / `validation.pattern`);
 * `number` a finite JSON number under 10^12 in magnitude; `date` `YYYY-MM-DD` (a date-time keeps its date);
 * `datetime` ISO 8601 with an offset, stored in UTC seconds; `boolean` true/false; `enum` one option's `value`;
 * `enum_multi` an array of distinct option values; `reference` `{type, id}` whose `type` is the definition's
 * `reference_type` (the record's existence is the caller's check). `null` clears the value unless
 * `validation.required` is true.
 * @throws ApiError 422 at `pointer` (default `/data/attributes/value`, code `invalid`) naming what is wrong.
 */
export function checkValue(
  value: unknown,
  definition: ValueDefinition,
  options: readonly OptionLabel[],
  pointer = VALUE_POINTER,
): unknown {
  if (value === null || value === undefined) {
    if (definition.validation?.required === true) throw ApiError.invalidField(pointer, "can't be blank", "blank");
    return null;
  }
  switch (definition.dataType as DataType) {
    case "short_text":
      return checkText(value, definition, pointer);
    case "number":
      if (typeof value !== "number" || !Number.isFinite(value)) throw invalid("must be a number", pointer);
      if (Math.abs(value) >= MAX_NUMBER) throw invalid("must be less than 10^12 in magnitude", pointer);
      return Number(value.toFixed(6));
    case "date": {
      const date = typeof value === "string" ? parseDate(value) : null;
      if (!date) throw invalid("must be a date (YYYY-MM-DD)", pointer);
      return date;
    }
    case "datetime": {
      const at = typeof value === "string" ? parseDateTime(value) : null;
      if (!at) throw invalid("must be an ISO 8601 date-time with a time zone (e.g. 2026-05-01T12:00:00Z)", pointer);
      return at;
    }
    case "boolean":
      if (typeof value !== "boolean") throw invalid("must be true or false", pointer);
      return value;
    case "enum":
      return checkOption(value, options, pointer);
    case "enum_multi": {
      if (!Array.isArray(value)) throw invalid("must be an array of option values", pointer);
      const list = value.map((v, i) => checkOption(v, options, `${pointer}/${i}`));
      if (new Set(list).size !== list.length) throw invalid("must not repeat an option", pointer);
      return list;
    }
    case "reference": {
      const ref = value as Partial<ReferenceValue>;
      if (
        typeof value !== "object" ||
        Array.isArray(value) ||
        typeof ref.type !== "string" ||
        typeof ref.id !== "string"
      ) {
        throw invalid('must be an object {"type": …, "id": …} naming a record', pointer);
      }
      if (ref.type !== definition.referenceType) {
        throw invalid(`must reference a ${definition.referenceType}, not a ${ref.type}`, pointer);
      }
      if (Object.keys(value).length !== 2) throw invalid("must have only the members type and id", pointer);
      return { type: ref.type, id: ref.id };
    }
    default:
      throw invalid(`has an unknown data type ${definition.dataType}`, pointer);
  }
}

/**
 * The `display_value` of a stored value (docs/api.md §Custom fields): text and dates unchanged, a `datetime` as
 * `YYYY-MM-DD HH:MM:SS` (UTC), a number in plain decimal, booleans `Yes` / `No`, an option's `label` (its raw value
 * once the option is deleted), `enum_multi` labels joined by `, `, a reference as `<type> <id>`; null for null.
 */
export function displayValue(value: unknown, dataType: string, options: readonly OptionLabel[]): string | null {
  if (value === null || value === undefined) return null;
  const label = (v: unknown) => options.find((o) => o.value === v)?.label ?? String(v);
  switch (dataType as DataType) {
    case "datetime":
      return String(value).replace("T", " ").replace("Z", "");
    case "boolean":
      return value === true ? "Yes" : "No";
    case "enum":
      return label(value);
    case "enum_multi":
      return Array.isArray(value) ? value.map(label).join(", ") : String(value);
    case "reference": {
      const ref = value as ReferenceValue;
      return `${ref.type} ${ref.id}`;
    }
    default:
      return String(value);
  }
}
