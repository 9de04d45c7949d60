import type { TerminalFee, TerminalHold } from "../db/schema";
import { findPortByLocode, resolveTerminal } from "../reference/locations";
import type { ContainerFacts, Milestone, MilestoneName, ShipmentFacts, TerminalObservation } from "./sources/types";
import { type CurrentStatus, deriveCurrentStatus } from "./status";

/**
 * Everything the service shows about one box, derived from its sources (docs/architecture.md §Tracking pipeline step
 * 4). Field names follow the `containers` columns; times are UTC ISO strings (second precision, `Z`); ids are reference
 * ids.
 */
export interface ContainerState {
  sealNumber: string | null;
  equipmentType: string | null;
  equipmentLength: number | null;
  equipmentHeight: string | null;
  weightInLbs: number | null;
  currentStatus: CurrentStatus;
  availabilityKnown: boolean;
  availableForPickup: boolean | null;
  holdsAtPodTerminal: TerminalHold[];
  feesAtPodTerminal: TerminalFee[];
  pickupLfdTerminal: string | null;
  pickupLfdRail: string | null;
  pickupLfdLine: string | null;
  pickupLfd: string | null;
  pickupAppointmentAt: string | null;
  emptyOutAt: string | null;
  polFullInAt: string | null;
  polVesselLoadedAt: string | null;
  polVesselDepartedAt: string | null;
  podArrivedAt: string | null;
  podDischargedAt: string | null;
  podFullOutAt: string | null;
  podFullOutChassisNumber: string | null;
  locationAtPodTerminal: string | null;
  terminalCheckedAt: string | null;
  finalDestinationFullOutAt: string | null;
  emptyTerminatedAt: string | null;
  podTimezone: string | null;
  finalDestinationTimezone: string | null;
  emptyTerminatedTimezone: string | null;
  podRailCarrierScac: string | null;
  indRailCarrierScac: string | null;
  podRailLoadedAt: string | null;
  podRailDepartedAt: string | null;
  indEtaAt: string | null;
  indAtaAt: string | null;
  indRailUnloadedAt: string | null;
  podTerminalId: string | null;
  pickupFacilityId: string | null;
  podLocode: string | null;
}

/** Shipment-level facts the Tracker writes to every subscribed shipment row. */
export interface ShipmentState {
  portOfLadingLocode: string | null;
  portOfDischargeLocode: string | null;
  destinationLocode: string | null;
  podVesselName: string | null;
  podVesselImo: string | null;
  podVoyageNumber: string | null;
  polEtdAt: string | null;
  polAtdAt: string | null;
  podEtaAt: string | null;
  podAtaAt: string | null;
  destinationEtaAt: string | null;
  destinationAtaAt: string | null;
}

/**
 * Manual facts set through the API rather than observed (docs/api.md §Container status: `delivered` is only ever set by
 * a user).
 */
export interface ManualFacts {
  deliveredAt: string | null;
}

/** The newest actual milestone of `event` (optionally only at `locode`), or null. */
function lastActual(milestones: Milestone[], event: MilestoneName, locode?: string | null): Milestone | null {
  let found: Milestone | null = null;
  for (const m of milestones) {
    if (m.estimated || m.event !== event) continue;
    if (locode && m.locationLocode && m.locationLocode !== locode) continue;
    if (!found || m.timestamp > found.timestamp) found = m;
  }
  return found;
}

/** The oldest actual milestone of `event` (optionally only at `locode`), or null. */
function firstActual(milestones: Milestone[], event: MilestoneName, locode?: string | null): Milestone | null {
  let found: Milestone | null = null;
  for (const m of milestones) {
    if (m.estimated || m.event !== event) continue;
    if (locode && m.locationLocode && m.locationLocode !== locode) continue;
    if (!found || m.timestamp < found.timestamp) found = m;
  }
  return found;
}

/** The newest estimate of `event` (optionally at `locode`): the latest report wins, i.e. the last in the list. */
function latestEstimate(milestones: Milestone[], event: MilestoneName, locode?: string | null): Milestone | null {
  let found: Milestone | null = null;
  for (const m of milestones) {
    if (!m.estimated || m.event !== event) continue;
    if (locode && m.locationLocode && m.locationLocode !== locode) continue;
    found = m;
  }
  return found;
}

/**
 * `pickup_lfd`: the first non-null of `pickup_lfd_line`, `pickup_lfd_terminal`, `pickup_lfd_rail`
 * (docs/decisions.md §Containers).
 */
export function coalescePickupLfd(line: string | null, terminal: string | null, rail: string | null): string | null {
  return line ?? terminal ?? rail ?? null;
}

/**
 * Merges what the carrier and the terminal (or inland ramp) report into the container's state
 * (docs/architecture.md §Tracking pipeline step 4). Rules:
 * - milestone times are the actual events at the right place: POL for empty-out/full-in/load/depart, the POD
 *   for arrival/discharge/full-out, the inland destination for rail unload/arrival/full-out;
 * - when the move continues inland, the terminal observation is the inland ramp's: its LFD is
 *   `pickup_lfd_rail` and it is the pickup facility; otherwise it is the POD terminal's (`pickup_lfd_terminal`);
 * - on a move with an inland leg, `podObservation` is the POD terminal's (the box before it leaves by rail): it
 *   gives the POD discharge time the carrier has not reported and, until the ramp has the box and while no rail
 *   departure is known, the holds, fees, location and check time (availability stays the pickup facility's);
 * - a terminal's discharge, full-out or empty-return time fills in what the carrier has not reported (the empty
 *   return's zone is then the reporting facility's);
 * - `pickup_lfd` coalesces line → terminal → rail; `current_status` follows docs/decisions.md §Containers;
 * - time zones come from the reference data of the POD, the destination and the empty-return location.
 * Pure: the same inputs always give the same state.
 */
export function deriveContainerState(
  shipment: ShipmentFacts,
  container: ContainerFacts,
  terminal: TerminalObservation | null,
  manual: ManualFacts,
  podObservation: TerminalObservation | null = null,
): ContainerState {
  const milestones = container.milestones ?? [];
  const pol = shipment.portOfLadingLocode;
  const pod = shipment.portOfDischargeLocode;
  const destination = shipment.destinationLocode;
  const hasInlandLeg = Boolean(destination && destination !== pod);
  const podPort = findPortByLocode(pod);
  const podTerminal = resolveTerminal(shipment.podTerminalCode, pod);
  const destinationPort = findPortByLocode(destination);
  const destinationTerminal = resolveTerminal(shipment.destinationTerminalCode, destination);

  const fullOutAtPod = hasInlandLeg ? null : lastActual(milestones, "container.transport.full_out", pod);
  const fullOutInland = hasInlandLeg ? lastActual(milestones, "container.transport.full_out", destination) : null;
  const emptyIn = lastActual(milestones, "container.transport.empty_in");
  const emptyInPort = findPortByLocode(emptyIn?.locationLocode);
  // A terminal that reports the empty return (Port of Virginia `emptyReturnTime`, LBCT's empty visit) stands in for
  // a carrier that has not (yet) reported the empty_in; the carrier's milestone wins when both exist.
  const emptyReturnedAtFacility = emptyIn ? null : (terminal?.emptyReturnedAt ?? null);

  const podDischargedAt = lastActual(milestones, "container.transport.vessel_discharged", pod)?.timestamp ?? null;
  const terminalAtPod = hasInlandLeg ? null : terminal;
  const terminalInland = hasInlandLeg ? terminal : null;
  const railDeparted = hasInlandLeg ? firstActual(milestones, "container.transport.rail_departed") : null;
  // Where the box is: the final facility once it reports the box; on a rail move before that, the POD terminal
  // (until the train has left).
  const here = terminal ?? (hasInlandLeg && !railDeparted ? podObservation : null);

  const state: Omit<ContainerState, "currentStatus" | "pickupLfd"> = {
    sealNumber: container.sealNumber,
    equipmentType: container.equipmentType,
    equipmentLength: container.equipmentLength,
    equipmentHeight: container.equipmentHeight,
    weightInLbs: container.weightInLbs,
    availabilityKnown: terminal?.availabilityKnown ?? false,
    availableForPickup: terminal?.availabilityKnown ? terminal.availableForPickup : null,
    holdsAtPodTerminal: here?.holds ?? [],
    feesAtPodTerminal: here?.fees ?? [],
    pickupLfdTerminal: terminalAtPod?.pickupLfd ?? null,
    pickupLfdRail: terminalInland?.pickupLfd ?? null,
    pickupLfdLine: container.pickupLfdLine ?? null,
    pickupAppointmentAt: here?.pickupAppointmentAt ?? null,
    emptyOutAt: firstActual(milestones, "container.transport.empty_out")?.timestamp ?? container.emptyOutAt,
    polFullInAt: firstActual(milestones, "container.transport.full_in", pol)?.timestamp ?? container.polFullInAt,
    polVesselLoadedAt:
      firstActual(milestones, "container.transport.vessel_loaded", pol)?.timestamp ?? container.polVesselLoadedAt,
    polVesselDepartedAt:
      firstActual(milestones, "container.transport.vessel_departed", pol)?.timestamp ?? container.polVesselDepartedAt,
    podArrivedAt: lastActual(milestones, "container.transport.vessel_arrived", pod)?.timestamp ?? null,
    podDischargedAt: podDischargedAt ?? (hasInlandLeg ? podObservation?.dischargedAt : terminal?.dischargedAt) ?? null,
    podFullOutAt: fullOutAtPod?.timestamp ?? terminalAtPod?.fullOutAt ?? null,
    podFullOutChassisNumber: here?.fullOutChassisNumber ?? null,
    locationAtPodTerminal: here?.locationAtTerminal ?? null,
    // The last facility check known, even one that no longer describes where the box is (the POD terminal's once
    // the train has left).
    terminalCheckedAt: here?.checkedAt ?? (hasInlandLeg ? podObservation?.checkedAt : null) ?? null,
    finalDestinationFullOutAt: fullOutInland?.timestamp ?? terminalInland?.fullOutAt ?? null,
    emptyTerminatedAt: emptyIn?.timestamp ?? emptyReturnedAtFacility,
    podTimezone: podPort?.timeZone ?? podTerminal?.timeZone ?? null,
    finalDestinationTimezone: hasInlandLeg
      ? (destinationPort?.timeZone ?? destinationTerminal?.timeZone ?? null)
      : null,
    emptyTerminatedTimezone: emptyIn
      ? (emptyInPort?.timeZone ?? null)
      : emptyReturnedAtFacility
        ? hasInlandLeg
          ? (destinationTerminal?.timeZone ?? destinationPort?.timeZone ?? null)
          : (podTerminal?.timeZone ?? podPort?.timeZone ?? null)
        : null,
    podRailCarrierScac: container.podRailCarrierScac ?? null,
    indRailCarrierScac: container.indRailCarrierScac ?? null,
    podRailLoadedAt: hasInlandLeg
      ? (firstActual(milestones, "container.transport.rail_loaded")?.timestamp ?? null)
      : null,
    podRailDepartedAt: railDeparted?.timestamp ?? null,
    indEtaAt: hasInlandLeg
      ? (latestEstimate(milestones, "container.transport.arrived_at_inland_destination")?.timestamp ??
        shipment.destinationEtaAt ??
        null)
      : null,
    indAtaAt: hasInlandLeg
      ? (lastActual(milestones, "container.transport.arrived_at_inland_destination")?.timestamp ??
        lastActual(milestones, "container.transport.rail_arrived", destination)?.timestamp ??
        null)
      : null,
    indRailUnloadedAt: hasInlandLeg
      ? (lastActual(milestones, "container.transport.rail_unloaded", destination)?.timestamp ??
        terminalInland?.dischargedAt ??
        null)
      : null,
    podTerminalId: podTerminal?.id ?? null,
    pickupFacilityId: hasInlandLeg ? (destinationTerminal?.id ?? null) : null,
    podLocode: pod,
  };
  const currentStatus = deriveCurrentStatus({
    deliveredAt: manual.deliveredAt,
    emptyTerminatedAt: state.emptyTerminatedAt,
    podFullOutAt: state.podFullOutAt,
    finalDestinationFullOutAt: state.finalDestinationFullOutAt,
    hasInlandLeg,
    offDock: here?.offDock ?? false,
    podDischargedAt: state.podDischargedAt,
    indRailUnloadedAt: state.indRailUnloadedAt,
    indAtaAt: state.indAtaAt,
    podRailLoadedAt: state.podRailLoadedAt,
    podRailDepartedAt: state.podRailDepartedAt,
    polVesselLoadedAt: state.polVesselLoadedAt,
    polVesselDepartedAt: state.polVesselDepartedAt,
    availabilityKnown: state.availabilityKnown,
    availableForPickup: state.availableForPickup,
  });
  return {
    ...state,
    currentStatus,
    pickupLfd: coalescePickupLfd(state.pickupLfdLine, state.pickupLfdTerminal, state.pickupLfdRail),
  };
}

/**
 * Shipment-level state from the carrier's facts: vessel and voyage at the POD, ETD/ATD at the POL, ETA/ATA at
 * the POD (the latest estimate wins; an actual arrival settles the ATA), and the line's view of the inland
 * destination.
 */
export function deriveShipmentState(shipment: ShipmentFacts): ShipmentState {
  const all = shipment.containers.flatMap((c) => c.milestones ?? []);
  const pod = shipment.portOfDischargeLocode;
  const pol = shipment.portOfLadingLocode;
  return {
    portOfLadingLocode: pol,
    portOfDischargeLocode: pod,
    destinationLocode: shipment.destinationLocode,
    podVesselName: shipment.podVesselName,
    podVesselImo: shipment.podVesselImo,
    podVoyageNumber: shipment.podVoyageNumber,
    polEtdAt: latestEstimate(all, "container.transport.vessel_departed", pol)?.timestamp ?? shipment.polEtdAt,
    polAtdAt: firstActual(all, "container.transport.vessel_departed", pol)?.timestamp ?? shipment.polAtdAt,
    podEtaAt: latestEstimate(all, "container.transport.vessel_arrived", pod)?.timestamp ?? shipment.podEtaAt,
    podAtaAt: lastActual(all, "container.transport.vessel_arrived", pod)?.timestamp ?? shipment.podAtaAt,
    destinationEtaAt:
      latestEstimate(all, "container.transport.arrived_at_inland_destination")?.timestamp ??
      shipment.destinationEtaAt ??
      null,
    destinationAtaAt:
      lastActual(all, "container.transport.arrived_at_inland_destination")?.timestamp ??
      shipment.destinationAtaAt ??
      null,
  };
}
