/**
 * The facts of a DCSA lookup ({@link buildShipment}): the shipment's ports, vessel and times from the journey's calls,
 * and per box its milestones (transport events fanned out to the boxes on their call), equipment and seals.
 */
import { toIsoSeconds } from "../../../lib/clock";
import { decodeSizeType } from "../../../reference/equipment";
import { canonicalFacilityCode } from "../../../reference/locations";
import { milestoneIdentity } from "../../identity";
import type { ContainerFacts, LookupRequest, Milestone, MilestoneName, ShipmentFacts } from "../types";
import type { Call, NormalisedEvent, ParsedEvents } from "./events";
import { buildJourney, type Journey } from "./journey";
import { mapEmptyReturn, mapGate, mapMove, toMilestone, voyageFor } from "./milestones";

const T = "container.transport.";

/** The newest report (by `eventCreatedDateTime`) among `events`; later in the list wins a tie. */
function newest(events: NormalisedEvent[]): NormalisedEvent | null {
  let found: NormalisedEvent | null = null;
  for (const e of events) if (!found || e.createdMs >= found.createdMs) found = e;
  return found;
}

/** Estimate and actual of a transport event code at a call: the latest estimate wins (CSV: "keep latest EST"). */
function callTimes(call: Call | null, code: string): { estimate: string | null; actual: string | null } {
  const events = (call?.events ?? []).filter((e) => e.type === "TRANSPORT" && e.code === code);
  const estimate = newest(events.filter((e) => e.classifier !== "ACT"));
  const actual = newest(events.filter((e) => e.classifier === "ACT"));
  return {
    estimate: estimate ? toIsoSeconds(estimate.atMs) : null,
    actual: actual ? toIsoSeconds(actual.atMs) : null,
  };
}

/**
 * The call's facility as the rest of the engine keys terminals: whatever list the carrier's `facilityCode` comes
 * from (`facilityCodeListProvider` SMDG or BIC, or a FIRMS code), the terminal's FIRMS code, else its BIC code, else
 * its port-qualified SMDG code, else the code as given (src/reference/locations.ts `canonicalFacilityCode`). SMDG
 * `APMT` at USLAX → `W185`; SMDG `NLMVII` at NLRTM (no FIRMS or BIC code) → `NLRTM:NLMVII`.
 */
function resolveFacilityCode(call: Call | null): string | null {
  return canonicalFacilityCode(call?.facilityCode, call?.locode);
}

const firstActualAt = (milestones: Milestone[], event: MilestoneName): string | null =>
  milestones.find((m) => !m.estimated && m.event === event)?.timestamp ?? null;

/**
 * The shipment's facts from its parsed events (mapping in `createDcsaSource`'s docstring, source.ts): ports, POD
 * vessel, ETD/ETA/ATA from the journey's calls, and each box's facts; every event received ends up in a milestone's
 * `raw` or in an `unmappedEvents` list.
 */
export function buildShipment(request: LookupRequest, parsed: ParsedEvents): ShipmentFacts {
  const moving = [...parsed.transport, ...parsed.equipment];
  const journey = buildJourney(moving);
  const shipmentUnmapped: unknown[] = [...parsed.shipment.map((s) => s.raw), ...parsed.other];

  const equipmentByBox = new Map<string, NormalisedEvent[]>();
  for (const e of parsed.equipment) {
    if (!e.equipment) {
      shipmentUnmapped.push(e.raw);
      continue;
    }
    const list = equipmentByBox.get(e.equipment) ?? [];
    list.push(e);
    equipmentByBox.set(e.equipment, list);
  }
  const boxes = [...equipmentByBox.keys()];

  // TNT 2.2 transport events name documents, not boxes: each goes to the boxes seen on its call, or, for a call
  // no box has an equipment event at yet (a future call), to every box of the shipment.
  const transportByBox = new Map<string, NormalisedEvent[]>(boxes.map((b) => [b, []]));
  const transportUsed = new Set<NormalisedEvent>();
  for (const e of parsed.transport) {
    if (mapMove(e, journey).length === 0 || boxes.length === 0) continue;
    const onCall = new Set(
      (e.call?.events ?? []).filter((x) => x.type === "EQUIPMENT" && x.equipment).map((x) => x.equipment as string),
    );
    for (const box of onCall.size > 0 ? onCall : boxes) transportByBox.get(box)?.push(e);
    transportUsed.add(e);
  }
  for (const e of parsed.transport) if (!transportUsed.has(e)) shipmentUnmapped.push(e.raw);

  const containers = boxes.map((box) =>
    buildContainer(box, equipmentByBox.get(box) ?? [], transportByBox.get(box) ?? [], journey),
  );

  const pol = journey.pol;
  const pod = journey.pod;
  const departure = callTimes(pol, "DEPA");
  const arrival = callTimes(pod, "ARRI");
  const inland = callTimes(journey.destination, "ARRI");
  return {
    billOfLadingNumber: shipmentNumber(request, parsed),
    portOfLadingLocode: pol?.locode ?? null,
    portOfDischargeLocode: pod?.locode ?? null,
    podTerminalCode: resolveFacilityCode(pod),
    destinationLocode: journey.destination?.locode ?? null,
    destinationTerminalCode: resolveFacilityCode(journey.destination),
    podVesselName: pod?.vesselName ?? null,
    podVesselImo: pod?.vesselImo ?? null,
    podVoyageNumber: voyageFor(pod, "ARRI"),
    polEtdAt: departure.estimate,
    polAtdAt: departure.actual,
    podEtaAt: arrival.estimate,
    podAtaAt: arrival.actual,
    destinationEtaAt: inland.estimate,
    destinationAtaAt: inland.actual,
    containers,
    unmappedEvents: shipmentUnmapped,
  };
}

/** BL/booking requests keep the number asked for; a container's shipment is named by its transport document. */
function shipmentNumber(request: LookupRequest, parsed: ParsedEvents): string {
  if (request.requestType !== "container") return request.number;
  const refs = [...parsed.equipment, ...parsed.transport].flatMap((e) => e.documentReferences);
  const fromShipmentEvents = parsed.shipment.find((s) => s.event.documentTypeCode === "TRD")?.event.documentID;
  return (
    refs.find((r) => r.type === "TRD")?.value ??
    fromShipmentEvents ??
    refs.find((r) => r.type === "BKG")?.value ??
    request.number
  );
}

/**
 * The journey as one box sees it: its POL is the call of its own first laden vessel LOAD when it has one (a box
 * rolled to a later vessel has its own POL call); POD and inland legs are the shipment's.
 */
function journeyOfBox(equipment: NormalisedEvent[], journey: Journey): Journey {
  let own: NormalisedEvent | null = null;
  for (const e of equipment) {
    if (e.code !== "LOAD" || e.empty !== "LADEN" || e.call?.mode !== "VESSEL") continue;
    if (!own || e.atMs < own.atMs) own = e;
  }
  return own ? { ...journey, pol: own.call, polStartMs: own.atMs } : journey;
}

function buildContainer(
  number: string,
  equipment: NormalisedEvent[],
  transport: NormalisedEvent[],
  shipmentJourney: Journey,
): ContainerFacts {
  const journey = journeyOfBox(equipment, shipmentJourney);
  const unmapped = new Set<unknown>();
  const produced: { e: NormalisedEvent; m: Milestone }[] = [];
  const emptyReturnCandidates: NormalisedEvent[] = [];
  for (const e of [...equipment, ...transport]) {
    if (e.code === "LOAD" || e.code === "DISC" || e.code === "ARRI" || e.code === "DEPA") {
      const names = mapMove(e, journey);
      for (const name of names) produced.push({ e, m: toMilestone(e, name) });
      if (names.length === 0) unmapped.add(e.raw);
      continue;
    }
    const name = mapGate(e, journey);
    if (name) produced.push({ e, m: toMilestone(e, name) });
    else emptyReturnCandidates.push(e);
  }
  const fullOuts = produced.filter((p) => p.m.event === `${T}full_out`).map((p) => p.e.atMs);
  const fullOutMs = fullOuts.length > 0 ? Math.min(...fullOuts) : null;
  for (const e of emptyReturnCandidates) {
    const name = mapEmptyReturn(e, journey, fullOutMs);
    if (name) produced.push({ e, m: toMilestone(e, name) });
    else unmapped.add(e.raw);
  }

  // One estimate per milestone and call: the newest report wins; older ones are kept as raw only.
  const newestEstimate = new Map<string, { e: NormalisedEvent; m: Milestone }>();
  for (const p of produced) {
    if (!p.m.estimated) continue;
    const key = `${p.m.event}|${p.e.call?.key ?? p.m.locationLocode ?? ""}`;
    const current = newestEstimate.get(key);
    if (!current || p.e.createdMs >= current.e.createdMs) newestEstimate.set(key, p);
  }
  // One actual per identity (src/tracking/identity.ts): a carrier that corrects the time of a move reports it again;
  // the newest report wins, the older ones are kept as raw only.
  const newestActual = new Map<string, { e: NormalisedEvent; m: Milestone }>();
  for (const p of produced) {
    if (p.m.estimated) continue;
    const key = milestoneIdentity(p.m);
    const current = newestActual.get(key);
    if (!current || p.e.createdMs >= current.e.createdMs) newestActual.set(key, p);
  }
  const kept = new Set([...newestEstimate.values(), ...newestActual.values()]);
  const milestones: Milestone[] = [];
  for (const p of produced) {
    if (!kept.has(p)) unmapped.add(p.e.raw);
    else milestones.push(p.m);
  }
  milestones.sort((a, b) => (a.timestamp < b.timestamp ? -1 : a.timestamp > b.timestamp ? 1 : 0));
  for (const m of milestones) unmapped.delete(m.raw);

  const sizeTypeCode = newest(equipment.filter((e) => e.isoCode))?.isoCode ?? null;
  const sealed = equipment.filter((e) => e.seals.length > 0).sort((a, b) => a.atMs - b.atMs);
  return {
    number,
    sizeTypeCode,
    sealNumber: sealed.at(-1)?.seals[0] ?? null,
    ...decodeSizeType(sizeTypeCode),
    weightInLbs: null,
    emptyOutAt: firstActualAt(milestones, `${T}empty_out`),
    polFullInAt: firstActualAt(milestones, `${T}full_in`),
    polVesselLoadedAt: firstActualAt(milestones, `${T}vessel_loaded`),
    polVesselDepartedAt: firstActualAt(milestones, `${T}vessel_departed`),
    milestones,
    unmappedEvents: [...unmapped],
  };
}
