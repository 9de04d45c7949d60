/** The container facts `current_status` is derived from (all times UTC ISO strings or null). */
export interface StatusFacts {
  deliveredAt: string | null;
  emptyTerminatedAt: string | null;
  podFullOutAt: string | null;
  finalDestinationFullOutAt: string | null;
  /** Whether the box moves on to an inland destination (rail leg) after the POD. */
  hasInlandLeg: boolean;
  /** The terminal reports the box off-dock (moved to an off-dock yard). */
  offDock: boolean;
  podDischargedAt: string | null;
  indRailUnloadedAt: string | null;
  indAtaAt: string | null;
  podRailLoadedAt: string | null;
  podRailDepartedAt: string | null;
  polVesselLoadedAt: string | null;
  polVesselDepartedAt: string | null;
  availabilityKnown: boolean;
  availableForPickup: boolean | null;
}

/** Every `current_status` value (docs/decisions.md §Containers), in journey order. */
export const CONTAINER_STATUSES = [
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
] as const;

/** A `current_status` value. */
export type CurrentStatus = (typeof CONTAINER_STATUSES)[number];

/**
 * Derives `current_status`: the first rule of docs/decisions.md §Containers that holds.
 * 1 delivered; 2 empty returned; 3 full-out at the final pickup point → picked_up; 4 off-dock;
 * 5 at the final facility → available / not_available / grounded by terminal availability; 6 inland leg on
 * rail → on_rail; 7 inland leg discharged, not yet on rail → awaiting_inland_transfer; 8 loaded or departed
 * at POL, not yet discharged → on_ship; 9 new.
 */
export function deriveCurrentStatus(f: StatusFacts): CurrentStatus {
  if (f.deliveredAt) return "delivered";
  if (f.emptyTerminatedAt) return "empty_returned";
  if (f.hasInlandLeg ? f.finalDestinationFullOutAt : f.podFullOutAt) return "picked_up";
  if (f.offDock) return "off_dock";
  const atFinalFacility = f.hasInlandLeg ? Boolean(f.indRailUnloadedAt || f.indAtaAt) : Boolean(f.podDischargedAt);
  if (atFinalFacility) {
    if (!f.availabilityKnown) return "grounded";
    return f.availableForPickup ? "available" : "not_available";
  }
  if (f.hasInlandLeg && (f.podRailLoadedAt || f.podRailDepartedAt)) return "on_rail";
  if (f.hasInlandLeg && f.podDischargedAt) return "awaiting_inland_transfer";
  if (f.polVesselLoadedAt || f.polVesselDepartedAt) return "on_ship";
  return "new";
}
