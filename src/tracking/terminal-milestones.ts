import type { Milestone, MilestoneName, ShipmentFacts, TerminalObservation } from "./sources/types";

/** Which time of a {@link TerminalObservation} became a terminal-sourced milestone. */
export type TerminalMilestoneField = "dischargedAt" | "fullOutAt" | "emptyReturnedAt";

/**
 * The `raw` of a terminal-sourced milestone (kept as its raw event): the facility that reported it, the
 * observation's field and value, and when the facility was checked.
 */
export interface TerminalMilestoneRaw {
  source: "terminal";
  /** Our facility code (CBP FIRMS or the reference data's terminal code) of the reporting facility; null if unknown. */
  facilityCode: string | null;
  field: TerminalMilestoneField;
  /** The reported time (UTC ISO, second precision). */
  value: string;
  /** When the facility was checked (UTC ISO). */
  checkedAt: string;
}

/** Whether the carrier reports an actual `event` at `locode` (a milestone without a place counts as there). */
function carrierHas(carrier: readonly Milestone[], event: MilestoneName, locode: string | null): boolean {
  return carrier.some(
    (m) => !m.estimated && m.event === event && (!locode || !m.locationLocode || m.locationLocode === locode),
  );
}

function terminalMilestone(
  event: MilestoneName,
  field: TerminalMilestoneField,
  observation: TerminalObservation,
  locode: string,
  facilityCode: string | null,
  vessel: Pick<Milestone, "vesselName" | "vesselImo" | "voyageNumber"> | null,
): Milestone | null {
  const value = observation[field];
  if (!value) return null;
  const raw: TerminalMilestoneRaw = {
    source: "terminal",
    facilityCode,
    field,
    value,
    checkedAt: observation.checkedAt,
  };
  return {
    event,
    estimated: false,
    modeOfTransport: event === "container.transport.vessel_discharged" ? "VESSEL" : null,
    timestamp: value,
    locationLocode: locode,
    facilityCode,
    vesselName: vessel?.vesselName ?? null,
    vesselImo: vessel?.vesselImo ?? null,
    voyageNumber: vessel?.voyageNumber ?? null,
    originalEvent: `terminal ${field}`,
    sourceEventId: null,
    raw,
  };
}

/**
 * The actual milestones a box's facilities report that its carrier does not (issue 14: "`container.transport.*` for
 * discharge/full-out/empty-in, deduplicated against the carrier's copy of the same milestone"), to be recorded as
 * terminal-sourced transport events (`data_source` `terminal`):
 * - `vessel_discharged` at the POD, from the POD terminal's `dischargedAt` (on a move with an inland leg, from
 *   `podObservation`, the POD terminal's answer; the inland ramp's `dischargedAt` is the rail unload, not this), at
 *   the POD terminal (`podTerminalCode`), naming the POD vessel and voyage of the shipment facts when known;
 * - `full_out` from the final facility's `fullOutAt`: at the POD terminal, or on a rail move at the destination
 *   (`destinationLocode`, `destinationTerminalCode`); no vessel;
 * - `empty_in` from the final facility's `emptyReturnedAt`, at that facility's place; no vessel.
 * Each only when the carrier's `carrierMilestones` hold no actual of that event at that place (for `empty_in`:
 * anywhere, one empty return per journey, as `empty_terminated_at` in src/tracking/derive.ts), and only when the
 * place's UN/LOCODE is known. A time the observation does not carry gives nothing (a facility that stops sending it
 * retracts nothing: src/tracking/events.ts keeps what was recorded). Times are taken as given (UTC ISO, second
 * precision, as TerminalObservation promises). Pure.
 */
export function terminalMilestones(
  shipment: Pick<
    ShipmentFacts,
    | "portOfDischargeLocode"
    | "podTerminalCode"
    | "destinationLocode"
    | "destinationTerminalCode"
    | "podVesselName"
    | "podVesselImo"
    | "podVoyageNumber"
  >,
  carrierMilestones: readonly Milestone[],
  terminal: TerminalObservation | null,
  podObservation: TerminalObservation | null,
): Milestone[] {
  const pod = shipment.portOfDischargeLocode;
  const destination = shipment.destinationLocode;
  const hasInlandLeg = Boolean(destination && destination !== pod);
  const out: Milestone[] = [];
  const push = (m: Milestone | null) => {
    if (m) out.push(m);
  };
  const atPod = hasInlandLeg ? podObservation : terminal;
  if (pod && atPod && !carrierHas(carrierMilestones, "container.transport.vessel_discharged", pod)) {
    const vessel = {
      vesselName: shipment.podVesselName,
      vesselImo: shipment.podVesselImo,
      voyageNumber: shipment.podVoyageNumber,
    };
    push(
      terminalMilestone(
        "container.transport.vessel_discharged",
        "dischargedAt",
        atPod,
        pod,
        shipment.podTerminalCode,
        vessel,
      ),
    );
  }
  const finalPlace = hasInlandLeg ? destination : pod;
  const finalFacility = hasInlandLeg ? (shipment.destinationTerminalCode ?? null) : shipment.podTerminalCode;
  if (finalPlace && terminal) {
    if (!carrierHas(carrierMilestones, "container.transport.full_out", finalPlace)) {
      push(terminalMilestone("container.transport.full_out", "fullOutAt", terminal, finalPlace, finalFacility, null));
    }
    if (!carrierHas(carrierMilestones, "container.transport.empty_in", null)) {
      push(
        terminalMilestone("container.transport.empty_in", "emptyReturnedAt", terminal, finalPlace, finalFacility, null),
      );
    }
  }
  return out;
}
