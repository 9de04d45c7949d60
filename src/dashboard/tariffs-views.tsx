import { CLOCK_STARTS, TARIFF_KINDS } from "../charges/tariff-match";
import type { SignedInUser } from "../env";
import type { TariffRow } from "../tariffs/serializer";
import {
  CheckboxField,
  ErrorSummary,
  FieldMessage,
  FormErrors,
  fieldId,
  Notice,
  SelectField,
  TextField,
  utcTime,
} from "./forms";
import { CsrfField, Layout } from "./layout";

// The views of /app/settings/tariffs (docs/dashboard.md §Tariffs); the routes are in tariffs-page.tsx.

/** Path of the tariffs page. */
export const TARIFFS_PATH = "/app/settings/tariffs";

/** Tier rows the editor shows at least (more with "Add a tier row", a form round trip; at most MAX_TIER_ROWS). */
export const MIN_TIER_ROWS = 3;
/** Most tier rows (the API takes at most 20 tiers). */
export const MAX_TIER_ROWS = 20;

const KIND_LABELS: Readonly<Record<string, string>> = {
  demurrage: "Demurrage (at the terminal, from discharge)",
  detention: "Detention (out of the terminal, from full out)",
  combined: "Combined demurrage and detention",
  terminal_storage: "Terminal storage",
};

const CLOCK_LABELS: Readonly<Record<string, string>> = {
  discharged: "Discharge",
  available: "Available for pickup",
  full_out: "Full out (detention)",
};

/** The equipment types the API takes (src/tariffs/schemas.ts), for the select; "" matches every box. */
const EQUIPMENT_TYPES = ["dry", "reefer", "open top", "flat rack", "bulk", "tank"] as const;

/** The usual container lengths, plus a stored one that is not among them (the API takes 10–60 ft). */
function lengths(current: string): string[] {
  const usual = ["20", "40", "45"];
  return current === "" || usual.includes(current) ? usual : [...usual, current];
}

/** One tier row of the editor, as typed. */
export interface TierFormValues {
  from: string;
  to: string;
  rate: string;
}

/** The tariff form's values, as typed or stored. */
export interface TariffFormValues {
  name: string;
  kind: string;
  scac: string;
  portCode: string;
  terminalId: string;
  equipmentLength: string;
  equipmentType: string;
  freeDays: string;
  freeDaysBasis: string;
  clockStartsAt: string;
  /** One currency for every tier (the API requires one). */
  currency: string;
  tiers: TierFormValues[];
}

/** An empty tariff form. */
export function newTariffForm(): TariffFormValues {
  return {
    name: "",
    kind: "demurrage",
    scac: "",
    portCode: "",
    terminalId: "",
    equipmentLength: "",
    equipmentType: "",
    freeDays: "4",
    freeDaysBasis: "calendar",
    clockStartsAt: "discharged",
    currency: "USD",
    tiers: Array.from({ length: MIN_TIER_ROWS }, () => ({ from: "", to: "", rate: "" })),
  };
}

/** The form values of a stored tariff, with one empty tier row to add to. */
export function tariffFormValuesOf(row: TariffRow): TariffFormValues {
  const tiers = row.tiers.map((t) => ({
    from: String(t.from_day),
    to: t.to_day === null ? "" : String(t.to_day),
    rate: t.rate_per_day,
  }));
  while (tiers.length < Math.min(MAX_TIER_ROWS, Math.max(MIN_TIER_ROWS, row.tiers.length + 1))) {
    tiers.push({ from: "", to: "", rate: "" });
  }
  return {
    name: row.name ?? "",
    kind: row.kind,
    scac: row.scac ?? "",
    portCode: row.portCode ?? "",
    terminalId: row.terminalId ?? "",
    equipmentLength: row.equipmentLength === null ? "" : String(row.equipmentLength),
    equipmentType: row.equipmentType ?? "",
    freeDays: String(row.freeDays),
    freeDaysBasis: row.freeDaysBasis,
    clockStartsAt: row.clockStartsAt,
    currency: row.tiers[0]?.currency_code ?? "USD",
    tiers,
  };
}

/** What a tariff applies to, in words. */
export function tariffScope(row: TariffRow): string {
  const parts = [
    row.scac ? `line ${row.scac}` : null,
    row.portCode ? `port ${row.portCode}` : null,
    row.terminalId ? `terminal ${row.terminalId}` : null,
    row.equipmentLength ? `${row.equipmentLength} ft` : null,
    row.equipmentType,
  ].filter((p) => p !== null);
  return parts.length > 0 ? parts.join(", ") : "Every box";
}

/** The tiers in words: "days 1–4: 150.00 USD/day; from day 5: 300.00 USD/day". */
export function tiersSummary(row: TariffRow): string {
  return row.tiers
    .map((t) =>
      t.to_day === null
        ? `from day ${t.from_day}: ${t.rate_per_day} ${t.currency_code}/day`
        : `days ${t.from_day}–${t.to_day}: ${t.rate_per_day} ${t.currency_code}/day`,
    )
    .join("; ");
}

/** The tiers editor: a table of rows (from day, to day, rate) that works without JavaScript. */
function TiersEditor({ tiers, errors }: { tiers: readonly TierFormValues[]; errors: FormErrors }) {
  const whole = errors.items.some((e) => e.field === "tiers") ? errors.of("tiers") : null;
  return (
    <fieldset class="tiers" aria-describedby={whole ? "f-tiers-error" : undefined}>
      <legend>Day rates</legend>
      <p class="hint">
        Chargeable days count from 1, the first day after free time. An empty "From day" follows the tier before it;
        leave "To day" empty on the last tier for open-ended; leave a row empty to skip it.
      </p>
      <table>
        <caption>Rate tiers</caption>
        <thead>
          <tr>
            <th scope="col">Tier</th>
            <th scope="col">From day</th>
            <th scope="col">To day</th>
            <th scope="col">Rate per day</th>
          </tr>
        </thead>
        <tbody>
          {tiers.map((t, i) => {
            const cell = (key: "from" | "to" | "rate", field: string, value: string, label: string) => {
              const name = `tier_${key}_${i}`;
              const id = fieldId(name);
              const message = errors.of(`tiers/${i}/${field}`);
              return (
                <td>
                  <input
                    id={id}
                    name={name}
                    type="text"
                    inputmode={key === "rate" ? "decimal" : "numeric"}
                    value={value}
                    aria-label={`Tier ${i + 1} ${label}`}
                    aria-invalid={message ? "true" : undefined}
                    aria-describedby={message ? `${id}-error` : undefined}
                  />
                  <FieldMessage id={id} message={message} />
                </td>
              );
            };
            return (
              <tr>
                <th scope="row">{i + 1}</th>
                {cell("from", "from_day", t.from, "from day")}
                {cell("to", "to_day", t.to, "to day")}
                {cell("rate", "rate_per_day", t.rate, "rate per day")}
              </tr>
            );
          })}
        </tbody>
      </table>
      <input type="hidden" name="tier_rows" value={String(tiers.length)} />
      <FieldMessage id="f-tiers" message={whole} />
    </fieldset>
  );
}

/** The create / edit form of a tariff. */
export function TariffForm(props: {
  user: SignedInUser;
  action: string;
  values: TariffFormValues;
  errors: FormErrors;
  submit: string;
}) {
  const v = props.values;
  const e = props.errors;
  const any = { value: "", label: "Any" };
  return (
    <form method="post" action={props.action} class="settings-form" novalidate>
      <CsrfField user={props.user} />
      <ErrorSummary errors={e} />
      <TextField name="name" label="Name" value={v.name} errors={e} hint="Optional, e.g. Maersk LA demurrage 2027." />
      <SelectField
        name="kind"
        label="Charge"
        value={v.kind}
        errors={e}
        options={TARIFF_KINDS.map((k) => ({ value: k, label: KIND_LABELS[k] ?? k }))}
      />
      <fieldset>
        <legend>Applies to (empty: every box; the most specific tariff wins)</legend>
        <TextField name="scac" label="Shipping line (SCAC)" value={v.scac} errors={e} />
        <TextField name="port_code" label="Port (UN/LOCODE)" value={v.portCode} errors={e} hint="e.g. USLAX" />
        <TextField name="terminal_id" label="Terminal id" value={v.terminalId} errors={e} />
        <SelectField
          name="equipment_length"
          label="Container length"
          value={v.equipmentLength}
          errors={e}
          options={[any, ...lengths(v.equipmentLength).map((l) => ({ value: l, label: `${l} ft` }))]}
        />
        <SelectField
          name="equipment_type"
          label="Container type"
          value={v.equipmentType}
          errors={e}
          options={[any, ...EQUIPMENT_TYPES.map((t) => ({ value: t, label: t }))]}
        />
      </fieldset>
      <TextField name="free_days" label="Free days" type="number" min={0} max={365} value={v.freeDays} errors={e} />
      <SelectField
        name="free_days_basis"
        label="Free days counted in"
        value={v.freeDaysBasis}
        errors={e}
        options={[
          { value: "calendar", label: "Calendar days" },
          { value: "business", label: "Business days (no weekends or the port's holidays)" },
        ]}
      />
      <SelectField
        name="clock_starts_at"
        label="Free time starts the day after"
        value={v.clockStartsAt}
        errors={e}
        options={CLOCK_STARTS.map((s) => ({ value: s, label: CLOCK_LABELS[s] ?? s }))}
      />
      <TextField
        name="currency"
        label="Currency (ISO 4217)"
        value={v.currency}
        errors={e}
        hint="One currency for every tier, e.g. USD."
      />
      <TiersEditor tiers={v.tiers} errors={e} />
      {/* The save button comes first: it is the form's default button (Enter in a field saves). */}
      <div class="buttons">
        <button type="submit">{props.submit}</button>
        {v.tiers.length < MAX_TIER_ROWS ? (
          <button type="submit" name="add_tier" value="1" formnovalidate>
            Add a tier row
          </button>
        ) : null}
      </div>
    </form>
  );
}

/** /app/settings/tariffs: the account's tariffs and, for admins, the new-tariff form. */
export function TariffsPage(props: {
  user: SignedInUser;
  canWrite: boolean;
  rows: readonly TariffRow[];
  total: number;
  form: TariffFormValues;
  errors: FormErrors;
}) {
  return (
    <Layout title="Tariffs" user={props.user} current={TARIFFS_PATH} styles={["settings.css"]}>
      {props.rows.length === 0 ? (
        <p>No tariff yet: charges are computed only from the terminals' last free days.</p>
      ) : (
        <table>
          <caption>Tariffs ({props.total})</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Charge</th>
              <th scope="col">Applies to</th>
              <th scope="col">Free days</th>
              <th scope="col">Day rates</th>
              <th scope="col">Updated</th>
            </tr>
          </thead>
          <tbody>
            {props.rows.map((t) => (
              <tr>
                <th scope="row">
                  <a href={`${TARIFFS_PATH}/${t.id}`}>{t.name ?? `${t.kind} tariff`}</a>
                </th>
                <td>{t.kind}</td>
                <td>{tariffScope(t)}</td>
                <td>{`${t.freeDays} ${t.freeDaysBasis}`}</td>
                <td>{tiersSummary(t)}</td>
                <td>{utcTime(t.updatedAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {props.canWrite ? (
        <section aria-labelledby="new-tariff-title">
          <h2 id="new-tariff-title">New tariff</h2>
          <TariffForm
            user={props.user}
            action={TARIFFS_PATH}
            values={props.form}
            errors={props.errors}
            submit="Create tariff"
          />
        </section>
      ) : (
        <p class="read-only">Only admins can change tariffs.</p>
      )}
    </Layout>
  );
}

/** /app/settings/tariffs/{id}: one tariff and, for admins, its edit and delete forms. */
export function TariffPage(props: {
  user: SignedInUser;
  canWrite: boolean;
  tariff: TariffRow;
  form?: TariffFormValues;
  errors?: FormErrors;
  notice?: string;
  actionErrors?: FormErrors;
}) {
  const t = props.tariff;
  const base = `${TARIFFS_PATH}/${t.id}`;
  return (
    <Layout title="Tariff" user={props.user} current={TARIFFS_PATH} styles={["settings.css"]}>
      <p>
        <a href={TARIFFS_PATH}>All tariffs</a>
      </p>
      {props.notice ? (
        <Notice>
          <p>{props.notice}</p>
        </Notice>
      ) : null}
      <ErrorSummary errors={props.actionErrors ?? FormErrors.none} />
      <dl class="facts">
        <dt>Name</dt>
        <dd>{t.name ?? "—"}</dd>
        <dt>Charge</dt>
        <dd>{KIND_LABELS[t.kind] ?? t.kind}</dd>
        <dt>Applies to</dt>
        <dd>{tariffScope(t)}</dd>
        <dt>Free days</dt>
        <dd>{`${t.freeDays} ${t.freeDaysBasis} days after ${CLOCK_LABELS[t.clockStartsAt] ?? t.clockStartsAt}`}</dd>
        <dt>Day rates</dt>
        <dd>{tiersSummary(t)}</dd>
      </dl>
      {props.canWrite ? (
        <>
          <section aria-labelledby="edit-title">
            <h2 id="edit-title">Edit</h2>
            <TariffForm
              user={props.user}
              action={base}
              values={props.form ?? tariffFormValuesOf(t)}
              errors={props.errors ?? FormErrors.none}
              submit="Save changes"
            />
          </section>
          <section aria-labelledby="delete-title">
            <h2 id="delete-title">Delete</h2>
            <form method="post" action={`${base}/delete`} class="inline-form">
              <CsrfField user={props.user} />
              <CheckboxField
                name="confirm"
                label="Yes, delete this tariff (charges are computed again without it)"
                checked={false}
                errors={props.actionErrors ?? FormErrors.none}
              />
              <button type="submit">Delete tariff</button>
            </form>
          </section>
        </>
      ) : (
        <p class="read-only">Only admins can change tariffs.</p>
      )}
    </Layout>
  );
}
