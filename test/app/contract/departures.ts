/**
 * The one allow-list of deliberate departures from the reference service's response schemas and captured samples
 * (docs/api.md §Compatibility), each with its reason. test/app/contract.test.ts fails on any schema error or
 * missing sample name not listed here, and on an entry here that no longer matches anything (so the list stays true).
 * docs/api.md §Compatibility lists the same departures for clients.
 */
export interface Departure {
  /** What departs: `<schema or type>` + ajv instance path (`raw_event/attributes/original_event`) or sampled name. */
  where: string;
  /** ajv error keyword (`type`, `required`, `format`, `enum`, `const`) or `missing-name` for the sample name diff. */
  kind: string;
  /** Why we depart, and what a client sees instead. */
  reason: string;
}

export const DEPARTURES: Departure[] = [
  {
    where: "webhook_ips/last_updated",
    kind: "type",
    reason:
      "A Worker has no egress address of its own (deliveries leave from Cloudflare's shared ranges): with no WEBHOOK_SOURCE_IPS configured the list is empty and last_updated null, not a date we could not vouch for.",
  },
];
