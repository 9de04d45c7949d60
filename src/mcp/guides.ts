/**
 * The two guide resources the reference server also offers (docs/mcp.md §Resources, issue 16 §9): which tool answers
 * which question (`svc://docs/mcp-query-guidance`, markdown) and which columns to show for each list tool
 * (`svc://docs/list-display-columns`, JSON), fetched once instead of repeated in every list result. Static text,
 * no account data: reading them costs no API request.
 */

/** URI of the query-guidance document. */
export const QUERY_GUIDANCE_URI = "svc://docs/mcp-query-guidance";
/** URI of the list-display-columns catalog. */
export const LIST_COLUMNS_URI = "svc://docs/list-display-columns";

/** Question → the tool calls that answer it, in order (the markdown of {@link QUERY_GUIDANCE_URI}). */
const INTENTS: readonly [question: string, answer: string][] = [
  [
    "Where is my container / what is its status?",
    "search_container (number) → get_container (id). current_status is authoritative; location shows the POD terminal.",
  ],
  [
    "Can it be picked up? When is the last free day?",
    "get_container: readiness.status (ready = available and no hold with status `hold`), last_free_day.pickup_lfd_local and urgency (overdue once the LFD instant has passed, imminent within 48 h).",
  ],
  [
    "What does it owe / which holds block it?",
    "get_container: holds (status hold = active) and fees.sum_by_currency (the terminal's `total` line is excluded).",
  ],
  [
    "When does the ship arrive? Is it late?",
    "get_shipment_details: port_of_discharge.eta vs original_eta and delay.pod_eta_shift_hours; vessel and voyage.",
  ],
  [
    "What happened so far?",
    "get_container_transport_events: timeline by journey phase, latest_event = where the box is now. The svc://docs/milestone-glossary resource explains each event.",
  ],
  [
    "Which vessels and ports does it pass? Where is the ship now?",
    "get_container_route (paid `routing` feature; current_vessel = position now); without it, get_container_transport_events and get_shipment_details.",
  ],
  ["Show it on a map", "get_container_map: GeoJSON of ports, legs and the vessel (paid `routing` feature)."],
  [
    "Will I pay demurrage or detention? How much if it goes out tomorrow?",
    "get_demurrage_report (id): under the account's tariffs, the LFD and its basis (terminal LFD or tariff), chargeable days, amount to date and if out tomorrow, and a ledger with the days not chargeable because the box could not be picked up. Without id: the boxes accruing or at risk, with totals per currency.",
  ],
  [
    "What is in this bill of lading / booking?",
    "search_container with the BL or booking number: the shipment comes with its containers (ids, numbers, statuses).",
  ],
  [
    "Start tracking a number",
    "track_container (number; scac when known). It creates nothing when the number is already tracked, impossible (invalid_number) or has a wrong check digit (needs_confirmation: ask the user about suggested_number).",
  ],
  ["Which carrier is this? What is its SCAC?", "get_supported_shipping_lines with search (name or SCAC)."],
  [
    "Worklists: what arrives / is overdue / is on hold?",
    "list_containers (status, port, carrier, updated_after) or list_shipments (status, port, carrier, number); page with next_page. Columns to show: svc://docs/list-display-columns.",
  ],
  ["Did my tracking requests work?", "list_tracking_requests (status failed → failed_reason; created → shipment_id)."],
  [
    "What does the BL / arrival notice for this box say?",
    "list_documents (document_types, file_name; each row has the BL, booking and container numbers read from it) → get_document: every field read with its confidence and source text, the e-mail it came in, the shipments/containers linked to it. Compare with get_container / get_shipment_details: a low confidence or a mismatch is worth a human look.",
  ],
];

/** The query-guidance markdown: intents mapped to tools, argument habits, and what errors mean. */
export function queryGuidanceMarkdown(): string {
  return [
    "# Which tool answers which question",
    "",
    ...INTENTS.map(([q, a]) => `- **${q}** ${a}`),
    "",
    "## Arguments",
    "",
    "- Container and shipment arguments take the id or the number itself (container, BL or booking number).",
    "- Unknown arguments are rejected by name; the reference server's names are accepted too (tracking_stopped, containerNumber, bookingNumber, filter[...], page[size], page[number], intent, include as a comma-separated string).",
    "- Lists are paged: page (1-based) and page_size (default 25, at most 100); next_page is null on the last page.",
    "",
    "## Errors",
    "",
    '- "Not found": not in this account; search_container first. "Invalid argument `x`": fix argument x as sent.',
    '- "Rate limited … retry after N seconds": wait that long (the limit is shared with the REST API).',
    '- "Feature not enabled": a paid feature the account lacks; use the suggested alternative.',
  ].join("\n");
}

/** One column of a list: the field of the tool's item and its header. */
export interface DisplayColumn {
  field: string;
  header: string;
}

/** Columns per list tool: `default` for a table, plus column sets for common intents. */
export type ListDisplayColumns = Record<string, Record<string, DisplayColumn[]>>;

const col = (field: string, header: string): DisplayColumn => ({ field, header });

/**
 * The list-display-columns catalog: for each list tool, column sets by intent; every `field` is a key of that
 * tool's `items[]` in its output schema (test/mcp checks it).
 */
export function listDisplayColumns(): ListDisplayColumns {
  return {
    list_containers: {
      default: [
        col("number", "Container"),
        col("current_status", "Status"),
        col("pickup_lfd", "Last free day"),
        col("active_holds", "Holds"),
        col("equipment", "Equipment"),
      ],
      pickup: [
        col("number", "Container"),
        col("available_for_pickup", "Available"),
        col("active_holds", "Holds"),
        col("pickup_lfd", "Last free day"),
        col("pod_discharged_at", "Discharged"),
      ],
      arrivals: [
        col("number", "Container"),
        col("current_status", "Status"),
        col("pod_arrived_at", "Arrived"),
        col("pod_discharged_at", "Discharged"),
      ],
    },
    list_shipments: {
      default: [
        col("bill_of_lading_number", "BL / booking"),
        col("shipping_line_scac", "Carrier"),
        col("port_of_lading_locode", "POL"),
        col("port_of_discharge_locode", "POD"),
        col("pod_eta_at", "POD ETA"),
        col("container_count", "Containers"),
      ],
      arrivals: [
        col("bill_of_lading_number", "BL / booking"),
        col("pod_vessel_name", "Vessel"),
        col("pod_eta_at", "POD ETA"),
        col("pod_ata_at", "POD ATA"),
        col("tracking_stopped", "Tracking stopped"),
      ],
    },
    list_tracking_requests: {
      default: [
        col("request_number", "Number"),
        col("request_type", "Type"),
        col("scac", "Carrier"),
        col("status", "Status"),
        col("created_at", "Requested"),
      ],
      failures: [
        col("request_number", "Number"),
        col("scac", "Carrier"),
        col("failed_reason", "Why it failed"),
        col("is_retrying", "Retrying"),
      ],
    },
    list_documents: {
      default: [
        col("name", "Document"),
        col("document_type", "Type"),
        col("extraction_status", "Extraction"),
        col("created_at", "Added"),
      ],
    },
  };
}
