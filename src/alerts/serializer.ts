import { registerResourceType } from "../lib/jsonapi/include-registry";
import type { ResourceObject } from "../lib/jsonapi/types";
import type { AlertRuleRow, AlertSettingsRow } from "./rule-service";

/**
 * Serialises an alert rule (docs/api.md §Alert rules): the wire names of issue 27 (`condition`, `threshold_days`,
 * `threshold_hours`, `scope`, `channel {type, address, url}`, `active`) and the extensions `name`, `delivery`,
 * `signing_secret` (webhook channels) and the channel's failure bookkeeping (`last_delivery_status`,
 * `last_delivery_at`, `last_error`, `failing_since`).
 */
export function serializeAlertRule(row: AlertRuleRow): ResourceObject {
  return {
    id: row.id,
    type: "alert_rule",
    attributes: {
      name: row.name,
      condition: row.condition,
      threshold_days: row.thresholdDays,
      threshold_hours: row.thresholdHours,
      scope: row.scope,
      channel: { type: row.channelType, address: row.channelAddress, url: row.channelUrl },
      delivery: row.delivery,
      active: row.active,
      signing_secret: row.secret,
      last_delivery_status: row.lastDeliveryStatus,
      last_delivery_at: row.lastDeliveryAt,
      last_error: row.lastError,
      failing_since: row.failingSince,
      created_at: row.createdAt,
      updated_at: row.updatedAt,
    },
    links: { self: `/v2/alert_rules/${row.id}` },
  };
}

/** JSON:API type `alert_rule`; nothing to include. */
export const alertRuleResource = registerResourceType<AlertRuleRow>({
  type: "alert_rule",
  serializerName: "V2::AlertRuleSerializer",
  serialize: serializeAlertRule,
  relationships: {},
});

/** The account's alert settings as the singleton `alert_settings` resource (id: the account id). */
export function serializeAlertSettings(row: AlertSettingsRow): ResourceObject {
  return {
    id: row.accountId,
    type: "alert_settings",
    attributes: {
      time_zone: row.timeZone,
      digest_hour: row.digestHour,
      quiet_hours_start: row.quietHoursStart,
      quiet_hours_end: row.quietHoursEnd,
      last_digest_on: row.lastDigestOn,
    },
    links: { self: "/v2/alert_settings" },
  };
}
