// Types of the REST API's documents as the client returns them. The attribute types of containers, shipments,
// tracking requests, transport events, raw events and infer-number results are inferred from the server's own
// zod schemas (type-only imports: nothing of the server is bundled), so the client cannot drift from the wire.
import type { z } from "@hono/zod-openapi";
import type { ContainerAttributes as ContainerAttributesSchema } from "../containers/schemas";
import type {
  RouteAttributes as RouteAttributesSchema,
  RouteLocationAttributes as RouteLocationAttributesSchema,
} from "../containers/shipping-route-schemas";
import type { InferNumberDocument as InferNumberDocumentSchema } from "../infer/schemas";
import type { RawEventAttributes as RawEventAttributesSchema } from "../raw-events/schemas";
import type { ShipmentAttributes as ShipmentAttributesSchema } from "../shipments/schemas";
import type {
  REQUEST_TYPES,
  TRACKING_REQUEST_STATUSES,
  TrackingRequestAttributes as TrackingRequestAttributesSchema,
} from "../tracking-requests/schemas";
import type { TransportEventAttributes as TransportEventAttributesSchema } from "../transport-events/schemas";
import type { VesselAttributes as VesselAttributesSchema } from "../vessels/schemas";

/** Resource identifier object `{id, type}` (JSON:API 1.0 §7.2.4). */
export interface Linkage {
  id: string;
  type: string;
}

/**
 * A relationship: to-one linkage (or null) or to-many linkage. Always present, included or not (docs/api.md §Includes).
 */
export interface Relationship {
  data: Linkage | Linkage[] | null;
}

/**
 * A JSON:API resource object with typed `attributes`. `type` is the resource's JSON:API type (`container`,
 * `shipment`, ...); relationships are keyed by name (`shipment`, `containers`, `pod_terminal`, ...).
 */
export interface Resource<Type extends string = string, Attributes = Record<string, unknown>> {
  id: string;
  type: Type;
  attributes: Attributes;
  relationships?: Record<string, Relationship>;
  links?: { self: string };
}

/** Any resource, as found in `included` (its attributes untyped). */
export type AnyResource = Resource<string, Record<string, unknown>>;

/** Top-level `links` of a list document: absolute URLs; `prev`/`next` only when such a page exists. */
export interface ListLinks {
  self: string;
  current?: string;
  first?: string;
  prev?: string;
  next?: string;
  last?: string;
}

/**
 * List `meta` (docs/decisions.md §Wire format): `size` = items on this page, `total` = matching records;
 * `pagination.next` only when a next page exists, `pagination.last` only when `total > 0`.
 */
export interface ListMeta {
  size: number;
  total: number;
  pagination: { current: number; next?: number; last?: number; records: number };
}

/** `{data: resource, included?, links?}` (docs/api.md §Container endpoints). */
export interface SingleDocument<R> {
  data: R;
  included?: AnyResource[];
  links?: { self: string };
}

/** `{data: resource[], included?, links, meta}`: one page of a list (docs/decisions.md §Wire format). */
export interface ListDocument<R> {
  data: R[];
  included?: AnyResource[];
  links: ListLinks;
  meta: ListMeta;
}

/** `{data: resource[], included?}` without pagination (the raw events list, docs/api.md §Container endpoints). */
export interface CollectionDocument<R> {
  data: R[];
  included?: AnyResource[];
}

/** One JSON:API error object (docs/api.md §Errors): `status` is the HTTP status as a string. */
export interface ApiErrorObject {
  status: string;
  title: string;
  detail?: string | null;
  source?: { pointer?: string; parameter?: string } | null;
  code?: string;
}

/** Container attributes (docs/api.md §Container resource), exactly as the server's schema declares them. */
export type ContainerAttributes = z.infer<typeof ContainerAttributesSchema>;
/** Shipment attributes (docs/api.md §Shipment resource). */
export type ShipmentAttributes = z.infer<typeof ShipmentAttributesSchema>;
/** Tracking request attributes (docs/api.md §Tracking request resource, docs/decisions.md §Tracking requests). */
export type TrackingRequestAttributes = z.infer<typeof TrackingRequestAttributesSchema>;
/** Transport event attributes (docs/api.md §Transport event resource). */
export type TransportEventAttributes = z.infer<typeof TransportEventAttributesSchema>;
/** Raw carrier event attributes (docs/api.md §Raw event resource). */
export type RawEventAttributes = z.infer<typeof RawEventAttributesSchema>;
/** Route attributes (`GET /containers/{id}/route`, paid feature `routing`): `container_number`, `total_legs`. */
export type RouteAttributes = z.infer<typeof RouteAttributesSchema>;
/**
 * Route location attributes: one stop (`role` POL / transshipment / POD / inland destination, UN/LOCODE, name, time
 * zone) with the leg arriving (`inbound_*`: mode, rail SCAC, voyage, ETA, ATA) and leaving (`outbound_*`: ETD, ATD).
 */
export type RouteLocationAttributes = z.infer<typeof RouteLocationAttributesSchema>;
/** Vessel attributes as the route knows them: `name`, `imo`. */
export type VesselAttributes = z.infer<typeof VesselAttributesSchema>;
/** `current_status` of a container (docs/decisions.md §Containers). */
export type ContainerStatus = ContainerAttributes["current_status"];
/** `status` of a tracking request (docs/decisions.md §Tracking requests). */
export type TrackingRequestStatus = (typeof TRACKING_REQUEST_STATUSES)[number];
/** `request_type` of a tracking request: `bill_of_lading`, `booking`, `booking_number` (alias) or `container`. */
export type RequestType = (typeof REQUEST_TYPES)[number];

/**
 * Shipping line attributes (`GET /shipping_lines`, docs/api.md §Reference data endpoints). `supported`: tracking
 * requests are accepted.
 */
export interface ShippingLineAttributes {
  scac: string;
  name: string;
  short_name: string;
  alternative_scacs: string[];
  bol_prefix: string | null;
  tracking_url: string | null;
  contact_url: string | null;
  bill_of_lading_tracking_support: boolean;
  booking_number_tracking_support: boolean;
  container_number_tracking_support: boolean;
  supported: boolean;
}

/** Terminal attributes (`GET /terminals/{id}`): FIRMS, SMDG and BIC facility codes, IANA `time_zone`. */
export interface TerminalAttributes {
  id: string;
  name: string;
  nickname: string | null;
  firms_code: string | null;
  smdg_code: string | null;
  bic_facility_code: string | null;
  provided_data: Record<string, boolean | string>;
  city: string | null;
  state_abbr: string | null;
  country_code: string | null;
  time_zone: string | null;
  facility_type: string | null;
}

/** Port attributes (`GET /ports/{id}`): `code` is the UN/LOCODE; latitude/longitude as decimal strings. */
export interface PortAttributes {
  id: string;
  name: string;
  code: string;
  state_abbr: string | null;
  city: string | null;
  country_code: string;
  latitude: string | null;
  longitude: string | null;
  time_zone: string | null;
}

/** Party (customer) attributes (`/parties`). */
export interface PartyAttributes {
  company_name: string;
  created_at: string;
}

/** A container resource (`type: container`). */
export type Container = Resource<"container", ContainerAttributes>;
/** A shipment resource (`type: shipment`). */
export type Shipment = Resource<"shipment", ShipmentAttributes>;
/** A tracking request resource (`type: tracking_request`). */
export type TrackingRequest = Resource<"tracking_request", TrackingRequestAttributes>;
/** A transport event resource (`type: transport_event`). */
export type TransportEvent = Resource<"transport_event", TransportEventAttributes>;
/** A raw carrier event resource (`type: raw_event`). */
export type RawEvent = Resource<"raw_event", RawEventAttributes>;
/** A shipping line resource (`type: shipping_line`). */
export type ShippingLine = Resource<"shipping_line", ShippingLineAttributes>;
/** A terminal resource (`type: terminal`). */
export type Terminal = Resource<"terminal", TerminalAttributes>;
/** A port resource (`type: port`). */
export type Port = Resource<"port", PortAttributes>;
/** A container's route (`type: route`); `relationships.route_locations` lists its stops in journey order. */
export type Route = Resource<"route", RouteAttributes>;
/** One stop of a route (`type: route_location`); links `port` (alias `location`), `inbound_vessel`, `outbound_vessel`. */
export type RouteLocation = Resource<"route_location", RouteLocationAttributes>;
/** A vessel (`type: vessel`), included by a route. */
export type Vessel = Resource<"vessel", VesselAttributes>;
/** A party resource (`type: party`). */
export type Party = Resource<"party", PartyAttributes>;

/** The document of `POST /tracking_requests/infer_number` (docs/api.md §Infer number). */
export type InferNumberDocument = z.infer<typeof InferNumberDocumentSchema>;
/** The attributes of an infer-number result: `number_type`, `validation`, `shipping_line` decision and candidates. */
export type InferNumberResult = InferNumberDocument["data"]["attributes"];

/** Answer of `PATCH /containers/{id}/refresh`: plain JSON naming the sources queued. */
export interface RefreshResult {
  message: string;
}
