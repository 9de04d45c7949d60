import { z } from "@hono/zod-openapi";
import { listDocumentSchema, resourceSchema, singleDocumentSchema } from "../lib/openapi";
import { freeText } from "../lib/validation";
import { ALERT_CONDITIONS } from "./conditions";

// Structure and types of alert bodies are checked here (zod → 422 with pointers); the rules that need more (the
// condition's thresholds, UN/LOCODEs and SCACs of the scope, the channel's address or the SSRF rules of its URL) by
// src/alerts/rule-service.ts, so every failing field is reported together.

const RAW_MAX = 8192;
const rawList = z.array(z.string().max(RAW_MAX)).max(200);

const ScopeInput = z
  .strictObject({
    ports: rawList
      .optional()
      .openapi({ description: "UN/LOCODEs of the POD, e.g. `USLAX`.", example: ["USLAX", "USLGB"] }),
    scacs: rawList.optional().openapi({ description: "Shipping line SCACs.", example: ["MAEU"] }),
    customers: rawList.optional().openapi({ description: "Party ids: the shipment's customer." }),
    custom_fields: z
      .record(freeText(200), freeText(1024))
      .optional()
      .openapi({
        description: "Custom field api_slug → value the box (or its shipment) must carry.",
        example: { lane: "transpacific" },
      }),
  })
  .openapi("AlertRuleScope", {
    description:
      "Narrows the boxes the rule watches: every list given must contain the box's value; empty or absent lists do not narrow.",
  });

const ChannelInput = z
  .strictObject({
    type: z.string().max(RAW_MAX).openapi({ description: "`email`, `slack`, `teams` or `webhook`.", example: "slack" }),
    address: z
      .string()
      .max(RAW_MAX)
      .nullable()
      .optional()
      .openapi({ description: "E-mail channels: the recipient.", example: "ops@example.com" }),
    url: z.string().max(RAW_MAX).nullable().optional().openapi({
      description:
        "Slack (incoming webhook), Teams (workflow webhook) and webhook channels: an HTTPS URL passing the webhook SSRF rules (public DNS name, no IP address, default port or 1024–65535).",
      example: "https://hooks.slack.com/services/T000/B000/XXXX",
    }),
  })
  .openapi("AlertRuleChannel");

const conditionDescription = `One of ${ALERT_CONDITIONS.map((c) => `\`${c}\``).join(", ")} (docs/api.md §Alert rules).`;

const ruleAttributes = {
  name: freeText(200).nullable().optional().openapi({ example: "LA boxes: free time" }),
  condition: z.string().max(RAW_MAX).openapi({ description: conditionDescription, example: "free_time_ending" }),
  threshold_days: z.number().int().nullable().optional().openapi({
    description:
      "`free_time_ending`, `empty_return_due`: alert when the date is at most this many local days away (0–60). The dates are the charges calculator's: the terminal's LFD, else the account's matching tariff's; the empty return's due date needs a `detention` or `combined` tariff (none: no alert).",
    example: 2,
  }),
  threshold_hours: z.number().int().nullable().optional().openapi({
    description: "`eta_changed`: alert when the POD ETA moves by more than this many hours (1–720).",
  }),
  scope: ScopeInput.nullable().optional(),
  delivery: z.string().max(RAW_MAX).optional().openapi({
    description: "`immediate` (default) or `digest`: gathered into the account's daily digest (GET /alert_settings).",
  }),
  active: z.boolean().optional().openapi({ description: "Default true." }),
};

/** Body of `POST /alert_rules`: `condition` and `channel` required; `data.type` optional (`alert_rule`). */
export const CreateAlertRuleBody = z
  .strictObject({
    data: z.strictObject({
      type: z.literal("alert_rule").optional(),
      attributes: z.strictObject({ ...ruleAttributes, channel: ChannelInput }),
    }),
  })
  .openapi("CreateAlertRule");

/** Body of `PATCH /alert_rules/{id}`: any attribute of create. */
export const UpdateAlertRuleBody = z
  .strictObject({
    data: z.strictObject({
      type: z.literal("alert_rule").optional(),
      id: z.string().max(64).optional(),
      attributes: z.strictObject({
        ...ruleAttributes,
        condition: ruleAttributes.condition.optional(),
        channel: ChannelInput.optional(),
      }),
    }),
  })
  .openapi("UpdateAlertRule");

export const AlertRuleAttributes = z
  .object({
    name: z.string().nullable(),
    condition: z.string(),
    threshold_days: z.number().int().nullable(),
    threshold_hours: z.number().int().nullable(),
    scope: z.record(z.string(), z.unknown()),
    channel: z.object({ type: z.string(), address: z.string().nullable(), url: z.string().nullable() }),
    delivery: z.string(),
    active: z.boolean(),
    signing_secret: z.string().nullable().openapi({
      description:
        "Webhook channels: the secret deliveries are signed with (as webhooks are, docs/webhooks.md). Null for other channels.",
    }),
    last_delivery_status: z
      .string()
      .nullable()
      .openapi({ description: "`succeeded` or `failed`: the latest attempt on the channel." }),
    last_delivery_at: z.string().nullable(),
    last_error: z
      .string()
      .nullable()
      .openapi({ description: "Why the latest attempt failed (HTTP status, SMTP reply, refused URL)." }),
    failing_since: z
      .string()
      .nullable()
      .openapi({ description: "Start of the current run of failed attempts; null after a success." }),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi("AlertRuleAttributes");

export const AlertRuleResourceSchema = resourceSchema("alert_rule", AlertRuleAttributes, "AlertRule");
export const AlertRuleDocument = singleDocumentSchema(AlertRuleResourceSchema, "AlertRuleDocument");
export const AlertRuleListDocument = listDocumentSchema(AlertRuleResourceSchema, "AlertRuleList");

/** Body of `PATCH /alert_settings`. */
export const UpdateAlertSettingsBody = z
  .strictObject({
    data: z.strictObject({
      type: z.literal("alert_settings").optional(),
      attributes: z.strictObject({
        time_zone: z
          .string()
          .max(RAW_MAX)
          .optional()
          .openapi({ description: "IANA time zone.", example: "America/Los_Angeles" }),
        digest_hour: z
          .number()
          .int()
          .min(0)
          .max(23)
          .optional()
          .openapi({ description: "Local hour of the daily digest.", example: 7 }),
        quiet_hours_start: z.number().int().min(0).max(23).nullable().optional().openapi({ example: 20 }),
        quiet_hours_end: z.number().int().min(0).max(23).nullable().optional().openapi({ example: 6 }),
      }),
    }),
  })
  .openapi("UpdateAlertSettings");

export const AlertSettingsAttributes = z
  .object({
    time_zone: z.string(),
    digest_hour: z.number().int(),
    quiet_hours_start: z.number().int().nullable(),
    quiet_hours_end: z.number().int().nullable(),
    last_digest_on: z.string().nullable(),
  })
  .openapi("AlertSettingsAttributes");

export const AlertSettingsDocument = singleDocumentSchema(
  resourceSchema("alert_settings", AlertSettingsAttributes, "AlertSettings"),
  "AlertSettingsDocument",
);

/** An `alert` as `GET /alert_rules/{id}/alerts` lists it (src/alerts/rule-alerts.ts `serializeAlert`). */
export const AlertAttributes = z
  .object({
    condition: z.string().nullable(),
    episode_key: z.string().openapi({ description: "What the rule alerts once for, e.g. `free_time:2030-03-05`." }),
    status: z.string().openapi({
      description:
        "`pending` (due, or held by quiet hours), `digest` (waiting for the daily digest), `digested`, `succeeded`, `failed`.",
    }),
    attempts: z.number().int(),
    last_error: z.string().nullable().openapi({ description: "Why the latest attempt failed." }),
    channel_type: z.string(),
    delivered_at: z.string().nullable(),
    created_at: z.string(),
  })
  .openapi("AlertAttributes");

export const AlertListDocument = listDocumentSchema(resourceSchema("alert", AlertAttributes, "Alert"), "AlertList");
