import { withCheckDigit } from "../../infer/iso6346";
import { toIsoSeconds } from "../../lib/clock";
import { SANDBOX_SCAC } from "../../reference/shipping-lines";
import type { CarrierSource, LookupRequest, LookupResult, ShipmentFacts } from "./types";

/** Sandbox numbers of DECISIONS.md §Sandbox handled by this source. */
export const SANDBOX_NUMBERS = {
  succeeded: "TEST-TR-SUCCEEDED",
  failed: "TEST-TR-FAILED",
} as const;

const DAY_MS = 86_400_000;

/** The two boxes of the sandbox shipment: owner code TST, category U, valid ISO 6346 check digits. */
export const SANDBOX_CONTAINER_NUMBERS = [withCheckDigit("TSTU100000"), withCheckDigit("TSTU100001")] as const;

/**
 * The sandbox carrier `TEST` (DECISIONS.md §Sandbox), available in every environment:
 * `TEST-TR-SUCCEEDED` is found with a shipment of two containers on the water from Yantian (CNYTN) to Los
 * Angeles (USLAX, Fenix Marine Services); `TEST-TR-FAILED` and every other TEST number are not found.
 * Times are relative to the lookup time so the shipment always looks current.
 */
export const sandboxSource: CarrierSource = {
  name: "Shipping line",
  supports: (scac) => scac === SANDBOX_SCAC,
  async lookup(request: LookupRequest, nowMs: number): Promise<LookupResult> {
    if (request.number !== SANDBOX_NUMBERS.succeeded) return { kind: "not_found" };
    const at = (days: number) => toIsoSeconds(nowMs + days * DAY_MS);
    const shipment: ShipmentFacts = {
      billOfLadingNumber: request.number,
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
      containers: SANDBOX_CONTAINER_NUMBERS.map((number, i) => ({
        number,
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
    return { kind: "found", shipment };
  },
};
