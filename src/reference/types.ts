/** A shipping line (ocean carrier) as compiled from data/carriers*.csv. */
export interface ShippingLineRecord {
  /** Deterministic UUID (v5 of the SCAC). */
  id: string;
  /** Standard Carrier Alpha Code (NMFTA), 2–4 letters. */
  scac: string;
  name: string;
  shortName: string;
  /** Other SCACs the line is known by, accepted in tracking requests (e.g. MSCU ← MEDU). */
  alternativeScacs: string[];
  /** Prefixes the line puts on its bills of lading. */
  bolPrefixes: string[];
  /** ISO 6346 owner prefixes (BIC code + category) of the line's own boxes. */
  containerPrefixes: string[];
  /** Whether the reference service tracks this line at all. */
  trackingSupported: boolean;
  billOfLadingTrackingSupport: boolean;
  bookingNumberTrackingSupport: boolean;
  containerNumberTrackingSupport: boolean;
}

/**
 * A port by UN/LOCODE (docs/api.md §Port resource), compiled by scripts/compile-data.mjs from npm `sea-ports`,
 * terminals.csv, DCSA's UN/LOCODE sample and the ports of SMDG terminals (scripts/lib/locations.mjs).
 */
export interface PortRecord {
  /** Deterministic UUID: v5 of `port:<UN/LOCODE>`; never changes. */
  id: string;
  /** Current UN/LOCODE, e.g. `CNSHA`. */
  code: string;
  /** Other (retired or duplicate) UN/LOCODEs of the same port, e.g. `CNSGH` for CNSHA (sea-ports `unlocs`). */
  alternativeCodes: string[];
  name: string;
  city: string | null;
  /** Subdivision code where the source gives one (US and Canadian ports of terminals.csv), else null. */
  stateAbbr: string | null;
  /** ISO 3166-1 alpha-2. */
  countryCode: string;
  /** WGS 84 decimal degrees as a decimal string (the reference's wire form), e.g. `"31.230416"`; null when unknown. */
  latitude: string | null;
  longitude: string | null;
  /** IANA time zone computed from coordinates at build time, e.g. `Asia/Shanghai`; null only without any location. */
  timeZone: string | null;
}

/**
 * A metro area (docs/api.md §Metro area resource): an inland city that groups rail ramps and inland ports, compiled by
 * scripts/lib/metro-areas.mjs from data/metro-areas.csv (UN/LOCODE, name, subdivision) and GeoNames coordinates.
 */
export interface MetroAreaRecord {
  /** Deterministic UUID: v5 of `metro_area:<UN/LOCODE>`; never changes. */
  id: string;
  /** UN/LOCODE, e.g. `USEWI`. */
  code: string;
  name: string;
  /** ISO 3166-2 subdivision code without the country (`IL`, `ON`). */
  stateAbbr: string;
  /** ISO 3166-1 alpha-2. */
  countryCode: string;
  /** WGS 84 decimal degrees as a decimal string (the reference's wire form), e.g. `"41.40392"`. */
  latitude: string;
  longitude: string;
  /** IANA time zone computed from the coordinates at build time, e.g. `America/Chicago`. */
  timeZone: string;
}

/**
 * A terminal (docs/api.md §Terminal resource) or rail ramp (docs/api.md §Terminal resource): an SMDG Terminal Code List
 * entry merged with its terminals.csv row when both name the same facility, so one record carries the SMDG code and the
 * FIRMS/BIC code.
 */
export interface TerminalRecord {
  /** Deterministic UUID (v5): terminals.csv rows keep theirs when SMDG data is merged in; never changes. */
  id: string;
  name: string;
  nickname: string | null;
  /** CBP FIRMS code (US terminals), e.g. `Y258`; unique across terminals. */
  firmsCode: string | null;
  /** SMDG terminal code, unique within its port, e.g. `APMT` at USLAX. */
  smdgCode: string | null;
  /** BIC facility code (UN/LOCODE + facility), e.g. `AEJEADPWJ2`. */
  bicFacilityCode: string | null;
  /** Current UN/LOCODE of the port (a retired code in the source is mapped to it). */
  portLocode: string;
  portId: string;
  /** Street part of the address; outside the US and Canada the SMDG address line as given (not split). */
  street: string | null;
  city: string | null;
  state: string | null;
  stateAbbr: string | null;
  zip: string | null;
  /** Country name in English, e.g. `United States` (docs/api.md §Terminal resource `country`). */
  country: string | null;
  countryCode: string | null;
  /** WGS 84 decimal degrees as decimal strings (SMDG), null when no source has them. */
  latitude: string | null;
  longitude: string | null;
  /** IANA time zone, from the coordinates (else the port's); every terminal has one. */
  timeZone: string;
  /** SMDG `Valid to` (YYYY-MM-DD): after it the terminal still resolves but is not listed under its port. */
  validTo: string | null;
  /**
   * `ocean_terminal` (docs/api.md §Terminal resource) or `rail_terminal` (an inland ramp,
   * docs/api.md §Terminal resource).
   */
  facilityType: "ocean_terminal" | "rail_terminal";
}

/** `equipment_type` values of docs/api.md §Container resource (note the spaces in `open top` and `flat rack`). */
export type EquipmentType = "dry" | "reefer" | "open top" | "flat rack" | "bulk" | "tank";

/**
 * `equipment_height` values of docs/api.md §Container resource: `high_cube` is 9'6" (ISO 6346 height code 5 and up).
 */
export type EquipmentHeight = "standard" | "high_cube";

/**
 * An ISO 6346 size-type code as compiled from data/iso6346-size-types.csv (columns
 * `t49_equipment_length`, `t49_equipment_height`, `t49_equipment_type`). A field is null where the code has no
 * value in docs/api.md §Container resource's enum (e.g. the length of a 53 ft `P5G1`, the height of a half-height
 * `28U1`).
 */
export interface SizeTypeRecord {
  /** Four-character size-type code, e.g. `45G1`. */
  code: string;
  /** Nominal length in feet: 10, 20, 40 or 45. */
  length: number | null;
  height: EquipmentHeight | null;
  type: EquipmentType | null;
}

/**
 * An ISO 6346 owner prefix (3-letter BIC owner code + category letter) as compiled from
 * data/container-prefixes.csv.
 */
export interface ContainerPrefixRecord {
  /** Owner code and category, e.g. `MSKU`. */
  prefix: string;
  /** SCACs of the shipping lines known to use the prefix; empty when the owner is not a line we know. */
  mappedScacs: string[];
  /** More than one line claims the prefix (`conflict = yes`), so it does not name one carrier. */
  conflict: boolean;
}

/**
 * An owner of ISO 6346 prefixes whose SCAC data/container-prefixes.csv maps but
 * data/carriers.csv does not list (ocean lines, forwarders and equipment operators alike), compiled by
 * scripts/compile-data.mjs, which says why they are kept apart from the shipping lines. Used only as an
 * infer_number candidate (docs/decisions.md §Infer number); no source tracks them.
 */
export interface ContainerOwnerRecord {
  /** The SCAC the prefix table maps the prefixes to, e.g. `ADMU`. */
  scac: string;
  /** From carriers-extended.csv when it lists the SCAC, else the prefix rows' owner_names. */
  name: string;
  /** The owner's prefixes, sorted. */
  prefixes: string[];
  /** Always false: not a shipping line of the registry, never tracked. */
  trackingSupported: false;
}
