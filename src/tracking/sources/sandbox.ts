import { withCheckDigit } from "../../infer/iso6346";
import { toIsoSeconds } from "../../lib/clock";
import { SANDBOX_SCAC } from "../../reference/shipping-lines";
import { sandboxLifecycleJourney } from "../simulator/sandbox-lifecycle";
import { journeyAt, terminalAt } from "../simulator/state";
import type {
  CarrierSource,
  ContainerFacts,
  LookupRequest,
  LookupResult,
  Milestone,
  MilestoneName,
  ShipmentFacts,
  SourceContext,
  TerminalPollResult,
  TerminalSource,
} from "./types";

/** Sandbox numbers of docs/decisions.md §Sandbox. */
export const SANDBOX_NUMBERS = {
  succeeded: "TEST-TR-SUCCEEDED",
  failed: "TEST-TR-FAILED",
  awaitingManifest: "TEST-TR-AWAITING-MANIFEST",
  retrying: "TEST-TR-RETRYING",
  lifecycle: "TEST-LIFECYCLE",
} as const;

/** Lookups of `TEST-TR-RETRYING` that fail as unreachable before it is found. */
export const SANDBOX_UNREACHABLE_ATTEMPTS = 2;

const DAY_MS = 86_400_000;

/** The two boxes of the static sandbox shipment: owner code TST, category U, valid ISO 6346 check digits. */
export const SANDBOX_CONTAINER_NUMBERS = [withCheckDigit("TSTU100000"), withCheckDigit("TSTU100001")] as const;

/** The two boxes of `TEST-LIFECYCLE`, whose journey is played on the simulation clock. */
export const SANDBOX_LIFECYCLE_CONTAINER_NUMBERS: readonly string[] = [
  withCheckDigit("TSTU200000"),
  withCheckDigit("TSTU200001"),
];

/** The vessel of the static sandbox shipment, from its POL to its POD (no transshipment). */
const SANDBOX_VESSEL = { name: "SANDBOX EXPRESS", imo: "9811000", voyageNumber: "001E" } as const;

/**
 * The journey of the static sandbox shipment, one step per milestone, in days relative to when tracking started:
 * empty out and full in at Yantian (CNYTN), loaded and departed on {@link SANDBOX_VESSEL}, due at Los Angeles
 * (USLAX, Fenix Marine Services, Y257) in 4 days. Every timestamp and transport event the sandbox reports comes
 * from this one list, so they cannot disagree (issue 13 item 6).
 */
const STATIC_STEPS: readonly {
  event: MilestoneName;
  day: number;
  estimated: boolean;
  locode: string;
  facilityCode: string | null;
  onVessel: boolean;
  wording: string;
}[] = [
  {
    event: "container.transport.empty_out",
    day: -15,
    estimated: false,
    locode: "CNYTN",
    facilityCode: null,
    onVessel: false,
    wording: "Gate out empty",
  },
  {
    event: "container.transport.full_in",
    day: -13,
    estimated: false,
    locode: "CNYTN",
    facilityCode: null,
    onVessel: false,
    wording: "Gate in full",
  },
  {
    event: "container.transport.vessel_loaded",
    day: -11,
    estimated: false,
    locode: "CNYTN",
    facilityCode: null,
    onVessel: true,
    wording: "Loaded on vessel",
  },
  {
    event: "container.transport.vessel_departed",
    day: -10,
    estimated: false,
    locode: "CNYTN",
    facilityCode: null,
    onVessel: true,
    wording: "Vessel departure",
  },
  {
    event: "container.transport.vessel_arrived",
    day: 4,
    estimated: true,
    locode: "USLAX",
    facilityCode: "Y257",
    onVessel: true,
    wording: "Estimated vessel arrival",
  },
];

/** The milestones of one static sandbox box, from {@link STATIC_STEPS}, oldest first. */
function staticMilestones(number: string, containerNumber: string, nowMs: number): Milestone[] {
  return STATIC_STEPS.map((s) => {
    const timestamp = toIsoSeconds(nowMs + s.day * DAY_MS);
    const short = s.event.slice("container.transport.".length);
    return {
      event: s.event,
      estimated: s.estimated,
      modeOfTransport: s.onVessel ? "VESSEL" : "TRUCK",
      timestamp,
      locationLocode: s.locode,
      facilityCode: s.facilityCode,
      vesselName: s.onVessel ? SANDBOX_VESSEL.name : null,
      vesselImo: s.onVessel ? SANDBOX_VESSEL.imo : null,
      voyageNumber: s.onVessel ? SANDBOX_VESSEL.voyageNumber : null,
      originalEvent: s.wording,
      sourceEventId: `sandbox/${number}/${containerNumber}/${short}${s.estimated ? "/est" : ""}`,
      raw: { source: "sandbox", number, container: containerNumber, event: short, estimated: s.estimated, timestamp },
    };
  });
}

/** The time of the step of `event` (actual, or estimated with `estimated`) among `milestones`, or null. */
function timeOf(milestones: Milestone[], event: MilestoneName, estimated = false): string | null {
  return milestones.find((m) => m.event === event && m.estimated === estimated)?.timestamp ?? null;
}

/**
 * A static shipment (times relative to when tracking started, so polls see no change) on the water from Yantian
 * (CNYTN) to Los Angeles (USLAX, Fenix Marine Services, Y257). Its boxes' milestones come from {@link STATIC_STEPS}
 * and every timestamp of the shipment and its boxes (`empty_out_at`, `pol_full_in_at`, `pol_atd_at`, `pod_eta_at`,
 * …) is read back from those milestones, so `GET /containers/{id}/transport_events` shows the moves behind them.
 */
function staticShipment(number: string, nowMs: number): ShipmentFacts {
  const containers = SANDBOX_CONTAINER_NUMBERS.map((containerNumber, i): ContainerFacts => {
    const milestones = staticMilestones(number, containerNumber, nowMs);
    return {
      number: containerNumber,
      sizeTypeCode: i === 0 ? "45G1" : "42G1",
      sealNumber: `SB${100200 + i}`,
      equipmentType: "dry",
      equipmentLength: 40,
      equipmentHeight: i === 0 ? "high_cube" : "standard",
      weightInLbs: 22_046 + i * 1_000,
      emptyOutAt: timeOf(milestones, "container.transport.empty_out"),
      polFullInAt: timeOf(milestones, "container.transport.full_in"),
      polVesselLoadedAt: timeOf(milestones, "container.transport.vessel_loaded"),
      polVesselDepartedAt: timeOf(milestones, "container.transport.vessel_departed"),
      milestones,
    };
  });
  const milestones = containers[0]?.milestones ?? [];
  const departedAt = timeOf(milestones, "container.transport.vessel_departed");
  return {
    billOfLadingNumber: number,
    portOfLadingLocode: "CNYTN",
    portOfDischargeLocode: "USLAX",
    podTerminalCode: "Y257",
    destinationLocode: null,
    podVesselName: SANDBOX_VESSEL.name,
    podVesselImo: SANDBOX_VESSEL.imo,
    podVoyageNumber: SANDBOX_VESSEL.voyageNumber,
    polEtdAt: departedAt,
    polAtdAt: departedAt,
    podEtaAt: timeOf(milestones, "container.transport.vessel_arrived", true),
    podAtaAt: null,
    containers,
  };
}

/** When tracking of the number started (the time the sandbox's shipments are laid out from). */
function anchorOf(ctx: SourceContext): number {
  return ctx.trackingStartedAtMs ?? ctx.nowMs;
}

/** The anchor of the lifecycle journey: when tracking started. */
function lifecycleJourney(ctx: SourceContext, speed: number) {
  return sandboxLifecycleJourney({
    anchorMs: anchorOf(ctx),
    speed,
    containerNumbers: SANDBOX_LIFECYCLE_CONTAINER_NUMBERS,
  });
}

/**
 * The sandbox carrier `TEST` (docs/decisions.md §Sandbox), available in every environment:
 * - `TEST-TR-SUCCEEDED`: found, a shipment of two boxes on the water (times relative to when tracking began);
 * - `TEST-TR-FAILED` (and every other TEST number): `failed` (`not_found`), whatever the request type;
 * - `TEST-TR-AWAITING-MANIFEST`: awaiting manifest at first, found on the next re-check;
 * - `TEST-TR-RETRYING`: unreachable for the first two attempts, then found;
 * - `TEST-LIFECYCLE`: found, and its two boxes then play a full journey (departure, arrival, discharge, customs
 *   hold placed and released, available, LFD set, demurrage, full out, empty in) on the simulation clock
 *   (`SIMULATION_SPEED` simulated days per real minute; 1 by default).
 */
export function createSandboxSource(speed = 1): CarrierSource {
  return {
    name: "Shipping line",
    supports: (scac) => scac === SANDBOX_SCAC,
    async lookup(request: LookupRequest, ctx: SourceContext): Promise<LookupResult> {
      switch (request.number) {
        case SANDBOX_NUMBERS.succeeded:
          return { kind: "found", shipment: staticShipment(request.number, anchorOf(ctx)) };
        case SANDBOX_NUMBERS.awaitingManifest:
          return request.status === "awaiting_manifest"
            ? { kind: "found", shipment: staticShipment(request.number, anchorOf(ctx)) }
            : { kind: "awaiting_manifest" };
        case SANDBOX_NUMBERS.retrying:
          return (request.attempt ?? 0) < SANDBOX_UNREACHABLE_ATTEMPTS
            ? { kind: "temporary_failure", reason: "shipping_line_unreachable" }
            : { kind: "found", shipment: staticShipment(request.number, anchorOf(ctx)) };
        case SANDBOX_NUMBERS.lifecycle:
          return { kind: "found", shipment: journeyAt(lifecycleJourney(ctx, speed), ctx.nowMs).facts };
        default:
          // A poll of a lifecycle box asks by container number.
          if (SANDBOX_LIFECYCLE_CONTAINER_NUMBERS.includes(request.number)) {
            return { kind: "found", shipment: journeyAt(lifecycleJourney(ctx, speed), ctx.nowMs).facts };
          }
          // TEST-TR-FAILED and every other TEST number: the sandbox line says it does not know the number.
          return { kind: "failed", reason: "not_found" };
      }
    },
  };
}

/** The sandbox's terminal: Fenix Marine Services (Y257) reporting on the `TEST-LIFECYCLE` boxes. */
export function createSandboxTerminalSource(speed = 1): TerminalSource {
  return {
    name: "Terminal",
    supports: (facilityCode, scac) => scac === SANDBOX_SCAC && facilityCode.toUpperCase() === "Y257",
    async poll(query, ctx): Promise<TerminalPollResult> {
      if (query.scac !== SANDBOX_SCAC) return { kind: "not_found" };
      if (!SANDBOX_LIFECYCLE_CONTAINER_NUMBERS.includes(query.containerNumber)) {
        return { kind: "not_found" };
      }
      const observation = terminalAt(
        lifecycleJourney(ctx, speed),
        query.containerNumber,
        query.facilityCode,
        ctx.nowMs,
      );
      return observation ? { kind: "found", observation } : { kind: "not_found" };
    },
  };
}

/** The sandbox carrier at the default simulation speed. */
export const sandboxSource = createSandboxSource();
/** The sandbox terminal at the default simulation speed. */
export const sandboxTerminalSource = createSandboxTerminalSource();
