import type { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { Child } from "hono/jsx";
import type { AppEnv } from "../env";
import { ApiError } from "../lib/errors";
import { validationError } from "../lib/validation";

// The dashboard's form plumbing (docs/dashboard.md §Forms): a posted form becomes the JSON:API body the REST route
// takes, is checked by the route's own zod schema and then by the same service function, and an ApiError of either
// comes back here as field errors keyed by the part of `source.pointer` below `/data/attributes`, shown next to the
// field (aria-describedby) and in a summary. Nothing is written when there is an error: the services check first.

/** A posted form: each name to its value, or its values when the name repeats (checkbox groups). Files are dropped. */
export type FormValues = Record<string, string | string[]>;

/** Reads the posted form (urlencoded or multipart; the body verifyCsrf already parsed is read from Hono's cache). */
export async function readForm(c: Context<AppEnv>): Promise<FormValues> {
  const body = await c.req.parseBody({ all: true });
  const out: FormValues = {};
  for (const [name, value] of Object.entries(body)) {
    if (typeof value === "string") out[name] = value;
    else if (Array.isArray(value)) out[name] = value.filter((v): v is string => typeof v === "string");
  }
  return out;
}

/** The single value of `name` (the last when repeated), trimmed; "" when absent. */
export function formString(form: FormValues, name: string): string {
  const v = form[name];
  return (Array.isArray(v) ? (v.at(-1) ?? "") : (v ?? "")).trim();
}

/** Every value of `name` (a checkbox group), in order. */
export function formStrings(form: FormValues, name: string): string[] {
  const v = form[name];
  if (v === undefined) return [];
  return Array.isArray(v) ? v : [v];
}

/** A checkbox: true when it was sent with any value. */
export function formChecked(form: FormValues, name: string): boolean {
  return form[name] !== undefined;
}

/**
 * A number field for a JSON body: "" → null, an integer's text → the integer, anything else → the raw text, so the
 * route's schema refuses it at the field's pointer ("expected number") instead of the page guessing.
 */
export function formInteger(form: FormValues, name: string): number | string | null {
  const raw = formString(form, name);
  if (raw === "") return null;
  return /^-?\d{1,9}$/.test(raw) ? Number(raw) : raw;
}

/**
 * A "name: value" per line field (custom headers, custom-field pairs) as its pairs, blank lines skipped; each line is
 * split at its first `separator`, both sides trimmed (a line without one is a name with an empty value).
 */
export function formPairs(form: FormValues, name: string, separator = ":"): Array<{ name: string; value: string }> {
  return formString(form, name)
    .split(/\r?\n/)
    .filter((line) => line.trim() !== "")
    .map((line) => {
      const at = line.indexOf(separator);
      return at < 0
        ? { name: line.trim(), value: "" }
        : { name: line.slice(0, at).trim(), value: line.slice(at + separator.length).trim() };
    });
}

/** A comma- or whitespace-separated list field ("USLAX, USLGB") as its items, empty ones dropped. */
export function formList(form: FormValues, name: string): string[] {
  return formString(form, name)
    .split(/[\s,]+/)
    .filter((s) => s !== "");
}

/**
 * Checks a JSON:API body with the REST route's own zod schema and returns what it parsed.
 * @throws ApiError 422 with a `source.pointer` per issue, as the route's validation hook answers.
 */
export function parseWithSchema<S extends z.ZodType>(schema: S, body: unknown): z.infer<S> {
  const result = schema.safeParse(body);
  if (!result.success) throw validationError(result.error, "json");
  return result.data;
}

/** One error of a form, with the field it points at (the pointer below `/data/attributes`, e.g. `tiers/1/to_day`). */
export interface FormError {
  field: string | null;
  detail: string;
}

/** The errors of a refused form, by field (see {@link formErrorsOf}). */
export class FormErrors {
  constructor(readonly items: readonly FormError[] = []) {}
  /** No error. */
  static readonly none = new FormErrors();
  /** The messages for exactly `field`, or for anything below it (`events` takes `events/3`), joined. */
  of(field: string): string | null {
    const hits = this.items.filter((e) => e.field === field || e.field?.startsWith(`${field}/`));
    return hits.length > 0 ? hits.map((e) => e.detail).join(" ") : null;
  }
  get empty(): boolean {
    return this.items.length === 0;
  }
}

/**
 * The field errors of a 422 (or 409) from a service or the schema: each `source.pointer` with `base` stripped
 * (`/data/attributes/url` → `url`); errors without a pointer, or elsewhere, have field null and show in the summary.
 */
export function formErrorsOf(err: ApiError, base = "/data/attributes"): FormErrors {
  return new FormErrors(
    err.errors.map((e) => {
      const pointer = e.source?.pointer ?? null;
      let field: string | null = null;
      if (pointer?.startsWith(`${base}/`)) field = pointer.slice(base.length + 1);
      else if (pointer?.startsWith("/") && pointer !== "/data") field = pointer.slice(1);
      return { field, detail: e.detail ?? e.title };
    }),
  );
}

/** Whether an error from a service is one a form shows (a refused input), not one the page answers (404, 403). */
export function isFormError(err: unknown): err is ApiError & { status: 400 | 409 | 422 } {
  return err instanceof ApiError && (err.status === 422 || err.status === 409 || err.status === 400);
}

/** The DOM id of a field's control and of its error message. */
export function fieldId(name: string): string {
  return `f-${name.replace(/[^A-Za-z0-9_-]/g, "-")}`;
}

/** A form's error summary (role alert, so it is announced), listing every error; nothing when there is none. */
export function ErrorSummary({ errors }: { errors: FormErrors }) {
  if (errors.empty) return null;
  return (
    <div class="error-summary" role="alert">
      <h2>The form was not saved</h2>
      <ul>
        {errors.items.map((e) => (
          <li>{e.detail}</li>
        ))}
      </ul>
    </div>
  );
}

/** The error text under a control, referenced by its aria-describedby. */
export function FieldMessage({ id, message }: { id: string; message: string | null }) {
  return message ? (
    <p class="field-error" id={`${id}-error`}>
      {message}
    </p>
  ) : null;
}

/** Props of the labelled controls below. */
interface ControlProps {
  name: string;
  label: string;
  /** The error key (pointer below /data/attributes); defaults to `name`. */
  field?: string;
  errors: FormErrors;
  hint?: string;
}

function described(id: string, hint: string | undefined, message: string | null): string | undefined {
  const ids = [hint ? `${id}-hint` : null, message ? `${id}-error` : null].filter((x) => x !== null);
  return ids.length > 0 ? ids.join(" ") : undefined;
}

/** A labelled text (or number, email, url) input with its hint and error. */
export function TextField(
  props: ControlProps & { value: string; type?: string; required?: boolean; min?: number; max?: number },
) {
  const id = fieldId(props.name);
  const message = props.errors.of(props.field ?? props.name);
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      {props.hint ? (
        <p class="hint" id={`${id}-hint`}>
          {props.hint}
        </p>
      ) : null}
      <input
        id={id}
        name={props.name}
        type={props.type ?? "text"}
        value={props.value}
        required={props.required}
        min={props.min}
        max={props.max}
        aria-invalid={message ? "true" : undefined}
        aria-describedby={described(id, props.hint, message)}
      />
      <FieldMessage id={id} message={message} />
    </div>
  );
}

/** A labelled multi-line text area with its hint and error. */
export function TextAreaField(props: ControlProps & { value: string; rows?: number }) {
  const id = fieldId(props.name);
  const message = props.errors.of(props.field ?? props.name);
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      {props.hint ? (
        <p class="hint" id={`${id}-hint`}>
          {props.hint}
        </p>
      ) : null}
      <textarea
        id={id}
        name={props.name}
        rows={props.rows ?? 3}
        aria-invalid={message ? "true" : undefined}
        aria-describedby={described(id, props.hint, message)}
      >
        {props.value}
      </textarea>
      <FieldMessage id={id} message={message} />
    </div>
  );
}

/** A labelled select with its hint and error. */
export function SelectField(
  props: ControlProps & { value: string; options: ReadonlyArray<{ value: string; label: string }> },
) {
  const id = fieldId(props.name);
  const message = props.errors.of(props.field ?? props.name);
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      {props.hint ? (
        <p class="hint" id={`${id}-hint`}>
          {props.hint}
        </p>
      ) : null}
      <select
        id={id}
        name={props.name}
        aria-invalid={message ? "true" : undefined}
        aria-describedby={described(id, props.hint, message)}
      >
        {props.options.map((o) => (
          <option value={o.value} selected={o.value === props.value}>
            {o.label}
          </option>
        ))}
      </select>
      <FieldMessage id={id} message={message} />
    </div>
  );
}

/** A labelled checkbox (sent as "on" when checked). */
export function CheckboxField(props: ControlProps & { checked: boolean }) {
  const id = fieldId(props.name);
  const message = props.errors.of(props.field ?? props.name);
  return (
    <div class="field checkbox">
      <input
        id={id}
        name={props.name}
        type="checkbox"
        checked={props.checked}
        aria-describedby={message ? `${id}-error` : undefined}
      />
      <label for={id}>{props.label}</label>
      <FieldMessage id={id} message={message} />
    </div>
  );
}

/** A short readable date-time of an ISO timestamp: `2026-12-01 22:19 UTC`; "—" for null. */
export function utcTime(iso: string | null | undefined): string {
  if (!iso) return "—";
  return `${iso.slice(0, 16).replace("T", " ")} UTC`;
}

/**
 * A secret shown once (a webhook's or an alert channel's signing secret): a warning, the value in a read-only field,
 * and a copy button the copy-field.js island reveals (as the API keys page shows a new key). Pages using it list
 * `copy-field.js` in their Layout scripts.
 */
export function SecretField({
  id,
  label,
  value,
  warning,
}: {
  id: string;
  label: string;
  value: string;
  warning: string;
}) {
  return (
    <div class="notice secret-notice">
      <p id={`${id}-warning`} role="alert">
        <strong>Copy this secret now.</strong> {warning}
      </p>
      <p>
        <label for={id}>{label}</label>
        <br />
        <input
          id={id}
          type="text"
          readonly
          value={value}
          size={60}
          autocomplete="off"
          spellcheck={false}
          aria-describedby={`${id}-warning`}
        />{" "}
        <button type="button" data-copy-target={id} hidden>
          Copy secret
        </button>
        <span id={`${id}-copied`} role="status" />
      </p>
    </div>
  );
}

/** A notice above the page's content (a saved form, a one-time secret). */
export function Notice({ children }: { children?: Child }) {
  return (
    <div class="notice" role="status">
      {children}
    </div>
  );
}
