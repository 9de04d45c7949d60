import { POSITION_MIN_INTERVAL_MS } from "../position-store";
import type { TrackedVessel, VesselIdentityReport, VesselPositionReport } from "./source";

/**
 * What the AIS feed holds between two writes to D1 (docs/architecture.md §Vessel positions): reports of followed
 * vessels only, thinned as they arrive to one per vessel per {@link POSITION_MIN_INTERVAL_MS} plus the newest, so
 * memory stays bounded however fast a vessel reports. Reports of a vessel nobody follows are counted and dropped here:
 * they are never stored.
 */
export class PositionBuffer {
  private byVessel = new Map<string, { kept: VesselPositionReport[]; keptMs: number; newest: VesselPositionReport }>();
  private identities = new Map<string, VesselIdentityReport>();
  private followedMmsis = new Set<string>();
  private followedImos = new Set<string>();
  /** Reports dropped because no followed vessel has their MMSI / IMO number. */
  untracked = 0;
  /** Reports accepted since the buffer was made (thinned ones included). */
  accepted = 0;

  /** The vessels whose reports are kept from now on. */
  setFollowed(vessels: readonly TrackedVessel[]): void {
    this.followedImos = new Set(vessels.map((v) => v.imo));
    this.followedMmsis = new Set(vessels.flatMap((v) => (v.mmsi ? [v.mmsi] : [])));
  }

  /** Reports held (positions that will be written, identities), to decide an early flush. */
  get size(): number {
    let n = this.identities.size;
    for (const v of this.byVessel.values()) n += v.kept.length + 1;
    return n;
  }

  /** Keeps a position of a followed vessel (by IMO number when it has one, else by MMSI). */
  position(report: VesselPositionReport): boolean {
    const followed = report.imo
      ? this.followedImos.has(report.imo)
      : !!report.mmsi && this.followedMmsis.has(report.mmsi);
    if (!followed) {
      this.untracked++;
      return false;
    }
    this.accepted++;
    const key = report.imo ? `imo:${report.imo}` : `mmsi:${report.mmsi}`;
    const ms = Date.parse(report.timestamp);
    const entry = this.byVessel.get(key);
    if (!entry) {
      this.byVessel.set(key, { kept: [report], keptMs: ms, newest: report });
      return true;
    }
    if (ms - entry.keptMs >= POSITION_MIN_INTERVAL_MS) {
      entry.kept.push(report);
      entry.keptMs = ms;
    }
    if (ms >= Date.parse(entry.newest.timestamp)) entry.newest = report;
    return true;
  }

  /** Keeps an identity (IMO number ↔ MMSI) of a followed vessel. @returns true when it gives a followed IMO a new MMSI. */
  identity(report: VesselIdentityReport): boolean {
    if (!this.followedImos.has(report.imo)) {
      this.untracked++;
      return false;
    }
    this.accepted++;
    this.identities.set(report.imo, report);
    if (this.followedMmsis.has(report.mmsi)) return false;
    this.followedMmsis.add(report.mmsi);
    return true;
  }

  /** Takes everything held and empties the buffer. */
  drain(): { positions: VesselPositionReport[]; identities: VesselIdentityReport[] } {
    const positions: VesselPositionReport[] = [];
    for (const { kept, newest } of this.byVessel.values()) {
      positions.push(...kept);
      if (!kept.includes(newest)) positions.push(newest);
    }
    const identities = [...this.identities.values()];
    this.byVessel.clear();
    this.identities.clear();
    return { positions, identities };
  }
}
