/**
 * `TrackingApi`: the one interface every MCP tool, prompt and resource reads through (DESIGN.md §6). The Worker
 * backs it with the services over D1 (`worker-api.ts`); the stdio variant backs it with the typed REST client
 * (`src/client`). It is transport-neutral: records are the REST API's JSON:API resources flattened —
 * `{id, ...attributes}` plus `<relationship>_id` for to-one linkage — so both implementations return the same
 * data for the same account (`records.ts` does the flattening for both).
 *
 * Every method is scoped to one account (the caller's); another account's id is `not_found`, never
 * `forbidden_feature` (DECISIONS.md §Wire format: another account's id → 404).
 *
 * Errors: every method rejects only with {@link TrackingApiError} for expected failures; anything else is a bug
 * or an outage and is reported to the MCP client as a generic `upstream` error without details.
 */

import type { ContainerRoute, RouteLeg, RouteStop, RouteStopRole, VesselRef } from "../containers/shipping-route";
import type { TerminalFee, TerminalHold } from "../db/schema";
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from "../lib/jsonapi/pagination";

export type { TerminalFee, TerminalHold };

// ---------------------------------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------------------------------

/**
 * What went wrong, in terms a model can act on (MCP.md §1.9 gap 1):
 * - `not_found`: no such id (or number) in this account (REST 404);
 * - `invalid_argument`: the input was rejected (REST 400/422); `field` names the argument when known;
 * - `rate_limited`: the account's default bucket is exhausted (REST 429); retry after `retryAfterSeconds`;
 * - `forbidden_feature`: a paid feature the account lacks, e.g. `routing` (REST 403);
 * - `unauthorized`: the API key was rejected (REST 401; only the HTTP-backed implementation sees it);
 * - `upstream`: the service failed or is unreachable (REST 5xx, network); safe to retry later.
 */
export type TrackingApiErrorKind =
  | "not_found"
  | "invalid_argument"
  | "rate_limited"
  | "forbidden_feature"
  | "unauthorized"
  | "upstream";

/** Extra facts of a {@link TrackingApiError}. */
export interface TrackingApiErrorDetails {
  /** `rate_limited`: whole seconds until a retry can succeed (REST `Retry-After`, ≥ 1). */
  retryAfterSeconds?: number;
  /** `invalid_argument`: the argument or body field at fault (e.g. `scac`, `request_number`). */
  field?: string;
  /** Machine code of the REST error when there is one (`blank`, `duplicate`, `not_supported`, ...). */
  code?: string;
  /** `forbidden_feature`: the entitlement that is missing (e.g. `routing`). */
  feature?: string;
}

/**
 * The only error a `TrackingApi` method rejects with on purpose. `message` is safe to show to a model or a
 * user: it never carries keys, URLs, SQL or stack traces.
 */
export class TrackingApiError extends Error {
  readonly kind: TrackingApiErrorKind;
  readonly retryAfterSeconds?: number;
  readonly field?: string;
  readonly code?: string;
  readonly feature?: string;

  constructor(kind: TrackingApiErrorKind, message: string, details: TrackingApiErrorDetails = {}) {
    super(message);
    this.name = "TrackingApiError";
    this.kind = kind;
    if (details.retryAfterSeconds !== undefined) this.retryAfterSeconds = details.retryAfterSeconds;
    if (details.field !== undefined) this.field = details.field;
    if (details.code !== undefined) this.code = details.code;
    if (details.feature !== undefined) this.feature = details.feature;
  }
}

/**
 * Maps a REST status (and its JSON:API error `detail`/`code`/pointer) to a {@link TrackingApiError}, so the HTTP
 * client and the Worker report the same kinds: 400/422 → `invalid_argument`, 401 → `unauthorized`,
 * 403 → `forbidden_feature`, 404 → `not_found`, 429 → `rate_limited` (with `Retry-After`), anything else →
 * `upstream` (whose message is generic: server-side details are not repeated).
 */
export function trackingApiErrorFromStatus(
  status: number,
  error: { detail?: string | null; code?: string; pointer?: string; parameter?: string } = {},
  retryAfterSeconds?: number,
): TrackingApiError {
  const detail = error.detail ?? undefined;
  const field = fieldFromSource(error.pointer ?? error.parameter);
  const base: TrackingApiErrorDetails = {};
  if (error.code) base.code = error.code;
  if (field) base.field = field;
  switch (status) {
    case 400:
    case 422:
      return new TrackingApiError("invalid_argument", detail ?? "The request was rejected as invalid.", base);
    case 401:
      return new TrackingApiError("unauthorized", "The API key was rejected (missing, unknown or revoked).");
    case 403:
      return new TrackingApiError("forbidden_feature", detail ?? "This feature is not enabled for this account.", base);
    case 404:
      return new TrackingApiError("not_found", detail ?? "Not found in this account.");
    case 429: {
      const seconds = Math.max(1, Math.ceil(retryAfterSeconds ?? 60));
      return new TrackingApiError("rate_limited", `Rate limit exceeded; retry after ${seconds} s.`, {
        retryAfterSeconds: seconds,
      });
    }
    default:
      return new TrackingApiError("upstream", "The tracking service could not complete the request; retry later.");
  }
}

/** `/data/attributes/scac` → `scac`; `filter[status]` → `filter[status]`. */
function fieldFromSource(source: string | undefined): string | undefined {
  if (!source) return undefined;
  const last = source.split("/").filter(Boolean).pop();
  return last ?? source;
}

// ---------------------------------------------------------------------------------------------------------------
// Records (REST resources, flattened)
// ---------------------------------------------------------------------------------------------------------------

/** `import_deadlines` of a container (SPEC.md §2.1): UTC ISO 8601 or null. */
export interface ImportDeadlines {
  pickup_lfd_terminal: string | null;
  pickup_lfd_rail: string | null;
  pickup_lfd_line: string | null;
}

/**
 * A container (SPEC.md §2.1, `type: container`), every attribute as REST serves it plus its to-one linkage ids.
 * Timestamps are UTC ISO 8601 (second precision, `Z`); the sibling `*_timezone` attributes give local meaning.
 */
export interface ContainerRecord {
  id: string;
  /** ISO 6346 container number, e.g. `MSKU1234565`. */
  number: string;
  seal_number: string | null;
  created_at: string;
  ref_numbers: string[];
  pod_arrived_at: string | null;
  pod_discharged_at: string | null;
  final_destination_full_out_at: string | null;
  holds_at_pod_terminal: TerminalHold[];
  available_for_pickup: boolean | null;
  delivered_at: string | null;
  /** DECISIONS.md §Containers: new, on_ship, grounded, available, not_available, awaiting_inland_transfer, on_rail, off_dock, picked_up, delivered, empty_returned. */
  current_status: string;
  empty_out_at: string | null;
  pol_full_in_at: string | null;
  pol_vessel_loaded_at: string | null;
  pol_vessel_departed_at: string | null;
  equipment_type: string | null;
  /** Feet: 10, 20, 40, 45. */
  equipment_length: number | null;
  equipment_height: string | null;
  pod_full_out_at: string | null;
  empty_terminated_at: string | null;
  terminal_checked_at: string | null;
  fees_at_pod_terminal: TerminalFee[];
  /** Last free day (LFD) for pickup: the first non-null of line, terminal, rail deadlines (DECISIONS.md §Containers). */
  pickup_lfd: string | null;
  pickup_appointment_at: string | null;
  pod_full_out_chassis_number: string | null;
  location_at_pod_terminal: string | null;
  pod_last_tracking_request_at: string | null;
  shipment_last_tracking_request_at: string | null;
  rail_last_tracking_request_at: string | null;
  availability_known: boolean;
  pod_timezone: string | null;
  final_destination_timezone: string | null;
  /** Pounds. */
  weight_in_lbs: number | null;
  empty_terminated_timezone: string | null;
  pod_rail_carrier_scac: string | null;
  ind_rail_carrier_scac: string | null;
  pod_rail_loaded_at: string | null;
  pod_rail_departed_at: string | null;
  ind_eta_at: string | null;
  ind_ata_at: string | null;
  ind_rail_unloaded_at: string | null;
  /** Always null: no inland facility reports holds to us (R §1.1: null in every capture of the reference too). */
  ind_facility_holds: null;
  /** Always null, as `ind_facility_holds`. */
  ind_facility_fees: null;
  ind_facility_lfd_on: string | null;
  import_deadlines: ImportDeadlines;
  /** Legacy: the shipping line's last free day (= `import_deadlines.pickup_lfd_line`). */
  ssl_lfd: string | null;
  /**
   * Extension (issue 13 §1): when the POD terminal was last asked about the box, answered or not (UTC).
   * `pod_last_tracking_request_at` moves only when it answered, `terminal_checked_at` only when it reported the box.
   */
  terminal_tracking_last_attempted_at: string | null;
  /**
   * Extension: why the latest POD terminal attempt failed, null when it answered: `terminal_unreachable` (no answer
   * in time, network error, HTTP 5xx), `unrecognized_response` (not the provider's documented format),
   * `terminal_credentials_rejected` (the provider refused the service's credentials: an operator configuration error,
   * TERMINAL_SOURCES; polls back off until fixed), or a source's own reason (e.g. its rate limit). While set, the
   * terminal facts (availability, holds, fees, LFD) are as of `pod_last_tracking_request_at` / `terminal_checked_at`.
   */
  terminal_tracking_failed_reason: string | null;
  /** Extension: when the inland rail ramp was last asked about the box, answered or not (UTC). */
  rail_tracking_last_attempted_at: string | null;
  /**
   * Extension: why the latest rail ramp attempt failed, null when it answered (the reasons of
   * `terminal_tracking_failed_reason`); the ramp's facts are as of `rail_last_tracking_request_at`.
   */
  rail_tracking_failed_reason: string | null;
  shipment_id: string | null;
  pod_terminal_id: string | null;
  pickup_facility_id: string | null;
}

/** A shipment (R §1.2, `type: shipment`): one bill of lading or booking at its shipping line. */
export interface ShipmentRecord {
  id: string;
  created_at: string;
  ref_numbers: string[];
  tags: string[];
  /** The tracked BL or booking number as the line reports it. */
  bill_of_lading_number: string;
  normalized_number: string;
  shipping_line_scac: string;
  shipping_line_name: string;
  shipping_line_short_name: string;
  customer_name: string | null;
  /** Port of lading (POL), UN/LOCODE. */
  port_of_lading_locode: string | null;
  port_of_lading_name: string | null;
  /** Port of discharge (POD), UN/LOCODE. */
  port_of_discharge_locode: string | null;
  port_of_discharge_name: string | null;
  pod_vessel_name: string | null;
  /** IMO number of the vessel arriving at the POD. */
  pod_vessel_imo: string | null;
  pod_voyage_number: string | null;
  destination_locode: string | null;
  destination_name: string | null;
  destination_timezone: string | null;
  destination_ata_at: string | null;
  destination_eta_at: string | null;
  pol_etd_at: string | null;
  pol_atd_at: string | null;
  pol_timezone: string | null;
  pod_eta_at: string | null;
  pod_original_eta_at: string | null;
  pol_original_etd_at: string | null;
  destination_original_eta_at: string | null;
  pod_ata_at: string | null;
  pod_timezone: string | null;
  /** Extension (issue 13 §1): when the shipping line was last asked about the shipment, answered or not (UTC). */
  line_tracking_last_attempted_at: string | null;
  /** Extension: when the shipping line last answered (UTC); the carrier's facts are as of this time. */
  line_tracking_last_succeeded_at: string | null;
  line_tracking_stopped_at: string | null;
  line_tracking_stopped_reason: string | null;
  /**
   * Extension: why the latest attempt at the shipping line failed, null when it answered: `shipping_line_unreachable`
   * (timeout, network error, HTTP 5xx), `unrecognized_response`, or `shipping_line_credentials_rejected` (the line
   * refused the service's credentials: an operator configuration error, DCSA_SOURCES; polls back off until fixed).
   */
  line_tracking_failed_reason: string | null;
  /** The shipment's containers (ids, oldest first). */
  container_ids: string[];
  pod_terminal_id: string | null;
  port_of_lading_id: string | null;
  port_of_discharge_id: string | null;
  destination_id: string | null;
  destination_terminal_id: string | null;
}

/** A tracking request (SPEC.md §2.4, DECISIONS.md §Tracking requests). */
export interface TrackingRequestRecord {
  id: string;
  request_number: string;
  /** `bill_of_lading`, `booking`, `booking_number` or `container`. */
  request_type: string;
  scac: string | null;
  ref_numbers: string[];
  shipment_tags: string[];
  created_at: string;
  updated_at: string;
  /** `pending`, `awaiting_manifest`, `created`, `failed`, `tracking_stopped`. */
  status: string;
  failed_reason: string | null;
  is_retrying: boolean;
  retry_count: number | null;
  /** The shipment once tracking exists (`tracked_object`), else null. */
  tracked_object_id: string | null;
  customer_id: string | null;
}

/** A terminal (R §1.4) with its CBP FIRMS code and IANA time zone. */
export interface TerminalInfo {
  id: string;
  name: string;
  nickname: string | null;
  /** CBP FIRMS code, e.g. `Y257`. */
  firms_code: string | null;
  smdg_code: string | null;
  city: string | null;
  state_abbr: string | null;
  country_code: string | null;
  time_zone: string | null;
  facility_type: string | null;
}

/** A port (R §1.6) by UN/LOCODE. */
export interface PortInfo {
  id: string;
  /** UN/LOCODE, e.g. `USLAX`. */
  code: string;
  name: string;
  city: string | null;
  state_abbr: string | null;
  country_code: string | null;
  time_zone: string | null;
}

/**
 * A past, vetted transport event of a container (R §1.9), with its location (port) and terminal resolved.
 * `event` is one of the `container.transport.*` names (or `container.*.changed`, whose new value is `value`).
 */
export interface TransportEventRecord {
  id: string;
  event: string;
  created_at: string;
  voyage_number: string | null;
  /** UTC; local meaning from `timezone` (IANA). */
  timestamp: string | null;
  timezone: string | null;
  location_locode: string | null;
  /** `shipping_line`, `terminal` or `ais`. */
  data_source: string;
  invalidated_at: string | null;
  value: string | null;
  location: PortInfo | null;
  terminal: TerminalInfo | null;
}

/** A shipping line (R §1.8). `supported`: tracking requests for this SCAC are accepted here. */
export interface ShippingLineInfo {
  /** Standard Carrier Alpha Code (NMFTA). */
  scac: string;
  name: string;
  short_name: string;
  alternative_scacs: string[];
  bol_prefix: string | null;
  bill_of_lading_tracking_support: boolean;
  booking_number_tracking_support: boolean;
  container_number_tracking_support: boolean;
  supported: boolean;
}

/** A carrier candidate of an infer-number result; `confidence` is 0..1. */
export interface InferCandidate {
  scac: string;
  name: string;
  confidence: number;
}

/** `POST /tracking_requests/infer_number` attributes (SPEC.md §4.6). */
export interface InferNumberResult {
  number_type: "container" | "bill_of_lading" | "booking";
  validation: {
    is_valid: boolean | null;
    type: "container" | "shipment";
    check_digit_passed: boolean | null;
    reason: string | null;
  };
  shipping_line: {
    /** `auto_select` ≥ 0.95, `needs_confirmation` 0.70–0.95, else `no_prediction` (SPEC.md §4.6). */
    decision: "auto_select" | "needs_confirmation" | "no_prediction";
    selected: InferCandidate | null;
    candidates: InferCandidate[];
  };
}

/** One page of a list: `page` is 1-based, `page_size` the size used (clamped to 100), `total` the matching records. */
export interface Page<T> {
  items: T[];
  page: number;
  page_size: number;
  total: number;
  has_more: boolean;
}

/** Paging of a list call: `page` 1-based (default 1), `pageSize` default 30, larger than 100 is clamped to 100. */
export interface PageOptions {
  page?: number;
  pageSize?: number;
}

/** Most transport events `getTransportEvents` reads for one container (10 pages of 100), over either backend. */
export const MAX_TRANSPORT_EVENTS = 1_000;

/** Longest container number `filter[number]` accepts (src/containers/service.ts). */
const MAX_CONTAINER_NUMBER_LENGTH = 20;
/** Longest BL/booking/request number the API accepts (src/tracking-requests/schemas.ts). */
const MAX_NUMBER_LENGTH = 64;

/**
 * The page a list call asks for, the same over HTTP and in the Worker: `page` 1-based (default 1), `pageSize`
 * default 30, clamped to 1..100 (DECISIONS.md §Wire format).
 */
export function clampPage(options: PageOptions): { number: number; size: number } {
  return {
    number: Math.max(1, Math.floor(options.page ?? 1)),
    size: Math.min(MAX_PAGE_SIZE, Math.max(1, Math.floor(options.pageSize ?? DEFAULT_PAGE_SIZE))),
  };
}

/**
 * What `searchContainers` looks up for `query`, the same over HTTP and in the Worker: the query trimmed; as a
 * container number (spaces and dashes dropped) when that fits the API's 20 characters; as a BL, booking or request
 * number when it fits 64; and `size` results of each kind (`limit`, default 10, clamped to 1..100).
 * @throws TrackingApiError `invalid_argument` (field `query`) for an empty query.
 */
export function searchTerms(
  query: string,
  limit = 10,
): { containerNumber: string | null; number: string | null; size: number } {
  const q = query.trim();
  if (q === "") throw new TrackingApiError("invalid_argument", "The search query is empty.", { field: "query" });
  const compact = q.replace(/[\s-]/g, "");
  return {
    containerNumber: compact.length > 0 && compact.length <= MAX_CONTAINER_NUMBER_LENGTH ? compact : null,
    number: q.length <= MAX_NUMBER_LENGTH ? q : null,
    size: clampPage({ pageSize: limit }).size,
  };
}

/** Includes of `getContainer` (SPEC.md §4.7 `get_container`). */
export type ContainerInclude = "shipment" | "pod_terminal" | "transport_events";

/** A container with what was asked to be included (absent keys were not asked for; null = no such relation). */
export interface ContainerDetails {
  container: ContainerRecord;
  shipment?: ShipmentRecord | null;
  pod_terminal?: TerminalInfo | null;
  transport_events?: TransportEventRecord[];
}

/** A container in a list page, with its shipment when `include: ["shipment"]` was asked (null: none). */
export type ContainerListItem = ContainerRecord & { shipment?: ShipmentRecord | null };

/** A shipment in a list page, with its containers (oldest first) when `includeContainers` was asked. */
export type ShipmentListItem = ShipmentRecord & { containers?: ContainerRecord[] };

/** A shipment with its POD terminal and, when asked, its containers (oldest first). */
export interface ShipmentDetails {
  shipment: ShipmentRecord;
  pod_terminal: TerminalInfo | null;
  containers?: ContainerRecord[];
}

/** Filters of `listContainers` (REST `filter[...]` of DECISIONS.md §Wire format). */
export interface ContainerFilters {
  /** `current_status` value. */
  status?: string;
  /** UN/LOCODE of the port of discharge (`filter[pod_locode]`). */
  podLocode?: string;
  /** SCAC of the shipping line (`filter[scac]`). */
  scac?: string;
  /** ISO 8601: updated at or after (`filter[updated_at][start]`). */
  updatedAfter?: string;
  /** Container number (`filter[number]`). */
  number?: string;
  shipmentId?: string;
}

/** Filters of `listShipments` (REST: `number`, `filter[tracking_stopped]`, `filter[scac]`, `filter[pod_locode]`, `filter[updated_at][start]`). */
export interface ShipmentFilters {
  /** The tracked BL/booking number. */
  number?: string;
  trackingStopped?: boolean;
  scac?: string;
  podLocode?: string;
  updatedAfter?: string;
}

/** Filters of `listTrackingRequests` (REST `filter[...]`). */
export interface TrackingRequestFilters {
  status?: string;
  requestType?: string;
  requestNumber?: string;
  scac?: string;
  createdAfter?: string;
  updatedAfter?: string;
}

/** Input of `createTrackingRequest` (SPEC.md §4.4). */
export interface CreateTrackingRequestInput {
  requestType: "bill_of_lading" | "booking" | "booking_number" | "container";
  requestNumber: string;
  scac: string;
  refNumbers?: string[];
}

/** What a search found: exact matches on container number, tracked BL/booking number, and tracking request number. */
export interface SearchResult {
  containers: ContainerRecord[];
  shipments: ShipmentRecord[];
  tracking_requests: TrackingRequestRecord[];
}

// ---------------------------------------------------------------------------------------------------------------
// Route (paid feature `routing`): the types live with the REST endpoint that serves them
// (src/containers/shipping-route.ts)
// ---------------------------------------------------------------------------------------------------------------

export type { ContainerRoute, RouteLeg, RouteStop, RouteStopRole, VesselRef };

// ---------------------------------------------------------------------------------------------------------------
// The interface
// ---------------------------------------------------------------------------------------------------------------

/**
 * Reads and writes of one account, as MCP tools need them. Implementations: `WorkerTrackingApi`
 * (src/mcp/worker-api.ts, services over D1) and the REST client (src/client). Every method may reject with
 * {@link TrackingApiError}; ids are UUID strings.
 */
export interface TrackingApi {
  /**
   * Exact matches of `query` (trimmed, upper-cased; spaces and dashes removed for container numbers) among the
   * account's containers (`filter[number]`), shipments (`number`: BL/booking) and tracking requests
   * (`filter[request_number]`), at most `limit` (default 10) of each, newest first. Nothing found is an empty
   * result, not an error.
   */
  searchContainers(query: string, options?: { limit?: number }): Promise<SearchResult>;

  /** One container with the requested includes. @throws TrackingApiError `not_found`. */
  getContainer(id: string, include?: ContainerInclude[]): Promise<ContainerDetails>;

  /**
   * A page of the account's containers, newest first; `include: ["shipment"]` adds each one's shipment (REST
   * `include=shipment`). @throws TrackingApiError `invalid_argument` for a bad filter.
   */
  listContainers(
    filters?: ContainerFilters,
    page?: PageOptions,
    options?: { include?: "shipment"[] },
  ): Promise<Page<ContainerListItem>>;

  /** One shipment, with its containers unless `includeContainers` is false. @throws TrackingApiError `not_found`. */
  getShipment(id: string, options?: { includeContainers?: boolean }): Promise<ShipmentDetails>;

  /**
   * A page of the account's shipments, newest first; `includeContainers` adds each one's containers (REST
   * `include=containers`). @throws TrackingApiError `invalid_argument`.
   */
  listShipments(
    filters?: ShipmentFilters,
    page?: PageOptions,
    options?: { includeContainers?: boolean },
  ): Promise<Page<ShipmentListItem>>;

  /** One tracking request. @throws TrackingApiError `not_found`. */
  getTrackingRequest(id: string): Promise<TrackingRequestRecord>;

  /** A page of the account's tracking requests, newest first. @throws TrackingApiError `invalid_argument`. */
  listTrackingRequests(filters?: TrackingRequestFilters, page?: PageOptions): Promise<Page<TrackingRequestRecord>>;

  /**
   * Every past, vetted transport event of a container, oldest first (timestamp, then id), with locations and
   * terminals resolved; estimates are not listed (R §3.4). @throws TrackingApiError `not_found`.
   */
  getTransportEvents(containerId: string): Promise<TransportEventRecord[]>;

  /**
   * The container's route (paid feature, entitlement `routing`).
   * @throws TrackingApiError `forbidden_feature` (feature `routing`) when the account lacks it; `not_found`.
   */
  getContainerRoute(containerId: string): Promise<ContainerRoute>;

  /**
   * Creates a tracking request (SPEC.md §4.4); it starts `pending` and is looked up asynchronously.
   * @throws TrackingApiError `invalid_argument` (field `scac` / `request_number`, code `blank`, `not_recognized`,
   *   `not_supported`, `duplicate`, `invalid`); `rate_limited` (own bucket, REST only).
   */
  createTrackingRequest(input: CreateTrackingRequestInput): Promise<TrackingRequestRecord>;

  /** Every known shipping line, sorted by SCAC, optionally filtered by `search` (SCAC, names). The sandbox `TEST` line is included. */
  listShippingLines(search?: string): Promise<ShippingLineInfo[]>;

  /**
   * Optional, for completions: up to `limit` containers of the account whose number or id starts with `prefix`
   * (newest first when `prefix` is empty). Without it, completions filter the newest page of `listContainers`.
   */
  completeContainers?(prefix: string, limit: number): Promise<{ id: string; number: string }[]>;

  /**
   * Classifies a number and predicts its shipping line (SPEC.md §4.6).
   * @throws TrackingApiError `invalid_argument` for garbage (`This reference number is not valid.`).
   */
  inferNumber(number: string): Promise<InferNumberResult>;
}
