import { toIsoSeconds } from "../../src/lib/clock";
import type {
  ContainerFacts,
  Milestone,
  MilestoneName,
  ShipmentFacts,
  TerminalObservation,
} from "../../src/tracking/sources/types";

// Builders of source facts for tracking-engine tests (pure: no bindings).

export const MINUTE_MS = 60_000;
export const HOUR_MS = 60 * MINUTE_MS;
export const DAY_MS = 24 * HOUR_MS;

/** UTC ISO (second precision, `Z`) of `ms`. */
export const iso = toIsoSeconds;

/** An actual (or, with `estimated`, estimated) milestone. */
export function milestone(
  event: MilestoneName,
  timestamp: string,
  locode: string | null,
  options: { estimated?: boolean; id?: string | null; facility?: string | null } = {},
): Milestone {
  return {
    event,
    estimated: options.estimated ?? false,
    timestamp,
    locationLocode: locode,
    facilityCode: options.facility ?? null,
    vesselName: "TEST VESSEL",
    vesselImo: "9000001",
    voyageNumber: "100E",
    originalEvent: event,
    sourceEventId: options.id ?? null,
    raw: { event, timestamp },
  };
}

/** A box with nothing but its milestones. */
export function containerFacts(
  number: string,
  milestones: Milestone[] = [],
  extra: Partial<ContainerFacts> = {},
): ContainerFacts {
  return {
    number,
    sealNumber: null,
    equipmentType: "dry",
    equipmentLength: 40,
    equipmentHeight: "high_cube",
    weightInLbs: 20_000,
    emptyOutAt: null,
    polFullInAt: null,
    polVesselLoadedAt: null,
    polVesselDepartedAt: null,
    milestones,
    ...extra,
  };
}

/** A shipment Yantian (CNYTN) → Los Angeles (USLAX, Fenix Y257), optionally continuing by rail. */
export function shipmentFacts(containers: ContainerFacts[], extra: Partial<ShipmentFacts> = {}): ShipmentFacts {
  return {
    billOfLadingNumber: "FAKEBL",
    portOfLadingLocode: "CNYTN",
    portOfDischargeLocode: "USLAX",
    podTerminalCode: "Y257",
    destinationLocode: null,
    destinationTerminalCode: null,
    podVesselName: "TEST VESSEL",
    podVesselImo: "9000001",
    podVoyageNumber: "100E",
    polEtdAt: null,
    polAtdAt: null,
    podEtaAt: null,
    podAtaAt: null,
    containers,
    ...extra,
  };
}

/** A terminal observation with nothing known; `extra` sets what a case is about. */
export function observation(checkedAt: string, extra: Partial<TerminalObservation> = {}): TerminalObservation {
  return {
    checkedAt,
    availabilityKnown: false,
    availableForPickup: null,
    holds: [],
    fees: [],
    pickupLfd: null,
    pickupAppointmentAt: null,
    locationAtTerminal: null,
    dischargedAt: null,
    fullOutAt: null,
    fullOutChassisNumber: null,
    offDock: false,
    ...extra,
  };
}
