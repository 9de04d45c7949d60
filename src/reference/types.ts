/** A shipping line (ocean carrier) as compiled from ../shared/data/carriers*.csv. */
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

/** A port by UN/LOCODE; latitude/longitude are decimal strings when known. */
export interface PortRecord {
  id: string;
  code: string;
  name: string;
  city: string | null;
  stateAbbr: string | null;
  countryCode: string;
  latitude: string | null;
  longitude: string | null;
  /** IANA time zone, e.g. `America/Los_Angeles`. */
  timeZone: string | null;
}

/** A terminal (facility) with its CBP FIRMS code, port and IANA time zone. */
export interface TerminalRecord {
  id: string;
  name: string;
  nickname: string | null;
  /** CBP FIRMS code (US terminals), e.g. `Y258`. */
  firmsCode: string | null;
  /** BIC facility code (UN/LOCODE + facility), e.g. `AEJEADPWJ2`. */
  bicFacilityCode: string | null;
  portLocode: string;
  portId: string;
  city: string | null;
  stateAbbr: string | null;
  countryCode: string | null;
  timeZone: string | null;
}
