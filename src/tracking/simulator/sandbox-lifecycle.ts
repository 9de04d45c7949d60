/** The sandbox's fixed journey, `TEST-LIFECYCLE` (docs/decisions.md §Sandbox): the same at every anchor. */
import { withCheckDigit } from "../../infer/iso6346";
import { TERMINALS } from "../../reference/generated/terminals";
import { journeyFromPlan } from "./plan";
import { placeOf } from "./planner-data";
import type { Journey, JourneyContainer, JourneyFacility } from "./types";

/** What the sandbox's fixed journey needs; every field but the anchor has a default. */
export interface LifecycleInput {
  /** When tracking started, ms since the Unix epoch. */
  anchorMs: number;
  /** Simulated days per real minute; default 1. */
  speed?: number;
  /** The tracked number; default `TEST-LIFECYCLE`. */
  number?: string;
  /** The boxes; default `TSTU2000001`-style numbers with valid check digits. */
  containerNumbers?: readonly string[];
}

/**
 * The fixed journey of the sandbox number `TEST-LIFECYCLE` (docs/decisions.md §Sandbox), identical at every anchor:
 * Yantian (CNYTN) to Los Angeles (USLAX, Fenix Marine Services Y257) on SANDBOX EXPRESS 001E. Simulated days
 * after the anchor: departure 0.5, arrival 4, berthed 4.2, discharge 4.5 (+0.1 per further box), customs hold
 * (`CBP HOLD`) placed at discharge and released a day later, availability known +0.1, available +1.2, LFD set
 * +1.4 (terminal and line LFD +3), demurrage 150 USD per started day once the LFD has ended (+4), appointment
 * booked +4.5 for +5.45, full out +5.5 (fee 300 USD), empty in +7, all relative to each box's discharge.
 */
export function sandboxLifecycleJourney(input: LifecycleInput): Journey {
  const speed = input.speed ?? 1;
  const numbers = input.containerNumbers ?? [withCheckDigit("TSTU200000"), withCheckDigit("TSTU200001")];
  const fenix = TERMINALS.find((t) => t.firmsCode === "Y257");
  const podTerminal: JourneyFacility = {
    code: "Y257",
    name: fenix?.name ?? "Fenix Marine Services",
    timeZone: fenix?.timeZone ?? "America/Los_Angeles",
  };
  const pol = placeOf("CNYTN") ?? { locode: "CNYTN", name: "Yantian", timeZone: null };
  const pod = placeOf("USLAX") ?? { locode: "USLAX", name: "Los Angeles", timeZone: "America/Los_Angeles" };
  const containers = numbers.map((number, i): JourneyContainer => {
    const at = 4.5 + 0.1 * i;
    return {
      number,
      sizeTypeCode: i % 2 === 0 ? "45G1" : "42G1",
      sealNumber: `SB${200200 + i}`,
      weightInLbs: 22_046 + i * 1_000,
      emptyOutDay: -3,
      fullInDay: -1.5,
      vesselLoadedDay: 0.25 + 0.02 * i,
      transshipmentDischargedDay: null,
      transshipmentLoadedDay: null,
      vesselDischargedDay: at,
      railLoadedDay: null,
      railUnloadedDay: null,
      availabilityKnownDay: at + 0.1,
      availableDay: at + 1.2,
      holds: [{ name: "customs", description: "CBP HOLD", pendingDay: null, placedDay: at, releasedDay: at + 1 }],
      lfdSetDay: at + 1.4,
      pickupLfdDay: at + 3,
      pickupLfdLineDay: at + 3,
      appointmentMadeDay: at + 4.5,
      appointmentDay: at + 5.45,
      fullOutDay: at + 5.5,
      emptyInDay: at + 7,
      emptyReturn: { locode: "USLAX", facilityCode: "Y257" },
      locationAtTerminal: `Yard - Y070${i}A`,
      fullOutChassisNumber: withCheckDigit(`DCLZ40000${i}`),
    };
  });
  return journeyFromPlan(
    {
      scac: "TEST",
      requestType: "bill_of_lading",
      number: input.number ?? "TEST-LIFECYCLE",
      billOfLadingNumber: input.number ?? "TEST-LIFECYCLE",
      key: "sandbox:TEST-LIFECYCLE",
      pol,
      pod,
      podTerminal,
      oceanVessel: { name: "SANDBOX EXPRESS", imo: "9811000", voyageNumber: "001E" },
      transshipment: null,
      inland: null,
      polEtdDay: 0.5,
      vesselDepartedDay: 0.5,
      podEtaDay: 4,
      podEtaRevisedDay: 4,
      vesselArrivedDay: 4,
      vesselBerthedDay: 4.2,
      demurrage: { currencyCode: "USD", ratePerDay: 150, firstTierDays: 4, laterRatePerDay: 300 },
      containers,
    },
    input.anchorMs,
    speed,
  );
}
