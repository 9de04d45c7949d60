/**
 * Where vessel positions come from (docs/architecture.md §Vessel positions): a {@link VesselPositionSource} follows a
 * set of vessels and hands what it hears to a {@link VesselPositionSink}. Two sources implement it: the AIS feed
 * (src/vessels/positions/aisstream.ts, aisstream.io over a WebSocket held by the AisFeed Durable Object) and the
 * journey simulator's vessel movement. The sink the service uses is `recordPositions` (src/vessels/position-store.ts):
 * thinned, bounded, shared by every account, never a webhook.
 *
 * This file is the contract between the sources and the store: types only, no I/O.
 */

/** Which source a recorded position came from: the `source` column of `vessel_positions`. */
export type PositionSourceKind = "ais" | "simulator";

/**
 * A vessel a source should follow: one that carries a tracked box (src/vessels/tracked-vessels.ts). `imo` is the
 * 7-digit IMO number (the vessel's key); `mmsi` the 9-digit Maritime Mobile Service Identity AIS reports carry, null
 * until learnt (AIS static data names both); `name` as the carrier or AIS gave it.
 */
export interface TrackedVessel {
  imo: string;
  mmsi: string | null;
  name: string | null;
}

/**
 * One position report of a vessel. At least one of `imo` / `mmsi` is set: AIS position reports carry only the MMSI,
 * the simulator knows the IMO number. Coordinates are WGS84 decimal degrees (latitude −90…90, longitude −180…180);
 * `speedKnots` is speed over ground (knots), `headingDegrees` the true heading (0…359, 0 = north) or, without one, the
 * course over ground; either null when not available. `timestamp` is when the position was fixed, UTC ISO 8601 with
 * seconds and `Z` (docs/decisions.md §Wire format).
 */
export interface VesselPositionReport {
  imo: string | null;
  mmsi: string | null;
  latitude: number;
  longitude: number;
  speedKnots: number | null;
  headingDegrees: number | null;
  timestamp: string;
  source: PositionSourceKind;
}

/**
 * What a source learnt of a vessel's identity (AIS static data, message 5 / 24): its IMO number, MMSI and name. This
 * is how an IMO number gets its MMSI, and so how a followed vessel's position reports become attributable.
 */
export interface VesselIdentityReport {
  imo: string;
  mmsi: string;
  name: string | null;
}

/**
 * Receives what a source hears. A sink may buffer; `flush` writes what it holds (the AisFeed object calls it every
 * `FLUSH_INTERVAL_MS` and when it stops). Implementations never throw for one bad report: they drop it and count it.
 */
export interface VesselPositionSink {
  /** A vessel's position (one report; the sink thins and bounds the history). */
  position(report: VesselPositionReport): void;
  /** A vessel's identity (IMO number ↔ MMSI, name). */
  identity(report: VesselIdentityReport): void;
  /** Writes what is buffered. Resolves when written. */
  flush(): Promise<void>;
}

/**
 * A source of vessel positions. `follow` replaces the set of vessels followed (the whole set, not a delta): the source
 * subscribes to those and only those, and reports positions of other vessels to nobody. `close` stops it (idempotent).
 */
export interface VesselPositionSource {
  readonly kind: PositionSourceKind;
  follow(vessels: readonly TrackedVessel[]): Promise<void>;
  close(): Promise<void>;
}
