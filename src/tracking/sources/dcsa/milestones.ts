/**
 * DCSA events to our milestones (docs/carriers.md §DCSA event mapping): moves by mode and by where their call
 * sits in the journey, gates and empty returns by the journey's times, and the milestone a mapped event becomes.
 */
import { toIsoSeconds } from "../../../lib/clock";
import type { Milestone, MilestoneName } from "../types";
import type { Call, NormalisedEvent } from "./events";
import { type Journey, movesCargo } from "./journey";

const T = "container.transport.";
const VESSEL_AT_POL: Record<string, MilestoneName> = { LOAD: `${T}vessel_loaded`, DEPA: `${T}vessel_departed` };
const VESSEL_AT_POD: Record<string, MilestoneName> = { ARRI: `${T}vessel_arrived`, DISC: `${T}vessel_discharged` };
const TRANSSHIPMENT: Record<string, MilestoneName> = {
  ARRI: `${T}transshipment_arrived`,
  DISC: `${T}transshipment_discharged`,
  LOAD: `${T}transshipment_loaded`,
  DEPA: `${T}transshipment_departed`,
};
const FEEDER: Record<string, MilestoneName> = {
  ARRI: `${T}feeder_arrived`,
  DISC: `${T}feeder_discharged`,
  LOAD: `${T}feeder_loaded`,
  DEPA: `${T}feeder_departed`,
};
const RAIL: Record<string, MilestoneName> = {
  LOAD: `${T}rail_loaded`,
  DEPA: `${T}rail_departed`,
  ARRI: `${T}rail_arrived`,
  DISC: `${T}rail_unloaded`,
};

/**
 * Our milestones for one move (LOAD/DISC/ARRI/DEPA): by mode of transport, and for vessels by where the call sits
 * in the journey. Empty moves and truck moves have no mapping. A rail arrival at the place of delivery is both
 * `rail_arrived` and `arrived_at_inland_destination` (the CSV maps it to both).
 */
export function mapMove(e: NormalisedEvent, journey: Journey): MilestoneName[] {
  const call = e.call;
  if (!call || !movesCargo(e)) return [];
  const one = (name: MilestoneName | undefined): MilestoneName[] => (name ? [name] : []);
  switch (call.mode) {
    case "VESSEL": {
      const atPol = call === journey.pol;
      const atPod = call === journey.pod;
      if (atPol || atPod)
        return one((atPol ? VESSEL_AT_POL[e.code] : undefined) ?? (atPod ? VESSEL_AT_POD[e.code] : undefined));
      return one(TRANSSHIPMENT[e.code]);
    }
    case "BARGE":
      return one(FEEDER[e.code]);
    case "RAIL": {
      if (journey.podStartMs === null || e.atMs < journey.podStartMs) return [];
      const names = one(RAIL[e.code]);
      if (e.code === "ARRI" && call === journey.destination) names.push(`${T}arrived_at_inland_destination`);
      return names;
    }
    default:
      return [];
  }
}

/**
 * Our milestone for a gate or drop event of one box, or null (kept as raw): GTOT EMPTY before the journey starts →
 * `empty_out`; GTIN LADEN at the POL before loading → `full_in`; GTOT LADEN after the POD arrival → `full_out`.
 * Empty returns are decided by {@link mapEmptyReturn}. DROP at a customer (CLOC) would be `delivered`, which is
 * manual only (docs/api.md §Container status), so it stays raw.
 */
export function mapGate(e: NormalisedEvent, journey: Journey): MilestoneName | null {
  const journeyStartMs = journey.polStartMs ?? journey.podStartMs;
  const beforeJourney = journeyStartMs === null || e.atMs <= journeyStartMs;
  if (e.code === "GTOT" && e.empty === "EMPTY" && beforeJourney) return `${T}empty_out`;
  if (e.code === "GTIN" && e.empty === "LADEN" && beforeJourney) {
    const polLocode = journey.pol?.locode ?? null;
    if (!polLocode || !e.locode || e.locode === polLocode) return `${T}full_in`;
    return null;
  }
  if (e.code === "GTOT" && e.empty === "LADEN" && journey.podStartMs !== null && e.atMs >= journey.podStartMs) {
    return `${T}full_out`;
  }
  return null;
}

/** GTIN EMPTY, or DROP EMPTY at a depot (DEPO), after the box's full-out (or, with none reported, after the POD arrival). */
export function mapEmptyReturn(e: NormalisedEvent, journey: Journey, fullOutMs: number | null): MilestoneName | null {
  if (e.empty !== "EMPTY") return null;
  if (e.code !== "GTIN" && !(e.code === "DROP" && e.facilityTypeCode === "DEPO")) return null;
  const afterMs = fullOutMs ?? journey.podStartMs;
  return afterMs !== null && e.atMs >= afterMs ? `${T}empty_in` : null;
}

/** The voyage of a call for a move: the import voyage for an arrival or discharge, else the export one. */
export function voyageFor(call: Call | null, code: string): string | null {
  if (!call) return null;
  return code === "ARRI" || code === "DISC"
    ? (call.importVoyage ?? call.carrierVoyage ?? call.exportVoyage)
    : (call.exportVoyage ?? call.carrierVoyage ?? call.importVoyage);
}

/** The milestone `event` as a mapped DCSA event becomes it: actual or estimated, time, place, vessel, raw. */
export function toMilestone(e: NormalisedEvent, event: MilestoneName): Milestone {
  const call = e.call;
  const mode = call?.mode ?? null;
  const onVessel = call !== null && (mode === "VESSEL" || mode === "BARGE");
  return {
    event,
    estimated: e.classifier !== "ACT",
    modeOfTransport: mode === "VESSEL" || mode === "BARGE" || mode === "RAIL" || mode === "TRUCK" ? mode : null,
    timestamp: toIsoSeconds(e.atMs),
    locationLocode: e.locode ?? call?.locode ?? null,
    // Only when the carrier names the place: a milestone without it stays as it was (snapshots, identities).
    ...(e.locationName ? { locationName: e.locationName } : {}),
    facilityCode: e.facilityCode ?? call?.facilityCode ?? null,
    vesselName: onVessel ? call.vesselName : null,
    vesselImo: onVessel ? call.vesselImo : null,
    voyageNumber: onVessel ? voyageFor(call, e.code) : null,
    originalEvent: `${e.type} ${e.code} ${e.classifier}`,
    sourceEventId: e.id,
    raw: e.raw,
  };
}
