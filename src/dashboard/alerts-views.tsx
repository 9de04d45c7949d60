import {
  ALERT_CONDITIONS,
  type AlertCondition,
  NEEDS_THRESHOLD_DAYS,
  NEEDS_THRESHOLD_HOURS,
} from "../alerts/conditions";
import type { AlertRow } from "../alerts/rule-alerts";
import type { AlertRuleRow, AlertSettingsRow } from "../alerts/rule-service";
import type { SignedInUser } from "../env";
import {
  CheckboxField,
  ErrorSummary,
  FormErrors,
  Notice,
  SecretField,
  SelectField,
  TextAreaField,
  TextField,
  utcTime,
} from "./forms";
import { CsrfField, Layout } from "./layout";

// The views of /app/settings/alerts (docs/dashboard.md §Alerts); the routes are in alerts-page.tsx.

/** Path of the alerts page. */
export const ALERTS_PATH = "/app/settings/alerts";

/** What each condition means, as the select shows it (docs/api.md §Alert rules; src/alerts/conditions.ts). */
export const CONDITION_LABELS: Readonly<Record<AlertCondition, string>> = {
  free_time_ending: "Free time ending (within the days below)",
  charges_accruing: "Demurrage accruing (free time over, box still in)",
  hold_changed: "Terminal hold placed or released",
  available_for_pickup: "Available for pickup",
  eta_changed: "POD ETA moved (by more than the hours below)",
  empty_return_due: "Empty return due (within the days below)",
  tracking_failed: "Tracking failed (line or terminal stopped answering)",
};

const CHANNEL_LABELS: ReadonlyArray<{ value: string; label: string }> = [
  { value: "email", label: "E-mail" },
  { value: "slack", label: "Slack (incoming webhook URL)" },
  { value: "teams", label: "Microsoft Teams (workflow webhook URL)" },
  { value: "webhook", label: "Signed webhook (our signature)" },
];

const HOURS = Array.from({ length: 24 }, (_, h) => ({ value: String(h), label: `${String(h).padStart(2, "0")}:00` }));

let timeZoneOptions: Array<{ value: string; label: string }> | null = null;

/**
 * The time zones of the select: the IANA database the runtime ships (`Intl.supportedValuesOf("timeZone")`, the list
 * the settings service checks against with `Intl.DateTimeFormat`), UTC first.
 */
export function timeZones(): ReadonlyArray<{ value: string; label: string }> {
  timeZoneOptions ??= ["UTC", ...Intl.supportedValuesOf("timeZone").filter((z) => z !== "UTC")].map((z) => ({
    value: z,
    label: z.replaceAll("_", " "),
  }));
  return timeZoneOptions;
}

/** The rule form's values, as typed or stored (lists as the text typed). */
export interface RuleFormValues {
  name: string;
  condition: string;
  thresholdDays: string;
  thresholdHours: string;
  ports: string;
  scacs: string;
  customers: string;
  /** Custom-field pairs, one `slug = value` a line. */
  customFields: string;
  channelType: string;
  channelAddress: string;
  channelUrl: string;
  delivery: string;
  active: boolean;
}

/** The form values of a stored rule. */
export function ruleFormValuesOf(row: AlertRuleRow): RuleFormValues {
  return {
    name: row.name ?? "",
    condition: row.condition,
    thresholdDays: row.thresholdDays === null ? "" : String(row.thresholdDays),
    thresholdHours: row.thresholdHours === null ? "" : String(row.thresholdHours),
    ports: (row.scope.ports ?? []).join(", "),
    scacs: (row.scope.scacs ?? []).join(", "),
    customers: (row.scope.customers ?? []).join(", "),
    customFields: Object.entries(row.scope.custom_fields ?? {})
      .map(([slug, value]) => `${slug} = ${value}`)
      .join("\n"),
    channelType: row.channelType,
    channelAddress: row.channelAddress ?? "",
    channelUrl: row.channelUrl ?? "",
    delivery: row.delivery,
    active: row.active,
  };
}

/** An empty rule form. */
export const NEW_RULE: RuleFormValues = {
  name: "",
  condition: "free_time_ending",
  thresholdDays: "2",
  thresholdHours: "",
  ports: "",
  scacs: "",
  customers: "",
  customFields: "",
  channelType: "email",
  channelAddress: "",
  channelUrl: "",
  delivery: "immediate",
  active: true,
};

/** Where a rule sends: the address, or the URL's host only (Slack and Teams URLs carry their credential). */
export function channelSummary(row: AlertRuleRow): string {
  if (row.channelType === "email") return `E-mail to ${row.channelAddress ?? ""}`;
  let host = "";
  try {
    host = new URL(row.channelUrl ?? "").host;
  } catch {
    host = "";
  }
  const type = CHANNEL_LABELS.find((c) => c.value === row.channelType)?.label.split(" (")[0] ?? row.channelType;
  return `${type} to ${host}`;
}

function scopeSummary(row: AlertRuleRow): string {
  const parts: string[] = [];
  if (row.scope.ports?.length) parts.push(`POD ${row.scope.ports.join(", ")}`);
  if (row.scope.scacs?.length) parts.push(`line ${row.scope.scacs.join(", ")}`);
  if (row.scope.customers?.length) parts.push(`${row.scope.customers.length} customer(s)`);
  const fields = Object.entries(row.scope.custom_fields ?? {});
  if (fields.length > 0) parts.push(fields.map(([k, v]) => `${k} = ${v}`).join(", "));
  return parts.length > 0 ? parts.join("; ") : "Every box";
}

function thresholdSummary(row: AlertRuleRow): string {
  if (row.thresholdDays !== null) return `${row.thresholdDays} day(s)`;
  if (row.thresholdHours !== null) return `${row.thresholdHours} hour(s)`;
  return "—";
}

function deliverySummary(row: AlertRuleRow): string {
  if (!row.lastDeliveryStatus) return "Nothing sent yet";
  const when = utcTime(row.lastDeliveryAt);
  return row.lastDeliveryStatus === "succeeded"
    ? `Succeeded ${when}`
    : `Failed ${when}${row.lastError ? `: ${row.lastError}` : ""}`;
}

/** The create / edit form of an alert rule; field names map to the REST attributes' pointers. */
export function RuleForm(props: {
  user: SignedInUser;
  action: string;
  values: RuleFormValues;
  errors: FormErrors;
  submit: string;
}) {
  const v = props.values;
  const e = props.errors;
  const days = NEEDS_THRESHOLD_DAYS.join(", ");
  const hours = NEEDS_THRESHOLD_HOURS.join(", ");
  return (
    <form method="post" action={props.action} class="settings-form" novalidate>
      <CsrfField user={props.user} />
      <ErrorSummary errors={e} />
      <TextField name="name" label="Name" value={v.name} errors={e} hint="Optional; shown in the messages." />
      <SelectField
        name="condition"
        label="Condition"
        value={v.condition}
        errors={e}
        options={ALERT_CONDITIONS.map((c) => ({ value: c, label: CONDITION_LABELS[c] }))}
      />
      <TextField
        name="threshold_days"
        label="Days ahead"
        type="number"
        min={0}
        max={60}
        value={v.thresholdDays}
        errors={e}
        hint={`For ${days}: alert when the date is at most this many local days away (0–60).`}
      />
      <TextField
        name="threshold_hours"
        label="Hours moved"
        type="number"
        min={1}
        max={720}
        value={v.thresholdHours}
        errors={e}
        hint={`For ${hours}: alert when the ETA moves by more than this (1–720).`}
      />
      <fieldset>
        <legend>Boxes watched (empty: every box)</legend>
        <TextField
          name="scope_ports"
          field="scope/ports"
          label="PODs (UN/LOCODEs)"
          value={v.ports}
          errors={e}
          hint="Comma-separated, e.g. USLAX, USLGB."
        />
        <TextField
          name="scope_scacs"
          field="scope/scacs"
          label="Shipping lines (SCACs)"
          value={v.scacs}
          errors={e}
          hint="Comma-separated, e.g. MAEU."
        />
        <TextField
          name="scope_customers"
          field="scope/customers"
          label="Customers (party ids)"
          value={v.customers}
          errors={e}
        />
        <TextAreaField
          name="scope_custom_fields"
          field="scope/custom_fields"
          label="Custom fields"
          value={v.customFields}
          errors={e}
          hint="One api_slug = value a line: the box (or its shipment) must carry each."
        />
      </fieldset>
      <fieldset>
        <legend>Channel</legend>
        <SelectField
          name="channel_type"
          field="channel/type"
          label="Send by"
          value={v.channelType}
          errors={e}
          options={CHANNEL_LABELS}
        />
        <TextField
          name="channel_address"
          field="channel/address"
          label="E-mail address"
          type="email"
          value={v.channelAddress}
          errors={e}
          hint="For e-mail."
        />
        <TextField
          name="channel_url"
          field="channel/url"
          label="Webhook URL"
          type="url"
          value={v.channelUrl}
          errors={e}
          hint="For Slack, Teams and signed webhooks: a public https:// address."
        />
      </fieldset>
      <SelectField
        name="delivery"
        label="Delivery"
        value={v.delivery}
        errors={e}
        options={[
          { value: "immediate", label: "At once" },
          { value: "digest", label: "In the daily digest" },
        ]}
      />
      <CheckboxField name="active" label="Active" checked={v.active} errors={e} />
      <button type="submit">{props.submit}</button>
    </form>
  );
}

/** The account's alert settings form (time zone, digest hour, quiet hours). */
function SettingsForm(props: {
  user: SignedInUser;
  settings: AlertSettingsRow;
  errors: FormErrors;
  canWrite: boolean;
}) {
  const s = props.settings;
  const e = props.errors;
  const quiet = [{ value: "", label: "None" }, ...HOURS];
  if (!props.canWrite) {
    return (
      <dl class="facts">
        <dt>Time zone</dt>
        <dd>{s.timeZone}</dd>
        <dt>Daily digest</dt>
        <dd>{`${String(s.digestHour).padStart(2, "0")}:00`}</dd>
        <dt>Quiet hours</dt>
        <dd>{s.quietHoursStart === null ? "None" : `${s.quietHoursStart}:00 to ${s.quietHoursEnd}:00`}</dd>
      </dl>
    );
  }
  return (
    <form method="post" action={`${ALERTS_PATH}/settings`} class="settings-form" novalidate>
      <CsrfField user={props.user} />
      <ErrorSummary errors={e} />
      <SelectField name="time_zone" label="Time zone" value={s.timeZone} errors={e} options={timeZones()} />
      <SelectField name="digest_hour" label="Daily digest at" value={String(s.digestHour)} errors={e} options={HOURS} />
      <SelectField
        name="quiet_hours_start"
        label="Quiet hours from"
        value={s.quietHoursStart === null ? "" : String(s.quietHoursStart)}
        errors={e}
        options={quiet}
        hint="Alerts due in quiet hours are held and sent when they end."
      />
      <SelectField
        name="quiet_hours_end"
        label="Quiet hours until"
        value={s.quietHoursEnd === null ? "" : String(s.quietHoursEnd)}
        errors={e}
        options={quiet}
      />
      <button type="submit">Save alert settings</button>
    </form>
  );
}

/** What the alerts page shows beside its data. */
export interface AlertsPageExtras {
  notice?: string;
  /** A new webhook channel's signing secret, shown once. */
  secret?: string;
  settingsErrors?: FormErrors;
  /** The settings as typed, when refused. */
  settingsValues?: AlertSettingsRow;
  ruleForm?: RuleFormValues;
  ruleErrors?: FormErrors;
}

/** /app/settings/alerts: the settings, the rules, and (members and admins) the new-rule form. */
export function AlertsPage(props: {
  user: SignedInUser;
  canWrite: boolean;
  settings: AlertSettingsRow;
  rules: readonly AlertRuleRow[];
  total: number;
  extras: AlertsPageExtras;
}) {
  const x = props.extras;
  return (
    <Layout title="Alerts" user={props.user} current={ALERTS_PATH} styles={["settings.css"]}>
      {x.notice ? (
        <Notice>
          <p>{x.notice}</p>
        </Notice>
      ) : null}
      {x.secret ? <SigningSecret secret={x.secret} /> : null}
      <section aria-labelledby="settings-title">
        <h2 id="settings-title">Alert settings</h2>
        <SettingsForm
          user={props.user}
          settings={x.settingsValues ?? props.settings}
          errors={x.settingsErrors ?? FormErrors.none}
          canWrite={props.canWrite}
        />
      </section>
      <section aria-labelledby="rules-title">
        <h2 id="rules-title">Alert rules</h2>
        {props.rules.length === 0 ? (
          <p>No alert rule yet.</p>
        ) : (
          <table>
            <caption>Alert rules ({props.total})</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Condition</th>
                <th scope="col">Threshold</th>
                <th scope="col">Boxes</th>
                <th scope="col">Channel</th>
                <th scope="col">Delivery</th>
                <th scope="col">Active</th>
                <th scope="col">Last delivery</th>
              </tr>
            </thead>
            <tbody>
              {props.rules.map((r) => (
                <tr>
                  <th scope="row">
                    <a href={`${ALERTS_PATH}/${r.id}`}>{r.name ?? CONDITION_LABELS[r.condition as AlertCondition]}</a>
                  </th>
                  <td>{r.condition}</td>
                  <td>{thresholdSummary(r)}</td>
                  <td>{scopeSummary(r)}</td>
                  <td>{channelSummary(r)}</td>
                  <td>{r.delivery === "digest" ? "Daily digest" : "At once"}</td>
                  <td>{r.active ? "Yes" : "No"}</td>
                  <td>{deliverySummary(r)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      {props.canWrite ? (
        <section aria-labelledby="new-rule-title">
          <h2 id="new-rule-title">New alert rule</h2>
          <RuleForm
            user={props.user}
            action={ALERTS_PATH}
            values={x.ruleForm ?? NEW_RULE}
            errors={x.ruleErrors ?? FormErrors.none}
            submit="Create rule"
          />
        </section>
      ) : (
        <p class="read-only">Only members and admins can change alerts.</p>
      )}
    </Layout>
  );
}

const ALERT_STATUS_TEXT: Readonly<Record<string, string>> = {
  pending: "Pending",
  digest: "Waiting for the digest",
  digested: "Sent in a digest",
  succeeded: "Sent",
  failed: "Failed",
};

/** The rule's newest alerts: the box, what happened, and how its delivery went. */
function RecentAlerts({ alerts }: { alerts: readonly AlertRow[] }) {
  return (
    <section aria-labelledby="recent-alerts-title">
      <h2 id="recent-alerts-title">Recent alerts</h2>
      {alerts.length === 0 ? (
        <p>This rule has raised no alert yet.</p>
      ) : (
        <table>
          <caption>Alerts of this rule, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Raised</th>
              <th scope="col">Box</th>
              <th scope="col">Episode</th>
              <th scope="col">Status</th>
              <th scope="col">Attempts</th>
              <th scope="col">Last error</th>
            </tr>
          </thead>
          <tbody>
            {alerts.map((a) => (
              <tr>
                <th scope="row">{utcTime(a.createdAt)}</th>
                <td>{a.containerId ? <a href={`/app/containers/${a.containerId}`}>Container</a> : "—"}</td>
                <td>
                  <code>{a.episodeKey}</code>
                </td>
                <td>{ALERT_STATUS_TEXT[a.status] ?? a.status}</td>
                <td>{a.attempts}</td>
                <td>{a.lastError ?? "—"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function SigningSecret({ secret }: { secret: string }) {
  return (
    <SecretField
      id="rule-secret"
      label="Signing secret of this rule's webhook"
      value={secret}
      warning="Deliveries of this rule are signed with it; this page does not show it again."
    />
  );
}

/** /app/settings/alerts/{id}: one rule, its delivery state, and (members and admins) its edit and delete forms. */
export function AlertRulePage(props: {
  user: SignedInUser;
  canWrite: boolean;
  rule: AlertRuleRow;
  /** The rule's newest alerts (`GET /alert_rules/{id}/alerts`). */
  alerts: readonly AlertRow[];
  form?: RuleFormValues;
  errors?: FormErrors;
  notice?: string;
  actionErrors?: FormErrors;
  secret?: string;
}) {
  const r = props.rule;
  const base = `${ALERTS_PATH}/${r.id}`;
  return (
    <Layout
      title="Alert rule"
      user={props.user}
      current={ALERTS_PATH}
      styles={["settings.css"]}
      scripts={["copy-field.js"]}
    >
      <p>
        <a href={ALERTS_PATH}>All alerts</a>
      </p>
      {props.notice ? (
        <Notice>
          <p>{props.notice}</p>
        </Notice>
      ) : null}
      {props.secret ? <SigningSecret secret={props.secret} /> : null}
      <ErrorSummary errors={props.actionErrors ?? FormErrors.none} />
      <dl class="facts">
        <dt>Name</dt>
        <dd>{r.name ?? "—"}</dd>
        <dt>Condition</dt>
        <dd>{CONDITION_LABELS[r.condition as AlertCondition] ?? r.condition}</dd>
        <dt>Threshold</dt>
        <dd>{thresholdSummary(r)}</dd>
        <dt>Boxes</dt>
        <dd>{scopeSummary(r)}</dd>
        <dt>Channel</dt>
        <dd>{channelSummary(r)}</dd>
        <dt>Last delivery</dt>
        <dd>{deliverySummary(r)}</dd>
        <dt>Failing since</dt>
        <dd>{utcTime(r.failingSince)}</dd>
      </dl>
      <RecentAlerts alerts={props.alerts} />
      {props.canWrite ? (
        <>
          <section aria-labelledby="edit-title">
            <h2 id="edit-title">Edit</h2>
            <RuleForm
              user={props.user}
              action={base}
              values={props.form ?? ruleFormValuesOf(r)}
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
                label="Yes, delete this rule (its pending alerts are not sent)"
                checked={false}
                errors={props.actionErrors ?? FormErrors.none}
              />
              <button type="submit">Delete rule</button>
            </form>
          </section>
        </>
      ) : (
        <p class="read-only">Only members and admins can change alerts.</p>
      )}
    </Layout>
  );
}
