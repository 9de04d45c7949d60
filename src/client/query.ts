import type { ContainerStatus, RequestType, TrackingRequestStatus } from "./types";

/** A page request: 1-based `number` (default 1) and `size` (default 30; the API clamps values over 100 to 100). */
export interface PageOptions {
  number?: number;
  size?: number;
}

/** A time range filter (`[start]`/`[end]`, inclusive): ISO 8601 strings or Dates (sent as UTC ISO 8601). */
export interface TimeRange {
  start?: string | Date;
  end?: string | Date;
}

/**
 * Options every list call takes: `page`, `include` (relationship names, dotted paths allowed, e.g.
 * `shipment.pod_terminal`), and `query`, extra raw query parameters sent as given (for parameters this client
 * does not model yet).
 */
export interface ListOptions<Include extends string = string> {
  page?: PageOptions;
  include?: readonly (Include | (string & {}))[];
  query?: Record<string, string>;
}

/** Relationships `GET /containers` and `GET /containers/{id}` can include. */
export type ContainerInclude = "shipment" | "pod_terminal" | "pickup_facility" | "transport_events";
/** Relationships `GET /shipments` and `GET /shipments/{id}` can include. */
export type ShipmentInclude =
  | "containers"
  | "pod_terminal"
  | "port_of_lading"
  | "port_of_discharge"
  | "destination"
  | "destination_terminal";
/** Relationships of tracking requests (`tracked_object` is included by default when `include` is not sent). */
export type TrackingRequestInclude = "tracked_object" | "customer";
/** Relationships of transport events. */
export type TransportEventInclude = "location" | "terminal" | "shipment" | "container";
/** Relationships of raw events (`location` is included by default when `include` is not sent). */
export type RawEventInclude = "location" | "container";
/**
 * Includes of `GET /containers/{id}/route`: `route_location`, `port`, `vessel` (what the reference SDK sends), or the
 * JSON:API paths `route_locations`, `route_locations.port`, `route_locations.inbound_vessel`, `...outbound_vessel`.
 */
export type RouteInclude =
  | "route_location"
  | "route_locations"
  | "port"
  | "vessel"
  | "route_locations.port"
  | "route_locations.location"
  | "route_locations.inbound_vessel"
  | "route_locations.outbound_vessel";

/** Container list filters (docs/decisions.md §Wire format): `pod_locode` is the UN/LOCODE of the port of discharge. */
export interface ContainerFilters {
  number?: string;
  status?: ContainerStatus;
  shipment_id?: string;
  pod_locode?: string;
  scac?: string;
  updated_at?: TimeRange;
  pickup_lfd?: TimeRange;
}

/** Shipment list filters (docs/decisions.md §Wire format). `number` is the tracked BL or booking number. */
export interface ShipmentFilters {
  number?: string;
  tracking_stopped?: boolean;
  scac?: string;
  pod_locode?: string;
  updated_at?: TimeRange;
}

/** Tracking request list filters (docs/decisions.md §Wire format). */
export interface TrackingRequestFilters {
  request_number?: string;
  status?: TrackingRequestStatus;
  scac?: string;
  request_type?: RequestType;
  created_at?: TimeRange;
  updated_at?: TimeRange;
}

/** Scalar or time-range filter values, keyed by filter name. */
export type FilterValues = Record<string, string | boolean | TimeRange | undefined>;

function timeValue(value: string | Date): string {
  return value instanceof Date ? value.toISOString().replace(/\.\d{3}Z$/, "Z") : value;
}

/**
 * Builds the query string parameters of a call: `page[number]`, `page[size]`, `include` (comma-joined; sent
 * even when empty, because an empty `include=` means "include nothing" where the API has a default),
 * `filter[name]` / `filter[name][start|end]` for each filter (names in `topLevel` are sent bare, e.g. the
 * shipments' `number`), then `extra` as given.
 */
export function buildQuery(
  options: ListOptions & { filter?: FilterValues } = {},
  topLevel: readonly string[] = [],
): URLSearchParams {
  const params = new URLSearchParams();
  if (options.page?.number !== undefined) params.set("page[number]", String(options.page.number));
  if (options.page?.size !== undefined) params.set("page[size]", String(options.page.size));
  if (options.include !== undefined) params.set("include", options.include.join(","));
  for (const [name, value] of Object.entries(options.filter ?? {})) {
    if (value === undefined) continue;
    const key = topLevel.includes(name) ? name : `filter[${name}]`;
    if (typeof value === "string" || typeof value === "boolean") {
      params.set(key, String(value));
      continue;
    }
    if (value.start !== undefined) params.set(`${key}[start]`, timeValue(value.start));
    if (value.end !== undefined) params.set(`${key}[end]`, timeValue(value.end));
  }
  for (const [name, value] of Object.entries(options.query ?? {})) params.set(name, value);
  return params;
}
