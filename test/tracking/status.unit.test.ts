import { describe, expect, it } from "vitest";
import { type CurrentStatus, deriveCurrentStatus, type StatusFacts } from "../../src/tracking/status";

// docs/decisions.md §Containers: the first rule that holds decides current_status.

const T = "2024-06-01T10:00:00Z";

/** A container with nothing known yet; each case sets only what it is about. */
function facts(overrides: Partial<StatusFacts> = {}): StatusFacts {
  return {
    deliveredAt: null,
    emptyTerminatedAt: null,
    podFullOutAt: null,
    finalDestinationFullOutAt: null,
    hasInlandLeg: false,
    offDock: false,
    podDischargedAt: null,
    indRailUnloadedAt: null,
    indAtaAt: null,
    podRailLoadedAt: null,
    podRailDepartedAt: null,
    polVesselLoadedAt: null,
    polVesselDepartedAt: null,
    availabilityKnown: false,
    availableForPickup: null,
    ...overrides,
  };
}

/** Every signal at once: a box whose data says everything happened. */
const EVERYTHING: Partial<StatusFacts> = {
  deliveredAt: T,
  emptyTerminatedAt: T,
  podFullOutAt: T,
  finalDestinationFullOutAt: T,
  offDock: true,
  podDischargedAt: T,
  indRailUnloadedAt: T,
  indAtaAt: T,
  podRailLoadedAt: T,
  podRailDepartedAt: T,
  polVesselLoadedAt: T,
  polVesselDepartedAt: T,
  availabilityKnown: true,
  availableForPickup: true,
};

const INLAND = { hasInlandLeg: true } as const;
const AVAILABLE = { availabilityKnown: true, availableForPickup: true } as const;
const NOT_AVAILABLE = { availabilityKnown: true, availableForPickup: false } as const;

const cases: [string, Partial<StatusFacts>, CurrentStatus][] = [
  // 9. otherwise new
  ["nothing known", {}, "new"],
  ["nothing known, inland leg planned", INLAND, "new"],
  ["availability known but box not discharged anywhere", AVAILABLE, "new"],

  // 8. loaded or departed at POL, not yet discharged at POD
  ["loaded at POL", { polVesselLoadedAt: T }, "on_ship"],
  ["departed POL (load event missing)", { polVesselDepartedAt: T }, "on_ship"],
  ["loaded and departed at POL, inland leg", { ...INLAND, polVesselLoadedAt: T, polVesselDepartedAt: T }, "on_ship"],

  // 7. inland leg, discharged at POD, not yet on rail
  [
    "inland leg, discharged at POD",
    { ...INLAND, polVesselDepartedAt: T, podDischargedAt: T },
    "awaiting_inland_transfer",
  ],
  [
    "inland leg, discharged and available at POD: POD is not the final facility",
    { ...INLAND, podDischargedAt: T, ...AVAILABLE },
    "awaiting_inland_transfer",
  ],
  [
    "inland leg, POD full-out without final-destination full-out is not picked_up",
    { ...INLAND, podDischargedAt: T, podFullOutAt: T },
    "awaiting_inland_transfer",
  ],

  // 6. inland leg, rail loaded/departed, not yet unloaded
  ["inland leg, rail loaded at POD", { ...INLAND, podDischargedAt: T, podRailLoadedAt: T }, "on_rail"],
  [
    "inland leg, rail departed POD (load event missing)",
    { ...INLAND, podDischargedAt: T, podRailDepartedAt: T },
    "on_rail",
  ],
  [
    "inland leg, on rail beats awaiting transfer even with POD full-out",
    { ...INLAND, podDischargedAt: T, podFullOutAt: T, podRailDepartedAt: T },
    "on_rail",
  ],
  ["rail events without an inland leg are ignored", { polVesselLoadedAt: T, podRailLoadedAt: T }, "on_ship"],

  // 5. at the final facility: availability
  ["discharged at POD, availability unknown", { podDischargedAt: T }, "grounded"],
  ["discharged at POD, available", { podDischargedAt: T, ...AVAILABLE }, "available"],
  ["discharged at POD, not available", { podDischargedAt: T, ...NOT_AVAILABLE }, "not_available"],
  ["discharged without any POL event (disagreeing signals)", { podDischargedAt: T, ...AVAILABLE }, "available"],
  [
    "still 'on ship' by POL events but discharged: discharge wins",
    { polVesselLoadedAt: T, polVesselDepartedAt: T, podDischargedAt: T },
    "grounded",
  ],
  [
    "available_for_pickup true but availability not known: known flag decides",
    { podDischargedAt: T, availabilityKnown: false, availableForPickup: true },
    "grounded",
  ],
  [
    "inland leg, rail unloaded at destination, unknown",
    { ...INLAND, podRailDepartedAt: T, indRailUnloadedAt: T },
    "grounded",
  ],
  [
    "inland leg, rail unloaded at destination, available",
    { ...INLAND, podRailDepartedAt: T, indRailUnloadedAt: T, ...AVAILABLE },
    "available",
  ],
  ["inland leg, arrived at destination, not available", { ...INLAND, indAtaAt: T, ...NOT_AVAILABLE }, "not_available"],
  [
    "inland leg, arrived at destination beats still-on-rail signals",
    { ...INLAND, podRailLoadedAt: T, podRailDepartedAt: T, indAtaAt: T },
    "grounded",
  ],
  ["inland arrival without an inland leg is ignored", { polVesselLoadedAt: T, indAtaAt: T, ...AVAILABLE }, "on_ship"],

  // 4. terminal reports off-dock
  ["off-dock", { podDischargedAt: T, offDock: true }, "off_dock"],
  ["off-dock beats available", { podDischargedAt: T, offDock: true, ...AVAILABLE }, "off_dock"],
  ["off-dock beats on_rail", { ...INLAND, podDischargedAt: T, podRailLoadedAt: T, offDock: true }, "off_dock"],

  // 3. full-out at the final pickup point
  ["POD full-out, no inland leg", { podDischargedAt: T, podFullOutAt: T }, "picked_up"],
  [
    "POD full-out beats off-dock and availability",
    { podDischargedAt: T, podFullOutAt: T, offDock: true, ...NOT_AVAILABLE },
    "picked_up",
  ],
  [
    "final-destination full-out, inland leg",
    { ...INLAND, indRailUnloadedAt: T, finalDestinationFullOutAt: T },
    "picked_up",
  ],
  [
    "final-destination full-out with rail still 'loaded'",
    { ...INLAND, podRailLoadedAt: T, finalDestinationFullOutAt: T },
    "picked_up",
  ],
  [
    "final-destination full-out without an inland leg is not the pickup point",
    { podDischargedAt: T, finalDestinationFullOutAt: T, ...AVAILABLE },
    "available",
  ],

  // 2. empty returned
  ["empty terminated", { podFullOutAt: T, emptyTerminatedAt: T }, "empty_returned"],
  [
    "empty_terminated beats picked_up and off-dock",
    { podDischargedAt: T, podFullOutAt: T, offDock: true, emptyTerminatedAt: T },
    "empty_returned",
  ],
  ["empty terminated with no other event (disagreeing signals)", { emptyTerminatedAt: T }, "empty_returned"],
  [
    "empty terminated, inland leg, picked up at destination",
    { ...INLAND, finalDestinationFullOutAt: T, emptyTerminatedAt: T },
    "empty_returned",
  ],

  // 1. delivered
  ["delivered", { podFullOutAt: T, deliveredAt: T }, "delivered"],
  ["delivered beats empty returned", { emptyTerminatedAt: T, deliveredAt: T }, "delivered"],
  ["delivered beats everything (no inland leg)", EVERYTHING, "delivered"],
  ["delivered beats everything (inland leg)", { ...EVERYTHING, hasInlandLeg: true }, "delivered"],
  ["delivered with nothing else known", { deliveredAt: T }, "delivered"],
];

describe("deriveCurrentStatus (docs/decisions.md §Containers)", () => {
  it.each(cases)("%s → %s", (_name, overrides, expected) => {
    expect(deriveCurrentStatus(facts(overrides))).toBe(expected);
  });

  it("walks a full import journey with an inland leg through every rail status", () => {
    const journey: [Partial<StatusFacts>, CurrentStatus][] = [
      [{}, "new"],
      [{ polVesselLoadedAt: T }, "on_ship"],
      [{ polVesselDepartedAt: T }, "on_ship"],
      [{ podDischargedAt: T }, "awaiting_inland_transfer"],
      [{ podRailLoadedAt: T }, "on_rail"],
      [{ podRailDepartedAt: T }, "on_rail"],
      [{ indAtaAt: T }, "grounded"],
      [{ indRailUnloadedAt: T, ...NOT_AVAILABLE }, "not_available"],
      [AVAILABLE, "available"],
      [{ finalDestinationFullOutAt: T }, "picked_up"],
      [{ emptyTerminatedAt: T }, "empty_returned"],
    ];
    let state = facts(INLAND);
    const seen: CurrentStatus[] = [];
    for (const [step] of journey) {
      state = { ...state, ...step };
      seen.push(deriveCurrentStatus(state));
    }
    expect(seen).toEqual(journey.map(([, status]) => status));
  });

  it("every status value is reachable from the table", () => {
    const all: CurrentStatus[] = [
      "new",
      "on_ship",
      "grounded",
      "available",
      "not_available",
      "awaiting_inland_transfer",
      "on_rail",
      "off_dock",
      "picked_up",
      "delivered",
      "empty_returned",
    ];
    expect(new Set(cases.map(([, , status]) => status))).toEqual(new Set(all));
  });
});
