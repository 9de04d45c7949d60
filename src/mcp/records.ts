/**
 * JSON:API resource objects of the REST API → the flat records of `TrackingApi` (src/mcp/api.ts):
 * `{id, ...attributes}` plus `<relationship>_id` for to-one linkage (and `container_ids` for a shipment's
 * containers). Used by the Worker's implementation (over the REST serializers) and by the HTTP client (over REST
 * responses), so both hand tools the same shapes. Pure; no I/O.
 */

import type {
  ContainerRecord,
  PortInfo,
  ShipmentRecord,
  ShippingLineInfo,
  TerminalInfo,
  TrackingRequestRecord,
  TransportEventRecord,
} from "./api";

/** The parts of a JSON:API resource object these mappers read. */
export interface ResourceLike {
  id: string;
  type: string;
  attributes?: Record<string, unknown>;
  relationships?: Record<string, { data?: { id: string; type: string } | { id: string; type: string }[] | null }>;
}

/** Id of a to-one relationship, or null when it is absent, null or to-many. */
export function relationshipId(resource: ResourceLike, name: string): string | null {
  const data = resource.relationships?.[name]?.data;
  if (!data || Array.isArray(data)) return null;
  return data.id;
}

/** Ids of a to-many relationship ([] when absent). */
export function relationshipIds(resource: ResourceLike, name: string): string[] {
  const data = resource.relationships?.[name]?.data;
  return Array.isArray(data) ? data.map((d) => d.id) : [];
}

/** A `container` resource as a {@link ContainerRecord}. */
export function toContainerRecord(resource: ResourceLike): ContainerRecord {
  return {
    ...(resource.attributes as Omit<ContainerRecord, "id" | "shipment_id" | "pod_terminal_id" | "pickup_facility_id">),
    id: resource.id,
    shipment_id: relationshipId(resource, "shipment"),
    pod_terminal_id: relationshipId(resource, "pod_terminal"),
    pickup_facility_id: relationshipId(resource, "pickup_facility"),
  };
}

/** A `shipment` resource as a {@link ShipmentRecord}. */
export function toShipmentRecord(resource: ResourceLike): ShipmentRecord {
  return {
    ...(resource.attributes as Omit<
      ShipmentRecord,
      | "id"
      | "container_ids"
      | "pod_terminal_id"
      | "port_of_lading_id"
      | "port_of_discharge_id"
      | "destination_id"
      | "destination_terminal_id"
    >),
    id: resource.id,
    container_ids: relationshipIds(resource, "containers"),
    pod_terminal_id: relationshipId(resource, "pod_terminal"),
    port_of_lading_id: relationshipId(resource, "port_of_lading"),
    port_of_discharge_id: relationshipId(resource, "port_of_discharge"),
    destination_id: relationshipId(resource, "destination"),
    destination_terminal_id: relationshipId(resource, "destination_terminal"),
  };
}

/** A `tracking_request` resource as a {@link TrackingRequestRecord}. */
export function toTrackingRequestRecord(resource: ResourceLike): TrackingRequestRecord {
  return {
    ...(resource.attributes as Omit<TrackingRequestRecord, "id" | "tracked_object_id" | "customer_id">),
    id: resource.id,
    tracked_object_id: relationshipId(resource, "tracked_object"),
    customer_id: relationshipId(resource, "customer"),
  };
}

const str = (v: unknown): string | null => (typeof v === "string" ? v : null);

/** A `terminal` resource as a {@link TerminalInfo}. */
export function toTerminalInfo(resource: ResourceLike): TerminalInfo {
  const a = resource.attributes ?? {};
  return {
    id: resource.id,
    name: str(a.name) ?? "",
    nickname: str(a.nickname),
    firms_code: str(a.firms_code),
    smdg_code: str(a.smdg_code),
    city: str(a.city),
    state_abbr: str(a.state_abbr),
    country_code: str(a.country_code),
    time_zone: str(a.time_zone),
    facility_type: str(a.facility_type),
  };
}

/** A `port` resource as a {@link PortInfo}. */
export function toPortInfo(resource: ResourceLike): PortInfo {
  const a = resource.attributes ?? {};
  return {
    id: resource.id,
    code: str(a.code) ?? "",
    name: str(a.name) ?? "",
    city: str(a.city),
    state_abbr: str(a.state_abbr),
    country_code: str(a.country_code),
    time_zone: str(a.time_zone),
  };
}

/**
 * A `transport_event` resource as a {@link TransportEventRecord}, its `location` (port) and `terminal` resolved
 * from `included` (null when not included or absent).
 */
export function toTransportEventRecord(resource: ResourceLike, included: ResourceLike[] = []): TransportEventRecord {
  const a = resource.attributes ?? {};
  const find = (type: string, id: string | null) =>
    id ? included.find((r) => r.type === type && r.id === id) : undefined;
  const location = find("port", relationshipId(resource, "location"));
  const terminal = find("terminal", relationshipId(resource, "terminal"));
  return {
    id: resource.id,
    event: str(a.event) ?? "",
    created_at: str(a.created_at) ?? "",
    voyage_number: str(a.voyage_number),
    timestamp: str(a.timestamp),
    timezone: str(a.timezone),
    location_locode: str(a.location_locode),
    data_source: str(a.data_source) ?? "shipping_line",
    invalidated_at: str(a.invalidated_at),
    value: str(a.value),
    location: location ? toPortInfo(location) : null,
    terminal: terminal ? toTerminalInfo(terminal) : null,
  };
}

/** A `shipping_line` resource as a {@link ShippingLineInfo}. */
export function toShippingLineInfo(resource: ResourceLike): ShippingLineInfo {
  const a = resource.attributes ?? {};
  return {
    scac: str(a.scac) ?? "",
    name: str(a.name) ?? "",
    short_name: str(a.short_name) ?? "",
    alternative_scacs: Array.isArray(a.alternative_scacs) ? (a.alternative_scacs as string[]) : [],
    bol_prefix: str(a.bol_prefix),
    bill_of_lading_tracking_support: a.bill_of_lading_tracking_support === true,
    booking_number_tracking_support: a.booking_number_tracking_support === true,
    container_number_tracking_support: a.container_number_tracking_support === true,
    supported: a.supported === true,
  };
}
