import { withCheckDigit } from "../../infer/iso6346";
import { toIsoSeconds } from "../../lib/clock";
import { SANDBOX_SCAC } from "../../reference/shipping-lines";
import { journeyAt, sandboxLifecycleJourney, terminalAt } from "../simulator/journey";
import type {
  CarrierSource,
  LookupRequest,
  LookupResult,
  ShipmentFacts,
  SourceContext,
  TerminalPollResult,
  TerminalSource,
} from "./types";

/** Sandbox numbers of DECISIONS.md §Sandbox. */
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

/** A static shipment (times relative to when tracking started, so polls see no change) on the water from Yantian (CNYTN) to Los Angeles (USLAX, Fenix Marine Services, Y257). */
function staticShipment(number: string, nowMs: number): ShipmentFacts {
  const at = (days: number) => toIsoSeconds(nowMs + days * DAY_MS);
  return {
    billOfLadingNumber: number,
    portOfLadingLocode: "CNYTN",
    portOfDischargeLocode: "USLAX",
    podTerminalCode: "Y257",
    destinationLocode: null,
    podVesselName: "SANDBOX EXPRESS",
    podVesselImo: "9811000",
    podVoyageNumber: "001E",
    polEtdAt: at(-10),
    polAtdAt: at(-10),
    podEtaAt: at(4),
    podAtaAt: null,
    containers: SANDBOX_CONTAINER_NUMBERS.map((containerNumber, i) => ({
      number: containerNumber,
      sizeTypeCode: i === 0 ? "45G1" : "42G1",
      sealNumber: `SB${100200 + i}`,
      equipmentType: "dry",
      equipmentLength: 40,
      equipmentHeight: i === 0 ? "high_cube" : "standard",
      weightInLbs: 22_046 + i * 1_000,
      emptyOutAt: at(-15),
      polFullInAt: at(-13),
      polVesselLoadedAt: at(-11),
      polVesselDepartedAt: at(-10),
    })),
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
 * The sandbox carrier `TEST` (DECISIONS.md §Sandbox), available in every environment:
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
