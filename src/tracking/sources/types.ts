import type { TerminalFee, TerminalHold } from "../../db/schema";

/**
 * The milestones every source maps into: the `container.transport.*` names of docs/api.md §Transport event names
 * without the `estimated.` infix (an estimate is a `Milestone` with `estimated: true`).
 */
export type MilestoneName =
  | "container.transport.empty_out"
  | "container.transport.full_in"
  | "container.transport.vessel_loaded"
  | "container.transport.vessel_departed"
  | "container.transport.transshipment_arrived"
  | "container.transport.transshipment_discharged"
  | "container.transport.transshipment_loaded"
  | "container.transport.transshipment_departed"
  | "container.transport.feeder_arrived"
  | "container.transport.feeder_discharged"
  | "container.transport.feeder_loaded"
  | "container.transport.feeder_departed"
  | "container.transport.vessel_arrived"
  | "container.transport.vessel_berthed"
  | "container.transport.vessel_discharged"
  | "container.transport.rail_loaded"
  | "container.transport.rail_departed"
  | "container.transport.rail_arrived"
  | "container.transport.rail_unloaded"
  | "container.transport.arrived_at_inland_destination"
  | "container.transport.available"
  | "container.transport.not_available"
  | "container.transport.full_out"
  | "container.transport.delivered"
  | "container.transport.empty_in";

/**
 * One milestone of one container as a source reports it, already in our vocabulary
 * (docs/carriers.md §DCSA event mapping for DCSA). Times are UTC ISO 8601, second precision, `Z`.
 */
export interface Milestone {
  event: MilestoneName;
  /** `false` for actual events (DCSA `ACT`), `true` for estimates and plans (`EST`, `PLN`). */
  estimated: boolean;
  /**
   * How the box moved (DCSA TNT 2.2 `modeOfTransport` of the event's own transport call), when the source says;
   * null or absent otherwise. Only `VESSEL` and `BARGE` moves name a vessel.
   */
  modeOfTransport?: "VESSEL" | "BARGE" | "RAIL" | "TRUCK" | null;
  timestamp: string;
  /** UN/LOCODE of where it happened. */
  locationLocode: string | null;
  /**
   * The place's name as the source gives it (DCSA `locationName`), when it does: the raw event's `location` for a
   * UN/LOCODE the reference data does not know (issue 12: kept as given). Absent or null otherwise.
   */
  locationName?: string | null;
  /** Facility code of the terminal or ramp (CBP FIRMS, SMDG or BIC facility code), when known. */
  facilityCode: string | null;
  vesselName: string | null;
  vesselImo: string | null;
  voyageNumber: string | null;
  /** The upstream's own wording or code, e.g. `"Vessel Discharged"` or DCSA `"EQUIPMENT DISC ACT"`. */
  originalEvent: string;
  /**
   * The upstream's event id (DCSA `eventID`), kept with the raw event; null if none. Not part of the event's identity
   * (src/tracking/identity.ts): carriers re-issue events under new ids.
   */
  sourceEventId: string | null;
  /** The upstream event exactly as received, kept as a raw event. */
  raw: unknown;
}

/**
 * What a carrier source tells about one shipment, in our vocabulary. Times are UTC ISO 8601 (second
 * precision, `Z`); locations are UN/LOCODEs and terminals facility codes, resolved against the reference
 * data when written.
 */
export interface ShipmentFacts {
  /** BL or booking number as the carrier knows it. */
  billOfLadingNumber: string;
  portOfLadingLocode: string | null;
  portOfDischargeLocode: string | null;
  /**
   * Facility code of the POD terminal: our code when the reference data knows the terminal (CBP FIRMS, else BIC, else
   * port-qualified SMDG `NLRTM:NLMVII`; src/reference/locations.ts `canonicalFacilityCode`), else as the source gave it.
   */
  podTerminalCode: string | null;
  /** UN/LOCODE of the inland destination when the move continues past the POD (rail leg); else null. */
  destinationLocode: string | null;
  /** Facility code of the inland destination's ramp or terminal, when known. */
  destinationTerminalCode?: string | null;
  podVesselName: string | null;
  podVesselImo: string | null;
  podVoyageNumber: string | null;
  polEtdAt: string | null;
  polAtdAt: string | null;
  podEtaAt: string | null;
  podAtaAt: string | null;
  /** Shipping line's ETA/ATA at the inland destination. */
  destinationEtaAt?: string | null;
  destinationAtaAt?: string | null;
  containers: ContainerFacts[];
  /**
   * Upstream events about the shipment that produce no milestone of any box (DCSA SHIPMENT events, transport
   * events with no mapping or no known box, unknown event types), exactly as received, so they can be kept as
   * raw events.
   */
  unmappedEvents?: unknown[];
}

/** What a carrier source tells about one container. */
export interface ContainerFacts {
  /** ISO 6346 container number. */
  number: string;
  /** ISO 6346 size-type code (e.g. `45G1`), from which equipment fields are derived when given. */
  sizeTypeCode?: string | null;
  sealNumber: string | null;
  equipmentType: "dry" | "reefer" | "open top" | "flat rack" | "bulk" | "tank" | null;
  /** Nominal length in feet: 10, 20, 40, 45. */
  equipmentLength: number | null;
  equipmentHeight: "standard" | "high_cube" | null;
  weightInLbs: number | null;
  emptyOutAt: string | null;
  polFullInAt: string | null;
  polVesselLoadedAt: string | null;
  polVesselDepartedAt: string | null;
  /** Every milestone the carrier reports for the box, actual and estimated, in any order. */
  milestones?: Milestone[];
  /** The shipping line's last free day (`import_deadlines.pickup_lfd_line`). */
  pickupLfdLine?: string | null;
  /** SCAC of the rail carrier taking the box from the POD, and of the one delivering it inland. */
  podRailCarrierScac?: string | null;
  indRailCarrierScac?: string | null;
  /**
   * Upstream events about this box that produce no milestone (no mapping in
   * docs/carriers.md §DCSA event mapping, e.g. DCSA STUF/STRP/INSP or a DROP at the customer, or an
   * estimate superseded by a newer one for the same call), exactly as received, so they can be kept as raw events.
   */
  unmappedEvents?: unknown[];
}

/** A tracking request as a source sees it. */
export interface LookupRequest {
  requestType: string;
  /** Normalised (trimmed, upper-cased) number. */
  number: string;
  /** The line's own SCAC. */
  scac: string;
  /** Where the tracking request stands: a first lookup (`pending`) or a re-check (`awaiting_manifest`). */
  status?: "pending" | "awaiting_manifest" | "created";
  /** How many lookups of this request failed before this one (0 on the first attempt). */
  attempt?: number;
}

/**
 * Outcome of a lookup (docs/architecture.md §Tracking pipeline step 2): found; not found (a container → `failed`, a
 * BL/booking → `awaiting_manifest`); a permanent failure the line stated (`failed` with its reason,
 * docs/api.md §Tracking request status); or a temporary failure to retry (`shipping_line_unreachable`,
 * `unrecognized_response`).
 */
export type LookupResult =
  | { kind: "found"; shipment: ShipmentFacts }
  | { kind: "not_found" }
  | { kind: "failed"; reason: "not_found" | "invalid_number" | "booking_cancelled" | "data_unavailable" }
  | { kind: "awaiting_manifest" }
  | {
      kind: "temporary_failure";
      /**
       * `shipping_line_credentials_rejected` (issue 13 §1): the line refused our credentials (HTTP 401/403, or its
       * token endpoint refused the client): a configuration error, shown on the shipment and retried with backoff.
       * A tracking request still shows the reference's `shipping_line_unreachable` for it.
       */
      reason: "shipping_line_unreachable" | "unrecognized_response" | "shipping_line_credentials_rejected";
    };

/** What sources get from the engine: time and the (injected) network. */
export interface SourceContext {
  /** Current time, ms since the Unix epoch. */
  nowMs: number;
  /** Outbound HTTP; tests inject a recorder or a local fake server. */
  fetch: typeof fetch;
  /**
   * When the service started tracking this number, ms since the Unix epoch: the tracking request's creation (for a
   * terminal poll, that of the request that brought the box in, so lookup and poll replay one journey). Simulated
   * journeys are anchored on it, so they start when tracking starts and move on between polls. Defaults to `nowMs`.
   */
  trackingStartedAtMs?: number;
}

/**
 * A carrier's tracking interface: look up a BL, booking or container number. Small on purpose, so a new
 * carrier is one file (docs/architecture.md §Sources). A poll of a tracked box is a lookup of its shipment number.
 */
export interface CarrierSource {
  /** Human name used in refresh messages: "Shipping line". */
  readonly name: string;
  /** Whether this source serves the SCAC (the line's own SCAC). */
  supports(scac: string): boolean;
  /** Looks a number up at the carrier. Must not throw for carrier-side failures: return `temporary_failure`. */
  lookup(request: LookupRequest, ctx: SourceContext): Promise<LookupResult>;
}

/**
 * What a terminal (or inland rail ramp) reports for one container. `pickupLfd` is the facility's own last
 * free day: `pickup_lfd_terminal` at a POD terminal, `pickup_lfd_rail` at an inland ramp.
 */
export interface TerminalObservation {
  /** When the terminal was checked (UTC ISO). */
  checkedAt: string;
  /** Whether the facility publishes availability for this box (`availability_known`). */
  availabilityKnown: boolean;
  availableForPickup: boolean | null;
  /** Active holds only: a cleared hold is absent (docs/api.md §Holds). */
  holds: TerminalHold[];
  fees: TerminalFee[];
  pickupLfd: string | null;
  pickupAppointmentAt: string | null;
  locationAtTerminal: string | null;
  dischargedAt: string | null;
  fullOutAt: string | null;
  fullOutChassisNumber: string | null;
  /** The box was moved to an off-dock yard. */
  offDock: boolean;
  /**
   * When the empty box was returned to this facility (UTC ISO, second precision), for a terminal that reports it
   * (Port of Virginia `emptyReturnTime`, docs/terminals.md §Port of Virginia fields); absent or null otherwise (issue
   * 14: empty-return times).
   */
  emptyReturnedAt?: string | null;
}

/**
 * A terminal (or rail ramp) refused our credentials: HTTP 401/403 from its API, or its token endpoint refused the
 * client (issue 13 §1, issue 14's adapters). A configuration error of the operator (`TERMINAL_SOURCES`), not an
 * outage of the terminal: shown on the container as `terminal_tracking_failed_reason` /
 * `rail_tracking_failed_reason`, logged once per outage, and polled with backoff until it accepts them.
 */
export const TERMINAL_CREDENTIALS_REJECTED = "terminal_credentials_rejected";

/**
 * The reasons of a terminal's `temporary_failure` the engine knows: `terminal_unreachable` (no answer in time, a
 * network error, HTTP 5xx, or the source threw), `unrecognized_response` (an answer that is not the provider's
 * documented format) and {@link TERMINAL_CREDENTIALS_REJECTED}. A source may report others (e.g. its provider's rate
 * limit); they are shown as given.
 */
export type TerminalFailureReason =
  | "terminal_unreachable"
  | "unrecognized_response"
  | typeof TERMINAL_CREDENTIALS_REJECTED;

/**
 * Outcome of a terminal poll: the facility reported the box (`found`), answered without it (`not_found`: still a
 * check, `pod_last_tracking_request_at`), or did not answer usably (`temporary_failure`, with a
 * {@link TerminalFailureReason} or a source's own reason).
 */
export type TerminalPollResult =
  | { kind: "found"; observation: TerminalObservation }
  | { kind: "not_found" }
  | { kind: "temporary_failure"; reason: TerminalFailureReason | (string & {}) };

/** One box to ask a terminal (or rail ramp) about. */
export interface TerminalQuery {
  /** ISO 6346 container number. */
  containerNumber: string;
  /**
   * Our facility code of the terminal (CBP FIRMS code, else BIC facility code, else port-qualified SMDG code such as
   * `NLRTM:NLMVII`: src/reference/locations.ts `facilityCodeOf`), as configured in `TERMINAL_SOURCES`.
   */
  facilityCode: string;
  /** The line's own SCAC. */
  scac: string;
  /**
   * Bill of lading number the box was found with, when known (Port of Virginia asks container and BL together,
   * docs/terminals.md §Port of Virginia API); null or absent otherwise.
   */
  billOfLadingNumber?: string | null;
}

/** A terminal's (or rail ramp's) container availability interface, one file per terminal system. */
export interface TerminalSource {
  /** Human name used in refresh messages: "Terminal" or "Rail". */
  readonly name: string;
  /** Whether this source serves the facility (by facility code) for boxes of this line (SCAC). */
  supports(facilityCode: string, scac: string): boolean;
  /** Polls one container at the facility. Must not throw for upstream failures. */
  poll(query: TerminalQuery, ctx: SourceContext): Promise<TerminalPollResult>;
  /**
   * Most boxes one request to the provider may ask about (its documented bulk limit); absent or 1: no batching
   * (issue 14 "Batching per terminal").
   */
  readonly maxBatchSize?: number;
  /**
   * Polls many boxes at ONE facility in as few requests as the provider allows (at most `maxBatchSize` per request).
   * Answers per container number; a box missing from the map counts as `temporary_failure`. Must not throw for
   * upstream failures.
   */
  pollBatch?(queries: readonly TerminalQuery[], ctx: SourceContext): Promise<Map<string, TerminalPollResult>>;
}
