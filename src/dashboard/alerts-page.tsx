import { type Context, Hono } from "hono";
import { NEEDS_THRESHOLD_DAYS, NEEDS_THRESHOLD_HOURS } from "../alerts/conditions";
import { alertRuleDeps } from "../alerts/routes";
import { listAlertsOfRule } from "../alerts/rule-alerts";
import {
  type AlertRuleRow,
  createAlertRule,
  deleteAlertRule,
  getAlertRule,
  getAlertSettings,
  listAlertRules,
  updateAlertRule,
  updateAlertSettings,
} from "../alerts/rule-service";
import { CreateAlertRuleBody, UpdateAlertRuleBody, UpdateAlertSettingsBody } from "../alerts/schemas";
import type { AlertScope } from "../db/schema";
import type { AppEnv } from "../env";
import { ApiError } from "../lib/errors";
import { roleAllows } from "../sessions/session";
import { ALERTS_PATH, AlertRulePage, AlertsPage, type AlertsPageExtras, type RuleFormValues } from "./alerts-views";
import {
  FormErrors,
  type FormValues,
  formChecked,
  formErrorsOf,
  formInteger,
  formList,
  formPairs,
  formString,
  isFormError,
  parseWithSchema,
  readForm,
} from "./forms";
import { htmlErrors, type PageStatus, renderPage } from "./page-response";

/**
 * Least role that may change alert rules and settings (docs/dashboard.md §Roles): members, since the people who act
 * on the alerts (ops desk, dispatch) set them up; viewers read.
 */
export const ALERT_WRITE_ROLE = "member" as const;

/** Alerts shown on a rule's page (its newest). */
const RECENT_ALERTS = 20;
/** Rules shown on the page: an account has at most MAX_ALERT_RULES_PER_ACCOUNT (100), so one page holds them all. */
const RULES_SHOWN = 100;

function canWrite(c: Context<AppEnv>): boolean {
  return roleAllows(c.var.user.role, ALERT_WRITE_ROLE);
}

function requireWrite(c: Context<AppEnv>): void {
  if (!canWrite(c)) throw new ApiError(403, [{ detail: `Changing alerts needs the ${ALERT_WRITE_ROLE} role.` }]);
}

function ruleFormValues(form: FormValues): RuleFormValues {
  return {
    name: formString(form, "name"),
    condition: formString(form, "condition"),
    thresholdDays: formString(form, "threshold_days"),
    thresholdHours: formString(form, "threshold_hours"),
    ports: formString(form, "scope_ports"),
    scacs: formString(form, "scope_scacs"),
    customers: formString(form, "scope_customers"),
    customFields: formString(form, "scope_custom_fields"),
    channelType: formString(form, "channel_type"),
    channelAddress: formString(form, "channel_address"),
    channelUrl: formString(form, "channel_url"),
    delivery: formString(form, "delivery"),
    active: formChecked(form, "active"),
  };
}

/**
 * The rule's REST attributes from the form: only the threshold its condition takes and only the channel field its
 * type takes are sent (the form shows both; the other is left over from a previous choice), the lists as typed
 * (upper-cased codes; the service checks each), and the custom-field pairs one `slug = value` a line.
 */
function ruleAttributes(form: FormValues) {
  const condition = formString(form, "condition");
  const type = formString(form, "channel_type");
  const scope: AlertScope = {};
  const ports = formList(form, "scope_ports").map((s) => s.toUpperCase());
  const scacs = formList(form, "scope_scacs").map((s) => s.toUpperCase());
  const customers = formList(form, "scope_customers");
  const customFields = formPairs(form, "scope_custom_fields", "=");
  if (ports.length > 0) scope.ports = ports;
  if (scacs.length > 0) scope.scacs = scacs;
  if (customers.length > 0) scope.customers = customers;
  if (customFields.length > 0) scope.custom_fields = Object.fromEntries(customFields.map((p) => [p.name, p.value]));
  const name = formString(form, "name");
  return {
    name: name === "" ? null : name,
    condition,
    threshold_days: (NEEDS_THRESHOLD_DAYS as readonly string[]).includes(condition)
      ? formInteger(form, "threshold_days")
      : null,
    threshold_hours: (NEEDS_THRESHOLD_HOURS as readonly string[]).includes(condition)
      ? formInteger(form, "threshold_hours")
      : null,
    scope,
    channel:
      type === "email"
        ? { type, address: formString(form, "channel_address") }
        : { type, url: formString(form, "channel_url") },
    delivery: formString(form, "delivery") || "immediate",
    active: formChecked(form, "active"),
  };
}

async function alertsPage(c: Context<AppEnv>, extras: AlertsPageExtras = {}, status: PageStatus = 200) {
  const accountId = c.var.user.accountId;
  const [settings, { rows, total }] = await Promise.all([
    getAlertSettings(c.var.db, accountId),
    listAlertRules(c.var.db, accountId, { number: 1, size: RULES_SHOWN, sizeGiven: true, offset: 0 }),
  ]);
  return renderPage(
    c,
    <AlertsPage
      user={c.var.user}
      canWrite={canWrite(c)}
      settings={settings}
      rules={rows}
      total={total}
      extras={extras}
    />,
    status,
  );
}

async function rulePage(
  c: Context<AppEnv>,
  rule: AlertRuleRow,
  extras: Omit<Parameters<typeof AlertRulePage>[0], "user" | "canWrite" | "rule" | "alerts"> = {},
  status: PageStatus = 200,
) {
  const { rows } = await listAlertsOfRule(c.var.db, c.var.user.accountId, rule.id, {
    number: 1,
    size: RECENT_ALERTS,
    sizeGiven: true,
    offset: 0,
  });
  return renderPage(
    c,
    <AlertRulePage user={c.var.user} canWrite={canWrite(c)} rule={rule} alerts={rows} {...extras} />,
    status,
  );
}

/**
 * The alerts pages under /app/settings/alerts (issue 28 §Settings; docs/dashboard.md §Alerts): the account's alert
 * settings (`PATCH /alert_settings`) and its rules (`POST`, `PATCH`, `DELETE /alert_rules`), each form checked by the
 * REST route's body schema and then by the same service function (src/alerts/rule-service.ts), refusals shown next
 * to their field with nothing stored. Everybody signed in reads; writing needs {@link ALERT_WRITE_ROLE}.
 */
export const alertPages = new Hono<AppEnv>();
alertPages.use("*", htmlErrors);

alertPages.get("/", (c) => alertsPage(c));

alertPages.post("/settings", async (c) => {
  requireWrite(c);
  const form = await readForm(c);
  const hour = (name: string) => formInteger(form, name);
  const attributes = {
    time_zone: formString(form, "time_zone"),
    digest_hour: hour("digest_hour") ?? 8,
    quiet_hours_start: hour("quiet_hours_start"),
    quiet_hours_end: hour("quiet_hours_end"),
  };
  try {
    const body = parseWithSchema(UpdateAlertSettingsBody, { data: { type: "alert_settings", attributes } });
    await updateAlertSettings({ db: c.var.db, clock: c.var.clock }, c.var.user.accountId, body.data.attributes);
    return alertsPage(c, { notice: "Alert settings saved." });
  } catch (err) {
    if (!isFormError(err)) throw err;
    const current = await getAlertSettings(c.var.db, c.var.user.accountId);
    const typed = {
      ...current,
      timeZone: attributes.time_zone,
      digestHour: typeof attributes.digest_hour === "number" ? attributes.digest_hour : current.digestHour,
      quietHoursStart: typeof attributes.quiet_hours_start === "number" ? attributes.quiet_hours_start : null,
      quietHoursEnd: typeof attributes.quiet_hours_end === "number" ? attributes.quiet_hours_end : null,
    };
    return alertsPage(c, { settingsErrors: formErrorsOf(err), settingsValues: typed }, err.status);
  }
});

alertPages.post("/", async (c) => {
  requireWrite(c);
  const form = await readForm(c);
  try {
    const body = parseWithSchema(CreateAlertRuleBody, {
      data: { type: "alert_rule", attributes: ruleAttributes(form) },
    });
    const row = await createAlertRule(alertRuleDeps(c), c.var.user.accountId, body.data.attributes);
    return rulePage(c, row, { notice: "Alert rule created.", secret: row.secret ?? undefined }, 201);
  } catch (err) {
    if (isFormError(err)) {
      return alertsPage(c, { ruleForm: ruleFormValues(form), ruleErrors: formErrorsOf(err) }, err.status);
    }
    throw err;
  }
});

// The settings form's URL opened with GET goes to the page (it is no rule id).
alertPages.get("/settings", (c) => c.redirect(ALERTS_PATH, 303));
// An action's URL opened with GET (the address bar after a form post, a bookmark) goes to its page instead of a 405.
alertPages.get("/:id/:action{delete}", (c) =>
  c.redirect(`${ALERTS_PATH}/${encodeURIComponent(c.req.param("id"))}`, 303),
);

alertPages.get("/:id", async (c) => {
  const row = await getAlertRule(c.var.db, c.var.user.accountId, c.req.param("id"));
  return rulePage(c, row);
});

alertPages.post("/:id", async (c) => {
  requireWrite(c);
  const id = c.req.param("id");
  const current = await getAlertRule(c.var.db, c.var.user.accountId, id);
  const form = await readForm(c);
  try {
    const attributes = ruleAttributes(form);
    const body = parseWithSchema(UpdateAlertRuleBody, { data: { type: "alert_rule", id, attributes } });
    const row = await updateAlertRule(alertRuleDeps(c), c.var.user.accountId, id, body.data.attributes);
    const newSecret = row.secret !== null && row.secret !== current.secret ? row.secret : undefined;
    return rulePage(c, row, { notice: "Saved.", secret: newSecret });
  } catch (err) {
    if (isFormError(err)) {
      return rulePage(c, current, { form: ruleFormValues(form), errors: formErrorsOf(err) }, err.status);
    }
    throw err;
  }
});

alertPages.post("/:id/delete", async (c) => {
  requireWrite(c);
  const id = c.req.param("id");
  const row = await getAlertRule(c.var.db, c.var.user.accountId, id);
  if (!formChecked(await readForm(c), "confirm")) {
    const actionErrors = new FormErrors([{ field: "confirm", detail: "Tick the box to confirm the deletion." }]);
    return rulePage(c, row, { actionErrors }, 422);
  }
  await deleteAlertRule(c.var.db, c.var.user.accountId, id);
  return c.redirect(ALERTS_PATH, 303);
});
