import { and, eq, inArray, sql } from "drizzle-orm";
import type { Database } from "../db/client";
import { type AlertScope, accountResourceCounts, alertRules, alertSettings, alerts } from "../db/schema";
import type { Clock } from "../lib/clock";
import { toIsoSeconds } from "../lib/clock";
import { bumpCount, countQuery } from "../lib/counts";
import { ApiError, type ErrorObject } from "../lib/errors";
import { newId } from "../lib/ids";
import type { PageRequest } from "../lib/jsonapi/pagination";
import { listPage } from "../lib/list-query";
import { ownedBy } from "../lib/tenant";
import { generateWebhookSecret } from "../webhooks/service";
import { checkWebhookUrl } from "../webhooks/ssrf";
import { ALERT_CONDITIONS, NEEDS_THRESHOLD_DAYS, NEEDS_THRESHOLD_HOURS } from "./conditions";

/** An `alert_rules` row. */
export type AlertRuleRow = typeof alertRules.$inferSelect;
/** An `alert_settings` row (or the defaults of an account without one). */
export type AlertSettingsRow = typeof alertSettings.$inferSelect;

type FieldError = Omit<ErrorObject, "status" | "title">;

/** What the rule service needs. */
export interface AlertRuleDeps {
  db: Database;
  clock: Clock;
  /** Hosts that may use `http://` (`WEBHOOK_ALLOW_INSECURE_HOSTS`): the same SSRF rules as webhooks. */
  allowInsecureHosts: readonly string[];
}

/** Most alert rules an account may have (each box update evaluates them all). */
export const MAX_ALERT_RULES_PER_ACCOUNT = 100;
/** Largest `threshold_days` (days ahead a date-driven alert may look). */
export const MAX_THRESHOLD_DAYS = 60;
/** Largest `threshold_hours` (an ETA move of more than 30 days is not a threshold). */
export const MAX_THRESHOLD_HOURS = 720;
/** Most values per scope list, and custom field pairs. */
export const MAX_SCOPE_VALUES = 50;

/** Channel types (issue 27 §2). */
export const CHANNEL_TYPES = ["email", "slack", "teams", "webhook"] as const;
/** Delivery modes: each alert at once, or gathered into the account's daily digest. */
export const DELIVERY_MODES = ["immediate", "digest"] as const;

const UN_LOCODE = /^[A-Z]{2}[A-Z2-9]{3}$/;
const SCAC = /^[A-Z]{2,4}$/;
/** A pragmatic address check (RFC 5321 lengths, one @, a dotted domain, no spaces or angle brackets). */
const EMAIL =
  /^[^\s@<>(),;:"]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;

/** Rule input after zod (structure and types checked there; the rules here). */
export interface AlertRuleInput {
  name?: string | null;
  condition?: string;
  threshold_days?: number | null;
  threshold_hours?: number | null;
  scope?: AlertScope | null;
  channel?: { type: string; address?: string | null; url?: string | null };
  delivery?: string;
  active?: boolean;
}

const P = "/data/attributes";

function validateScope(scope: AlertScope, errors: FieldError[]): AlertScope {
  const out: AlertScope = {};
  const list = (key: "ports" | "scacs" | "customers", pattern: RegExp | null, what: string) => {
    const values = scope[key];
    if (values === undefined) return;
    if (values.length > MAX_SCOPE_VALUES) {
      errors.push({
        detail: `At most ${MAX_SCOPE_VALUES} ${key}.`,
        source: { pointer: `${P}/scope/${key}` },
        code: "too_long",
      });
      return;
    }
    values.forEach((v, i) => {
      if (pattern && !pattern.test(v)) {
        errors.push({ detail: `${v} is not ${what}.`, source: { pointer: `${P}/scope/${key}/${i}` }, code: "invalid" });
      }
    });
    if (values.length > 0) out[key] = [...new Set(values)];
  };
  list("ports", UN_LOCODE, "a UN/LOCODE (e.g. USLAX)");
  list("scacs", SCAC, "a SCAC (2–4 capital letters)");
  list("customers", /^[0-9a-f-]{36}$/i, "a party id");
  if (scope.custom_fields !== undefined) {
    const pairs = Object.entries(scope.custom_fields);
    if (pairs.length > MAX_SCOPE_VALUES) {
      errors.push({
        detail: `At most ${MAX_SCOPE_VALUES} custom fields.`,
        source: { pointer: `${P}/scope/custom_fields` },
        code: "too_long",
      });
    } else if (pairs.length > 0) out.custom_fields = Object.fromEntries(pairs);
  }
  return out;
}

/** The validated columns of a rule, or every failing field. */
function validateRule(
  deps: AlertRuleDeps,
  input: Required<Pick<AlertRuleInput, "condition" | "channel">> & AlertRuleInput,
) {
  const errors: FieldError[] = [];
  const condition = input.condition;
  if (!(ALERT_CONDITIONS as readonly string[]).includes(condition)) {
    errors.push({
      detail: `Condition must be one of ${ALERT_CONDITIONS.join(", ")}.`,
      source: { pointer: `${P}/condition` },
      code: "inclusion",
    });
  }
  const days = input.threshold_days ?? null;
  const hours = input.threshold_hours ?? null;
  const needsDays = (NEEDS_THRESHOLD_DAYS as readonly string[]).includes(condition);
  const needsHours = (NEEDS_THRESHOLD_HOURS as readonly string[]).includes(condition);
  if (needsDays && days === null) {
    errors.push({
      detail: `threshold_days is required for ${condition}.`,
      source: { pointer: `${P}/threshold_days` },
      code: "blank",
    });
  } else if (days !== null && (!needsDays || days < 0 || days > MAX_THRESHOLD_DAYS)) {
    errors.push({
      detail: needsDays
        ? `threshold_days must be 0–${MAX_THRESHOLD_DAYS}.`
        : `threshold_days does not apply to ${condition}.`,
      source: { pointer: `${P}/threshold_days` },
      code: "invalid",
    });
  }
  if (needsHours && hours === null) {
    errors.push({
      detail: `threshold_hours is required for ${condition}.`,
      source: { pointer: `${P}/threshold_hours` },
      code: "blank",
    });
  } else if (hours !== null && (!needsHours || hours < 1 || hours > MAX_THRESHOLD_HOURS)) {
    errors.push({
      detail: needsHours
        ? `threshold_hours must be 1–${MAX_THRESHOLD_HOURS}.`
        : `threshold_hours does not apply to ${condition}.`,
      source: { pointer: `${P}/threshold_hours` },
      code: "invalid",
    });
  }
  const scope = validateScope(input.scope ?? {}, errors);
  const ch = input.channel;
  let address: string | null = null;
  let url: string | null = null;
  if (!(CHANNEL_TYPES as readonly string[]).includes(ch.type)) {
    errors.push({
      detail: `Channel type must be one of ${CHANNEL_TYPES.join(", ")}.`,
      source: { pointer: `${P}/channel/type` },
      code: "inclusion",
    });
  } else if (ch.type === "email") {
    if (ch.url)
      errors.push({
        detail: "An e-mail channel takes an address, not a url.",
        source: { pointer: `${P}/channel/url` },
        code: "invalid",
      });
    const a = (ch.address ?? "").trim();
    if (a.length > 254 || !EMAIL.test(a)) {
      errors.push({
        detail: "Address must be an e-mail address (name@domain).",
        source: { pointer: `${P}/channel/address` },
        code: "invalid",
      });
    } else address = a;
  } else {
    if (ch.address)
      errors.push({
        detail: `A ${ch.type} channel takes a url, not an address.`,
        source: { pointer: `${P}/channel/address` },
        code: "invalid",
      });
    const check = checkWebhookUrl(ch.url ?? "", deps.allowInsecureHosts);
    if (!check.ok) errors.push({ detail: check.detail, source: { pointer: `${P}/channel/url` }, code: check.code });
    else url = check.url.href;
  }
  const delivery = input.delivery ?? "immediate";
  if (!(DELIVERY_MODES as readonly string[]).includes(delivery)) {
    errors.push({
      detail: "Delivery must be immediate or digest.",
      source: { pointer: `${P}/delivery` },
      code: "inclusion",
    });
  }
  if (errors.length > 0) throw new ApiError(422, errors);
  return {
    condition,
    thresholdDays: days,
    thresholdHours: hours,
    scope,
    channelType: ch.type,
    channelAddress: address,
    channelUrl: url,
    delivery,
  };
}

/**
 * Creates an alert rule (docs/api.md §Alert rules). Every rule is checked and every failing field reported together
 * (422, `source.pointer`); nothing is written then. A `webhook` channel gets a signing secret.
 * @throws ApiError 422; 422 `limit_reached` past {@link MAX_ALERT_RULES_PER_ACCOUNT}.
 */
export async function createAlertRule(
  deps: AlertRuleDeps,
  accountId: string,
  input: AlertRuleInput & { condition: string; channel: NonNullable<AlertRuleInput["channel"]> },
): Promise<AlertRuleRow> {
  const v = validateRule(deps, input);
  const { db } = deps;
  const [counted] = await countQuery(db, accountId, "alert_rule");
  if ((counted?.count ?? 0) >= MAX_ALERT_RULES_PER_ACCOUNT) {
    throw new ApiError(422, [
      {
        detail: `An account can have at most ${MAX_ALERT_RULES_PER_ACCOUNT} alert rules.`,
        source: { pointer: "/data" },
        code: "limit_reached",
      },
    ]);
  }
  const now = toIsoSeconds(deps.clock.now());
  const row: AlertRuleRow = {
    id: newId(),
    accountId,
    name: input.name ?? null,
    ...v,
    secret: v.channelType === "webhook" ? generateWebhookSecret() : null,
    active: input.active ?? true,
    lastDeliveryStatus: null,
    lastDeliveryAt: null,
    lastError: null,
    failingSince: null,
    createdAt: now,
    updatedAt: now,
  };
  await db.batch([db.insert(alertRules).values(row), bumpCount(db, accountId, "alert_rule", 1)]);
  return row;
}

/** One rule of the account. @throws ApiError 404 when absent or another account's. */
export async function getAlertRule(db: Database, accountId: string, id: string): Promise<AlertRuleRow> {
  const [row] = await db
    .select()
    .from(alertRules)
    .where(and(ownedBy(alertRules.accountId, accountId), eq(alertRules.id, id)))
    .limit(1);
  if (!row) throw ApiError.notFound("Couldn't find AlertRule");
  return row;
}

/** A page of the account's rules, newest first, with the total. */
export async function listAlertRules(db: Database, accountId: string, page: PageRequest) {
  return listPage(db, alertRules, "alert_rule", accountId, [], page);
}

/**
 * Updates a rule: the given fields replace the stored ones and the whole rule is checked again (a condition change
 * may need a threshold). A new channel starts its failure bookkeeping afresh (and a new `webhook` channel gets a new
 * secret only when it had none).
 * @throws ApiError 404; 422 for invalid fields.
 */
export async function updateAlertRule(
  deps: AlertRuleDeps,
  accountId: string,
  id: string,
  input: AlertRuleInput,
): Promise<AlertRuleRow> {
  const row = await getAlertRule(deps.db, accountId, id);
  const merged = {
    name: input.name !== undefined ? input.name : row.name,
    condition: input.condition ?? row.condition,
    threshold_days: input.threshold_days !== undefined ? input.threshold_days : row.thresholdDays,
    threshold_hours: input.threshold_hours !== undefined ? input.threshold_hours : row.thresholdHours,
    scope: input.scope !== undefined ? input.scope : row.scope,
    channel: input.channel ?? { type: row.channelType, address: row.channelAddress, url: row.channelUrl },
    delivery: input.delivery ?? row.delivery,
  };
  const v = validateRule(deps, merged);
  const channelChanged =
    v.channelType !== row.channelType || v.channelAddress !== row.channelAddress || v.channelUrl !== row.channelUrl;
  const next: AlertRuleRow = {
    ...row,
    name: merged.name ?? null,
    ...v,
    secret: v.channelType === "webhook" ? (row.secret ?? generateWebhookSecret()) : null,
    active: input.active ?? row.active,
    ...(channelChanged ? { lastDeliveryStatus: null, lastDeliveryAt: null, lastError: null, failingSince: null } : {}),
    updatedAt: toIsoSeconds(deps.clock.now()),
  };
  const { id: _id, accountId: _a, createdAt: _c, ...set } = next;
  const update = deps.db
    .update(alertRules)
    .set(set)
    .where(and(eq(alertRules.accountId, accountId), eq(alertRules.id, id)));
  if (!channelChanged) await update;
  else {
    // What is still to be sent (pending, or waiting for the digest) goes to the new channel.
    await deps.db.batch([
      update,
      deps.db
        .update(alerts)
        .set({ channelType: v.channelType, channelTarget: v.channelAddress ?? v.channelUrl ?? "" })
        .where(
          and(eq(alerts.accountId, accountId), eq(alerts.ruleId, id), inArray(alerts.status, ["pending", "digest"])),
        ),
    ]);
  }
  return next;
}

/** Deletes a rule (its alerts stay as history; pending ones are not sent: delivery needs the rule). @throws 404. */
export async function deleteAlertRule(db: Database, accountId: string, id: string): Promise<void> {
  await getAlertRule(db, accountId, id);
  const deleted = sql`select count(*) from alert_rules r where r.id = ${id} and r.account_id = ${accountId}`;
  await db.batch([
    db
      .update(accountResourceCounts)
      .set({ count: sql`${accountResourceCounts.count} - (${deleted})` })
      .where(and(eq(accountResourceCounts.accountId, accountId), eq(accountResourceCounts.resource, "alert_rule"))),
    db.delete(alertRules).where(and(eq(alertRules.accountId, accountId), eq(alertRules.id, id))),
  ]);
}

/** The settings of an account without a row: UTC, digest at 08:00, no quiet hours. */
export function defaultAlertSettings(accountId: string): AlertSettingsRow {
  return {
    accountId,
    timeZone: "UTC",
    digestHour: 8,
    quietHoursStart: null,
    quietHoursEnd: null,
    lastDigestOn: null,
    updatedAt: "1970-01-01T00:00:00Z",
  };
}

/** The account's alert settings (the defaults when never set). */
export async function getAlertSettings(db: Database, accountId: string): Promise<AlertSettingsRow> {
  const [row] = await db.select().from(alertSettings).where(eq(alertSettings.accountId, accountId)).limit(1);
  return row ?? defaultAlertSettings(accountId);
}

/** Whether `zone` is an IANA time zone this runtime knows. */
export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
    return zone.length > 0 && zone.length <= 64;
  } catch {
    return false;
  }
}

/**
 * Updates the account's alert settings (`time_zone`, `digest_hour`, `quiet_hours_start`, `quiet_hours_end`): all
 * failing fields reported together. Quiet hours are both set or both null, and not equal.
 * @throws ApiError 422.
 */
export async function updateAlertSettings(
  deps: Pick<AlertRuleDeps, "db" | "clock">,
  accountId: string,
  input: {
    time_zone?: string;
    digest_hour?: number;
    quiet_hours_start?: number | null;
    quiet_hours_end?: number | null;
  },
): Promise<AlertSettingsRow> {
  const current = await getAlertSettings(deps.db, accountId);
  const errors: FieldError[] = [];
  const timeZone = input.time_zone ?? current.timeZone;
  if (!isTimeZone(timeZone))
    errors.push({
      detail: `${timeZone} is not an IANA time zone.`,
      source: { pointer: `${P}/time_zone` },
      code: "invalid",
    });
  const start = input.quiet_hours_start !== undefined ? input.quiet_hours_start : current.quietHoursStart;
  const end = input.quiet_hours_end !== undefined ? input.quiet_hours_end : current.quietHoursEnd;
  if ((start === null) !== (end === null) || (start !== null && start === end)) {
    errors.push({
      detail: "quiet_hours_start and quiet_hours_end are both hours 0–23 (and differ), or both null.",
      source: { pointer: `${P}/${start === null ? "quiet_hours_start" : "quiet_hours_end"}` },
      code: "invalid",
    });
  }
  if (errors.length > 0) throw new ApiError(422, errors);
  const row: AlertSettingsRow = {
    ...current,
    timeZone,
    digestHour: input.digest_hour ?? current.digestHour,
    quietHoursStart: start,
    quietHoursEnd: end,
    updatedAt: toIsoSeconds(deps.clock.now()),
  };
  const { accountId: _a, ...set } = row;
  await deps.db.insert(alertSettings).values(row).onConflictDoUpdate({ target: alertSettings.accountId, set });
  return row;
}
