/**
 * What a carrier source tells about one shipment at lookup time, in our vocabulary. Times are UTC ISO 8601
 * (second precision, `Z`); locations are UN/LOCODEs and terminals CBP FIRMS codes, resolved against the
 * reference data when written.
 */
export interface ShipmentFacts {
  /** BL or booking number as the carrier knows it. */
  billOfLadingNumber: string;
  portOfLadingLocode: string | null;
  portOfDischargeLocode: string | null;
  /** FIRMS code (or other facility code) of the POD terminal. */
  podTerminalCode: string | null;
  destinationLocode: string | null;
  podVesselName: string | null;
  podVesselImo: string | null;
  podVoyageNumber: string | null;
  polEtdAt: string | null;
  polAtdAt: string | null;
  podEtaAt: string | null;
  podAtaAt: string | null;
  containers: ContainerFacts[];
}

/** What a carrier source tells about one container at lookup time. */
export interface ContainerFacts {
  /** ISO 6346 container number. */
  number: string;
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
}

/** A tracking request as a source sees it. */
export interface LookupRequest {
  requestType: string;
  /** Normalised (trimmed, upper-cased) number. */
  number: string;
  /** The line's own SCAC. */
  scac: string;
}

/**
 * Outcome of a lookup (DESIGN.md §4 step 2): found; not found (a container → `failed`, a BL/booking →
 * `awaiting_manifest`); or a temporary failure to retry (`shipping_line_unreachable`,
 * `unrecognized_response`).
 */
export type LookupResult =
  | { kind: "found"; shipment: ShipmentFacts }
  | { kind: "not_found" }
  | { kind: "awaiting_manifest" }
  | { kind: "temporary_failure"; reason: "shipping_line_unreachable" | "unrecognized_response" };

/**
 * A carrier's tracking interface: look up a BL, booking or container number. Small on purpose, so a new
 * carrier is one file (DESIGN.md §4 Sources).
 */
export interface CarrierSource {
  /** Human name used in refresh messages, e.g. "Shipping line". */
  readonly name: string;
  /** Whether this source serves the SCAC. */
  supports(scac: string): boolean;
  /** Looks a number up at the carrier. Must not throw for carrier-side failures: return `temporary_failure`. */
  lookup(request: LookupRequest, nowMs: number): Promise<LookupResult>;
}
