/**
 * The journey of a DCSA shipment: its events grouped into transport calls, and which calls are the POL, the POD and
 * the inland destination ({@link buildJourney}).
 */
import { type Call, callFacility, callLocode, clean, type NormalisedEvent } from "./events";

/** Where a shipment's calls sit: its POL, POD and inland destination calls, and when the moves there start. */
export interface Journey {
  pol: Call | null;
  /** Earliest LOAD/DEPA at the POL call, ms. */
  polStartMs: number | null;
  pod: Call | null;
  /** Earliest ARRI/DISC at the POD call, ms. */
  podStartMs: number | null;
  /** Last rail call after the POD (the place of delivery of a rail leg). */
  destination: Call | null;
}

const isArrival = (e: NormalisedEvent) => e.code === "ARRI" || e.code === "DISC";
const isDeparture = (e: NormalisedEvent) => e.code === "LOAD" || e.code === "DEPA";
/** Events that show the box (or its vessel) moving; EMPTY moves are repositioning, not this shipment. */
export const movesCargo = (e: NormalisedEvent) => e.type === "TRANSPORT" || e.empty === "LADEN";

function attachCall(calls: Map<string, Call>, e: NormalisedEvent): void {
  const tc = e.transportCall;
  let key: string;
  let mode: string;
  if (tc) {
    mode = tc.modeOfTransport.toUpperCase();
    // A call is one mode's: a truck or rail move that reuses a vessel call's id is not merged into it (it would
    // take the vessel's name and voyage, or lend the vessel call its mode).
    key = `${mode}:${tc.transportCallID}`;
  } else if ((e.code === "LOAD" || e.code === "DISC") && e.locode) {
    // A LOAD/DISC without its transport call is, in practice, a vessel move at that port.
    key = `at:${e.locode}`;
    mode = "VESSEL";
  } else {
    return;
  }
  let call = calls.get(key);
  if (!call) {
    call = {
      key,
      mode,
      locode: null,
      facilityCode: null,
      vesselName: null,
      vesselImo: null,
      importVoyage: null,
      exportVoyage: null,
      carrierVoyage: null,
      events: [],
    };
    calls.set(key, call);
  }
  // Events of one call do not all repeat every detail: the first one that gives a field wins.
  call.locode ??= tc ? callLocode(tc) : e.locode;
  call.facilityCode ??= tc ? callFacility(tc) : e.facilityCode;
  call.vesselName ??= clean(tc?.vessel?.vesselName);
  call.vesselImo ??= clean(tc?.vessel?.vesselIMONumber);
  call.importVoyage ??= clean(tc?.importVoyageNumber);
  call.exportVoyage ??= clean(tc?.exportVoyageNumber);
  call.carrierVoyage ??= clean(tc?.carrierVoyageNumber);
  call.events.push(e);
  e.call = call;
}

/**
 * POL = the vessel call of the first LOAD/DEPA, POD = the vessel call of the last ARRI/DISC (any classifier, so a
 * planned arrival already names the POD); every other vessel call is a transshipment. The inland destination is
 * the last rail call with an arrival or discharge after the POD (docs/carriers.md §DCSA event mapping).
 */
export function buildJourney(events: NormalisedEvent[]): Journey {
  const calls = new Map<string, Call>();
  for (const e of events) attachCall(calls, e);
  let pol: Call | null = null;
  let polStartMs: number | null = null;
  let pod: Call | null = null;
  let podLastMs: number | null = null;
  for (const call of calls.values()) {
    if (call.mode !== "VESSEL") continue;
    for (const e of call.events) {
      if (!movesCargo(e)) continue;
      if (isDeparture(e) && (polStartMs === null || e.atMs < polStartMs)) {
        pol = call;
        polStartMs = e.atMs;
      }
      if (isArrival(e) && (podLastMs === null || e.atMs > podLastMs)) {
        pod = call;
        podLastMs = e.atMs;
      }
    }
  }
  const podStartMs = pod
    ? Math.min(...pod.events.filter((e) => movesCargo(e) && isArrival(e)).map((e) => e.atMs))
    : null;
  let destination: Call | null = null;
  if (podStartMs !== null) {
    let lastMs = podStartMs;
    for (const call of calls.values()) {
      if (call.mode !== "RAIL") continue;
      for (const e of call.events) {
        if (movesCargo(e) && isArrival(e) && e.atMs >= lastMs) {
          destination = call;
          lastMs = e.atMs;
        }
      }
    }
  }
  return { pol, polStartMs, pod, podStartMs, destination };
}
