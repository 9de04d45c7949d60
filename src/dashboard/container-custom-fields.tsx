import type { DefinitionView } from "../custom-fields/definitions";
import type { SignedInUser } from "../env";
import { roleAllows } from "../sessions/session";
import type { CustomFieldEntry } from "./container-data";
import { CsrfField } from "./layout";

/**
 * The container page's custom fields (src/dashboard/container-page.tsx): one form per Container definition of the
 * account, typed by the definition's data type, posting to `/app/containers/{id}/custom-fields` (members and admins;
 * viewers see the values read-only). A value that does not fit comes back with the message next to its field
 * (`aria-describedby`, `aria-invalid`) and the submitted text kept, and nothing is changed.
 */

/** What the form sends back for one field: the text as typed (or the options ticked), and why it was refused. */
export interface CustomFieldFormState {
  apiSlug: string;
  /** The submitted value(s) as typed, shown again in the input. */
  submitted: string[];
  message: string;
}

/** The subset of `FormData` the value parser reads. */
export interface FormFields {
  get(name: string): unknown;
  getAll(name: string): unknown[];
}

const LOCAL_DATETIME = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})(:\d{2})?$/;

/**
 * The value a custom field form sends (field `value`; `enum_multi` as one `value` per ticked option), in the JSON
 * form the REST body carries, so `upsertValue` checks it exactly as for `POST /v2/containers/{id}/custom_fields`
 * (docs/api.md §Custom fields "Data types and value formats"). An empty input clears the value (null). Text that is
 * not of the type is passed on unchanged, so the service's own message explains what is wrong:
 * - `number`: a decimal number, else the text;
 * - `datetime`: a browser `datetime-local` value (`YYYY-MM-DDTHH:MM[:SS]`) is read as UTC (the form says so);
 * - `boolean`: `true` / `false`;
 * - `reference`: the id of a record of the definition's `reference_type`.
 */
export function customFieldFormValue(definition: Pick<DefinitionView, "dataType" | "referenceType">, form: FormFields) {
  if (definition.dataType === "enum_multi") {
    const ticked = form.getAll("value").filter((v): v is string => typeof v === "string" && v !== "");
    return ticked.length === 0 ? null : ticked;
  }
  const raw = form.get("value");
  const text = typeof raw === "string" ? raw : "";
  if (text.trim() === "") return null;
  switch (definition.dataType) {
    case "number": {
      const n = Number(text.trim());
      return Number.isFinite(n) ? n : text;
    }
    case "datetime": {
      const m = LOCAL_DATETIME.exec(text.trim());
      return m ? `${m[1]}T${m[2]}${m[3] ?? ":00"}Z` : text;
    }
    case "boolean":
      return text === "true" ? true : text === "false" ? false : text;
    case "reference":
      return { type: definition.referenceType ?? "", id: text.trim() };
    default:
      return text;
  }
}

/** The stored value as the input shows it (`datetime` in `datetime-local` form, UTC). */
function inputTextOf(entry: CustomFieldEntry): string[] {
  const value = entry.value?.value;
  if (value === null || value === undefined) return [];
  if (Array.isArray(value)) return value.map(String);
  if (entry.definition.dataType === "datetime") return [String(value).replace(/Z$/, "")];
  if (entry.definition.dataType === "reference") return [String((value as { id?: unknown }).id ?? "")];
  return [String(value)];
}

function FieldInput({ entry, id, text, describedBy, invalid }: InputProps) {
  const d = entry.definition;
  const common = { id, name: "value", "aria-describedby": describedBy, "aria-invalid": invalid ? "true" : undefined };
  const current = text[0] ?? "";
  switch (d.dataType) {
    case "number":
      return <input {...common} type="text" inputmode="decimal" value={current} />;
    case "date":
      return <input {...common} type="date" value={current} />;
    case "datetime":
      return <input {...common} type="datetime-local" step="1" value={current} />;
    case "boolean":
      return (
        <select {...common}>
          <option value="">(not set)</option>
          <option value="true" selected={current === "true"}>
            Yes
          </option>
          <option value="false" selected={current === "false"}>
            No
          </option>
        </select>
      );
    case "enum":
      return (
        <select {...common}>
          <option value="">(not set)</option>
          {d.options.map((o) => (
            <option value={o.value} selected={current === o.value}>
              {o.label}
            </option>
          ))}
        </select>
      );
    default:
      return <input {...common} type="text" value={current} />;
  }
}

interface InputProps {
  entry: CustomFieldEntry;
  id: string;
  text: string[];
  describedBy: string | undefined;
  invalid: boolean;
}

function hintOf(d: DefinitionView): string | null {
  const parts = [d.description];
  if (d.dataType === "datetime") parts.push("Date and time in UTC.");
  if (d.dataType === "reference") parts.push(`The id of a ${d.referenceType ?? "record"}.`);
  if (d.validation?.required === true) parts.push("Required.");
  const text = parts.filter(Boolean).join(" ");
  return text === "" ? null : text;
}

function FieldForm(props: {
  entry: CustomFieldEntry;
  containerId: string;
  user: SignedInUser;
  state: CustomFieldFormState | null;
}) {
  const { entry, containerId, user, state } = props;
  const d = entry.definition;
  const id = `cf-${d.apiSlug}`;
  const hint = hintOf(d);
  const error = state?.apiSlug === d.apiSlug ? state : null;
  const text = error ? error.submitted : inputTextOf(entry);
  const describedBy = [hint ? `${id}-hint` : null, error ? `${id}-error` : null].filter(Boolean).join(" ") || undefined;
  const action = `/app/containers/${encodeURIComponent(containerId)}/custom-fields`;
  const messages = (
    <>
      {hint ? (
        <p id={`${id}-hint`} class="hint">
          {hint}
        </p>
      ) : null}
      {error ? (
        <p id={`${id}-error`} class="field-error">
          Error: {d.displayName} {error.message}
        </p>
      ) : null}
    </>
  );
  return (
    <form method="post" action={action} class="custom-field-form">
      <CsrfField user={user} />
      <input type="hidden" name="api_slug" value={d.apiSlug} />
      {d.dataType === "enum_multi" ? (
        <fieldset aria-describedby={describedBy} aria-invalid={error ? "true" : undefined}>
          <legend>{d.displayName}</legend>
          {d.options.map((o, i) => (
            <label for={`${id}-${i}`} class="checkbox">
              <input id={`${id}-${i}`} type="checkbox" name="value" value={o.value} checked={text.includes(o.value)} />{" "}
              {o.label}
            </label>
          ))}
        </fieldset>
      ) : (
        <>
          <label for={id}>{d.displayName}</label>
          <FieldInput entry={entry} id={id} text={text} describedBy={describedBy} invalid={error !== null} />
        </>
      )}
      <button type="submit">Save {d.displayName}</button>
      {messages}
    </form>
  );
}

/** Props of {@link CustomFieldsSection}. */
export interface CustomFieldsSectionProps {
  entries: CustomFieldEntry[];
  containerId: string;
  user: SignedInUser;
  /** The refused submission to show again, if any. */
  state?: CustomFieldFormState | null;
  /** `api_slug` of the field just saved, for a confirmation. */
  saved?: string | null;
}

/** The custom fields section, `id="custom-fields"`: forms for members and admins, a list for viewers. */
export function CustomFieldsSection({
  entries,
  containerId,
  user,
  state = null,
  saved = null,
}: CustomFieldsSectionProps) {
  const canEdit = roleAllows(user.role, "member");
  const savedEntry = saved ? entries.find((e) => e.definition.apiSlug === saved) : undefined;
  return (
    <section id="custom-fields" aria-labelledby="custom-fields-heading">
      <h2 id="custom-fields-heading">Custom fields</h2>
      {savedEntry ? (
        <p role="status" class="saved">
          Saved {savedEntry.definition.displayName}.
        </p>
      ) : null}
      {entries.length === 0 ? (
        <p>The account has no container custom fields (define them with the API: POST /v2/custom_field_definitions).</p>
      ) : canEdit ? (
        entries.map((entry) => <FieldForm entry={entry} containerId={containerId} user={user} state={state} />)
      ) : (
        <dl class="facts">
          {entries.map((entry) => (
            <>
              <dt>{entry.definition.displayName}</dt>
              <dd>{entry.value?.displayValue ?? "—"}</dd>
            </>
          ))}
        </dl>
      )}
    </section>
  );
}
