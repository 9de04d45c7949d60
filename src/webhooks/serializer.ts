import type { webhooks } from "../db/schema";
import { registerResourceType } from "../lib/jsonapi/include-registry";
import type { ResourceObject } from "../lib/jsonapi/types";
import { WEBHOOK_EVENT_CATALOG } from "./catalog";

/** A `webhooks` row as drizzle returns it. */
export type WebhookRow = typeof webhooks.$inferSelect;

/**
 * Serialises a webhook (docs/webhooks.md §Webhook resource): `url`, `active`, `events`, `secret` (returned on create,
 * get and list, as the reference service does), `headers` (`[{name, value}]` with names as the client gave them, null
 * when there are none), `created_at`, and our extension `previous_secret_expires_at`: after
 * `POST /webhooks/{id}/rotate_secret`, until when deliveries are also signed with the replaced secret (UTC ISO seconds;
 * null when there is none; a past time until the cron clears it means it has ended). The replaced secret itself is
 * never shown. No relationships. The failure bookkeeping (`failing_since`, `disabled_reason`) stays internal.
 */
export function serializeWebhook(row: WebhookRow): ResourceObject {
  return {
    id: row.id,
    type: "webhook",
    attributes: {
      url: row.url,
      active: row.active,
      events: row.events,
      secret: row.secret,
      headers: row.headers.length > 0 ? row.headers : null,
      created_at: row.createdAt,
      previous_secret_expires_at: row.previousSecretExpiresAt,
    },
    links: { self: `/v2/webhooks/${row.id}` },
  };
}

/** JSON:API type `webhook`; nothing to include. */
export const webhookResource = registerResourceType<WebhookRow>({
  type: "webhook",
  serializerName: "V2::WebhookSerializer",
  serialize: serializeWebhook,
  relationships: {},
});

/**
 * `GET /webhooks/events` (docs/webhooks.md §Events, §Webhook endpoints): the catalog as `webhook_event_category`
 * resources.
 */
export function serializeEventCatalog(): ResourceObject[] {
  return WEBHOOK_EVENT_CATALOG.map((category) => ({
    id: category.id,
    type: "webhook_event_category",
    attributes: { name: category.name, events: category.events.map((e) => ({ ...e })) },
  }));
}
