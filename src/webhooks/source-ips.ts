import ipaddr from "ipaddr.js";

/**
 * Body of `GET /v2/webhooks/ips` (docs/webhooks.md §Webhook endpoints): the addresses webhook deliveries leave from and
 * when that list last changed. Not a JSON:API document, as the reference serves it.
 */
export interface WebhookSourceIps {
  /** IPv4/IPv6 addresses or CIDR ranges, as configured, in configured order. */
  webhook_notification_ips: string[];
  /** ISO 8601 UTC date-time the list was last changed, or null when not configured. */
  last_updated: string | null;
}

/** The configuration `webhookSourceIps` reads (wrangler.toml `[vars]`). */
export interface WebhookSourceIpsConfig {
  /** Comma-separated addresses or CIDR ranges; entries that are neither are skipped. */
  WEBHOOK_SOURCE_IPS?: string;
  /** ISO 8601 date-time the list was last changed; anything else reads as unknown (null). */
  WEBHOOK_SOURCE_IPS_UPDATED_AT?: string;
}

const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/** True for one IPv4/IPv6 address or CIDR range. */
function isAddressOrRange(entry: string): boolean {
  if (ipaddr.isValid(entry)) return true;
  try {
    ipaddr.parseCIDR(entry);
    return true;
  } catch {
    return false;
  }
}

/**
 * The delivery addresses a deployment publishes. A Worker has no fixed egress address of its own: its outbound
 * requests (our webhook deliveries) leave from Cloudflare's shared ranges, which other customers' Workers use too.
 * So the list is whatever the operator configures (e.g. the egress of a proxy or a dedicated-egress product in front
 * of deliveries), empty by default; receivers should verify the signature rather than trust an address
 * (docs/api.md §Compatibility).
 */
export function webhookSourceIps(config: WebhookSourceIpsConfig): WebhookSourceIps {
  const ips = (config.WEBHOOK_SOURCE_IPS ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "" && isAddressOrRange(s));
  const updated = config.WEBHOOK_SOURCE_IPS_UPDATED_AT?.trim() ?? "";
  const valid = ISO_DATE_TIME.test(updated) && !Number.isNaN(Date.parse(updated));
  return {
    webhook_notification_ips: ips,
    last_updated: valid ? new Date(updated).toISOString().replace(/\.\d{3}Z$/, "Z") : null,
  };
}
