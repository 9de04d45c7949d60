import type { SignedInUser } from "../env";
import type { PageRequest } from "../lib/jsonapi/pagination";
import type { WebhookNotificationView } from "../webhook-notifications/rows";
import { EXTENSION_WEBHOOK_EVENTS, isWebhookEvent, WEBHOOK_EVENT_CATALOG, WEBHOOK_EVENTS } from "../webhooks/catalog";
import type { WebhookRow } from "../webhooks/serializer";
import type { TriggerWebhookResult } from "../webhooks/service";
import {
  CheckboxField,
  ErrorSummary,
  FieldMessage,
  FormErrors,
  Notice,
  SecretField,
  TextAreaField,
  TextField,
  utcTime,
} from "./forms";
import { CsrfField, Layout } from "./layout";

// The views of /app/settings/webhooks (docs/dashboard.md §Webhooks); the routes are in webhooks-page.tsx.

/** Path of the webhooks page. */
export const WEBHOOKS_PATH = "/app/settings/webhooks";

/** What the webhook form shows: the values typed (or stored) and whether they are for a new webhook. */
export interface WebhookFormValues {
  url: string;
  events: readonly string[];
  active: boolean;
  /** Custom headers as typed: one `Name: value` a line. */
  headers: string;
}

/** The form values of a stored webhook. */
export function webhookFormValuesOf(w: WebhookRow): WebhookFormValues {
  return {
    url: w.url,
    events: w.events,
    active: w.active,
    headers: w.headers.map((h) => `${h.name}: ${h.value}`).join("\n"),
  };
}

/** The newest delivery of a webhook, for the list (null: nothing sent yet). */
export type LastDelivery = Pick<WebhookNotificationView, "deliveryStatus" | "createdAt" | "event"> | null;

/** Human words for a notification's `delivery_status` (never colour alone). */
function statusText(status: string): string {
  return status === "succeeded" ? "Succeeded" : status === "failed" ? "Failed" : "Pending";
}

/** The event checkboxes, one fieldset per catalog category plus the extensions, with their error. */
function EventCheckboxes({ selected, errors }: { selected: readonly string[]; errors: FormErrors }) {
  const chosen = new Set(selected);
  const message = errors.of("events");
  const groups = [
    ...WEBHOOK_EVENT_CATALOG.map((c) => ({ id: c.id, name: c.name, events: c.events.map((e) => e.name) })),
    { id: "extension-events", name: "Extension events (sent only when listed)", events: [...EXTENSION_WEBHOOK_EVENTS] },
  ];
  return (
    <fieldset class="events" aria-describedby={message ? "f-events-error" : undefined}>
      <legend>Events</legend>
      <CheckboxField name="all_events" label="Every event of the catalog" checked={false} errors={errors} />
      {groups.map((g) => (
        <fieldset class="event-group">
          <legend>{g.name}</legend>
          {g.events.map((name) => (
            <label class="event">
              <input type="checkbox" name="events" value={name} checked={chosen.has(name)} /> <code>{name}</code>
            </label>
          ))}
        </fieldset>
      ))}
      <FieldMessage id="f-events" message={message} />
    </fieldset>
  );
}

/** The create / edit form of a webhook. */
export function WebhookForm(props: {
  user: SignedInUser;
  action: string;
  values: WebhookFormValues;
  errors: FormErrors;
  submit: string;
}) {
  return (
    <form method="post" action={props.action} class="settings-form" novalidate>
      <CsrfField user={props.user} />
      <ErrorSummary errors={props.errors} />
      <TextField
        name="url"
        label="Receiver URL"
        type="url"
        value={props.values.url}
        required
        errors={props.errors}
        hint="A public https:// address (no IP address, no localhost)."
      />
      <EventCheckboxes selected={props.values.events} errors={props.errors} />
      <TextAreaField
        name="headers"
        label="Custom headers"
        value={props.values.headers}
        errors={props.errors}
        hint="Sent with every delivery: one Name: value a line, e.g. Authorization: Bearer abc (at most 20)."
      />
      <CheckboxField
        name="active"
        label="Active (deliveries are sent)"
        checked={props.values.active}
        errors={props.errors}
      />
      <button type="submit">{props.submit}</button>
    </form>
  );
}

/** The one-time display of a signing secret (after create and rotate). */
export function SecretNotice({ secret, what }: { secret: string; what: string }) {
  return (
    <SecretField
      id="webhook-secret"
      label="New signing secret"
      value={secret}
      warning={`${what} This page does not show the secret again; receivers verify deliveries with it.`}
    />
  );
}

/** The webhooks list with paging and, for admins, the create form. */
export function WebhookListPage(props: {
  user: SignedInUser;
  canWrite: boolean;
  rows: readonly WebhookRow[];
  last: ReadonlyMap<string, LastDelivery>;
  page: PageRequest;
  total: number;
  form: WebhookFormValues;
  errors: FormErrors;
}) {
  const { page, total } = props;
  const pages = Math.max(1, Math.ceil(total / page.size));
  return (
    <Layout title="Webhooks" user={props.user} current={WEBHOOKS_PATH} styles={["settings.css"]}>
      {props.rows.length === 0 ? (
        <p>No webhook yet.</p>
      ) : (
        <table>
          <caption>Webhooks ({total})</caption>
          <thead>
            <tr>
              <th scope="col">URL</th>
              <th scope="col">Events</th>
              <th scope="col">Active</th>
              <th scope="col">Created</th>
              <th scope="col">Last delivery</th>
            </tr>
          </thead>
          <tbody>
            {props.rows.map((w) => {
              const last = props.last.get(w.id) ?? null;
              return (
                <tr>
                  <th scope="row">
                    <a href={`${WEBHOOKS_PATH}/${w.id}`}>{w.url}</a>
                  </th>
                  <td>{w.events.length === 1 ? w.events[0] : `${w.events.length} events`}</td>
                  <td>{w.active ? "Yes" : w.disabledReason ? "No (disabled after failures)" : "No"}</td>
                  <td>{utcTime(w.createdAt)}</td>
                  <td>
                    {last ? `${statusText(last.deliveryStatus)} · ${last.event} · ${utcTime(last.createdAt)}` : "—"}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      {pages > 1 ? (
        <nav aria-label="Pages" class="pager">
          {page.number > 1 ? <a href={`${WEBHOOKS_PATH}?page[number]=${page.number - 1}`}>Previous page</a> : null}
          <span>
            Page {page.number} of {pages}
          </span>
          {page.number < pages ? <a href={`${WEBHOOKS_PATH}?page[number]=${page.number + 1}`}>Next page</a> : null}
        </nav>
      ) : null}
      {props.canWrite ? (
        <section aria-labelledby="create-webhook">
          <h2 id="create-webhook">Create a webhook</h2>
          <WebhookForm
            user={props.user}
            action={WEBHOOKS_PATH}
            values={props.form}
            errors={props.errors}
            submit="Create webhook"
          />
        </section>
      ) : (
        <p class="read-only">Only admins can create or change webhooks.</p>
      )}
    </Layout>
  );
}

/** The recent notifications of a webhook with their attempts (also served alone for the polling island). */
export function DeliveriesSection(props: {
  user: SignedInUser;
  webhook: WebhookRow;
  rows: readonly WebhookNotificationView[];
  canWrite: boolean;
}) {
  const base = `${WEBHOOKS_PATH}/${props.webhook.id}`;
  return (
    <section id="deliveries" aria-labelledby="deliveries-title" data-poll={`${base}/deliveries`}>
      <h2 id="deliveries-title">Recent deliveries</h2>
      <p>
        <a href={`${base}#deliveries`}>Refresh</a>
      </p>
      <div aria-live="polite">
        {props.rows.length === 0 ? (
          <p>Nothing delivered yet.</p>
        ) : (
          <table>
            <caption>Notifications of this webhook, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Event</th>
                <th scope="col">Created</th>
                <th scope="col">Status</th>
                <th scope="col">Attempts</th>
                <th scope="col">Last attempt</th>
                {props.canWrite ? <th scope="col">Action</th> : null}
              </tr>
            </thead>
            <tbody>
              {props.rows.map((n) => {
                const logs = n.logs ?? [];
                const last = logs.at(-1);
                return (
                  <tr data-status={n.deliveryStatus}>
                    <th scope="row">{n.event}</th>
                    <td>{utcTime(n.createdAt)}</td>
                    <td>{statusText(n.deliveryStatus)}</td>
                    <td>{logs.length}</td>
                    <td>
                      {last
                        ? `${last.statusCode !== null ? `HTTP ${last.statusCode}` : (last.error ?? "no answer")} · ${utcTime(last.createdAt)}`
                        : "—"}
                    </td>
                    {props.canWrite ? (
                      <td>
                        {n.deliveryStatus === "pending" ? (
                          "Being delivered"
                        ) : (
                          <form method="post" action={`${base}/notifications/${n.id}/resend`}>
                            <CsrfField user={props.user} />
                            <button type="submit" aria-label={`Resend ${n.event} of ${utcTime(n.createdAt)}`}>
                              Resend
                            </button>
                          </form>
                        )}
                      </td>
                    ) : null}
                  </tr>
                );
              })}
            </tbody>
          </table>
        )}
      </div>
    </section>
  );
}

/**
 * The events "Send test" offers: the webhook's own catalog events (the trigger operation has example payloads of the
 * catalog only), or the whole catalog when it lists extension events only.
 */
function testEvents(w: WebhookRow): readonly string[] {
  const own = w.events.filter(isWebhookEvent);
  return own.length > 0 ? own : WEBHOOK_EVENTS;
}

/** The outcome of "Send test", as the trigger operation describes it. */
function TestResult({ result }: { result: TriggerWebhookResult }) {
  const outcome = result.succeeded
    ? `Succeeded: HTTP ${result.status_code} in ${result.latency_ms} ms.`
    : `Failed: ${result.status_code !== null ? `HTTP ${result.status_code}` : (result.error ?? "no answer")}.`;
  return (
    <div class={`test-result ${result.succeeded ? "ok" : "failed"}`} role="status" data-testid="test-result">
      <h2>Test delivery of {result.event}</h2>
      <p>{outcome}</p>
      {result.response_body ? (
        <details>
          <summary>Receiver's answer</summary>
          <pre>{result.response_body}</pre>
        </details>
      ) : null}
    </div>
  );
}

/** What the detail page shows beside the webhook: a notice, a secret shown once, a test result, form errors. */
export interface WebhookDetailExtras {
  notice?: string;
  secret?: string;
  secretWhat?: string;
  test?: TriggerWebhookResult;
  form?: WebhookFormValues;
  errors?: FormErrors;
  /** Error of the test, rotate, resend or delete forms. */
  actionErrors?: FormErrors;
}

/** /app/settings/webhooks/{id}: the webhook, its actions (admins), and its recent deliveries. */
export function WebhookDetailPage(props: {
  user: SignedInUser;
  canWrite: boolean;
  webhook: WebhookRow;
  deliveries: readonly WebhookNotificationView[];
  extras: WebhookDetailExtras;
}) {
  const w = props.webhook;
  const base = `${WEBHOOKS_PATH}/${w.id}`;
  const { extras } = props;
  const actionErrors = extras.actionErrors ?? FormErrors.none;
  return (
    <Layout
      title="Webhook"
      user={props.user}
      current={WEBHOOKS_PATH}
      styles={["settings.css"]}
      scripts={["poll-section.js", "copy-field.js"]}
    >
      <p>
        <a href={WEBHOOKS_PATH}>All webhooks</a>
      </p>
      {extras.notice ? (
        <Notice>
          <p>{extras.notice}</p>
        </Notice>
      ) : null}
      {extras.secret ? <SecretNotice secret={extras.secret} what={extras.secretWhat ?? ""} /> : null}
      {extras.test ? <TestResult result={extras.test} /> : null}
      <ErrorSummary errors={actionErrors} />
      <dl class="facts">
        <dt>URL</dt>
        <dd>{w.url}</dd>
        <dt>Active</dt>
        <dd>{w.active ? "Yes" : w.disabledReason ? `No: ${w.disabledReason}` : "No"}</dd>
        <dt>Events</dt>
        <dd>{w.events.join(", ")}</dd>
        <dt>Custom headers</dt>
        <dd>{w.headers.length > 0 ? w.headers.map((h) => h.name).join(", ") : "None"}</dd>
        <dt>Created</dt>
        <dd>{utcTime(w.createdAt)}</dd>
        <dt>Previous secret signs until</dt>
        <dd>{utcTime(w.previousSecretExpiresAt)}</dd>
      </dl>
      {props.canWrite ? (
        <>
          <section aria-labelledby="test-title">
            <h2 id="test-title">Send a test delivery</h2>
            <form method="post" action={`${base}/test`} class="inline-form">
              <CsrfField user={props.user} />
              <label for="f-test-event">Event</label>
              <select id="f-test-event" name="event">
                {testEvents(w).map((e) => (
                  <option value={e} selected={extras.test?.event === e}>
                    {e}
                  </option>
                ))}
              </select>
              <button type="submit">Send test</button>
            </form>
          </section>
          <section aria-labelledby="edit-title">
            <h2 id="edit-title">Edit</h2>
            <WebhookForm
              user={props.user}
              action={base}
              values={extras.form ?? webhookFormValuesOf(w)}
              errors={extras.errors ?? FormErrors.none}
              submit="Save changes"
            />
          </section>
          <section aria-labelledby="secret-title">
            <h2 id="secret-title">Signing secret</h2>
            <form method="post" action={`${base}/rotate-secret`} class="inline-form">
              <CsrfField user={props.user} />
              <p>
                A new secret signs every delivery at once; the replaced one also signs them for 24 hours, so the
                receiver can switch.
              </p>
              <button type="submit">Rotate secret</button>
            </form>
          </section>
          <section aria-labelledby="delete-title">
            <h2 id="delete-title">Delete</h2>
            <form method="post" action={`${base}/delete`} class="inline-form">
              <CsrfField user={props.user} />
              <CheckboxField
                name="confirm"
                label="Yes, delete this webhook and its pending deliveries"
                checked={false}
                errors={actionErrors}
              />
              <button type="submit">Delete webhook</button>
            </form>
          </section>
        </>
      ) : (
        <p class="read-only">Only admins can test, change or delete webhooks.</p>
      )}
      <DeliveriesSection user={props.user} webhook={w} rows={props.deliveries} canWrite={props.canWrite} />
    </Layout>
  );
}
