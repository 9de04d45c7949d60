import type { ContainerState } from "./derive";

/**
 * Attributes whose changes are announced as `container.updated` with a changeset (docs/webhooks.md §Payloads "alertable
 * keys"), mapped to the `ContainerState` field that holds them. `pod_terminal` compares terminal ids.
 */
export const CHANGESET_ATTRIBUTES = {
  available_for_pickup: "availableForPickup",
  pickup_lfd: "pickupLfd",
  pickup_lfd_line: "pickupLfdLine",
  pickup_lfd_terminal: "pickupLfdTerminal",
  pickup_lfd_rail: "pickupLfdRail",
  fees_at_pod_terminal: "feesAtPodTerminal",
  holds_at_pod_terminal: "holdsAtPodTerminal",
  pickup_appointment_at: "pickupAppointmentAt",
  pod_terminal: "podTerminalId",
} as const satisfies Record<string, keyof ContainerState>;

/** `{attribute: [old, new]}` in wire names (docs/webhooks.md §Payloads). */
export type Changeset = Record<string, [unknown, unknown]>;

/** Deep equality of JSON values (holds and fees are arrays of objects; order matters, as it does on the wire). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((item, i) => jsonEqual(item, b[i]));
  }
  const ka = Object.keys(a as object);
  const kb = Object.keys(b as object);
  return (
    ka.length === kb.length &&
    ka.every((k) => jsonEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]))
  );
}

/**
 * The changeset between two states of one container: every alertable attribute whose value differs, as
 * `[old, new]` (docs/webhooks.md §Payloads: a hold placed is `[[], [hold]]`, cleared `[[hold], []]`, a pending hold
 * made active `[[pending], [hold]]`, a growing demurrage fee a change of `amount`). Empty when nothing alertable
 * changed, or when there was no previous state (a new container is announced by `container.created`).
 */
export function containerChangeset(previous: ContainerState | null, next: ContainerState): Changeset {
  const changes: Changeset = {};
  if (!previous) return changes;
  for (const [wire, field] of Object.entries(CHANGESET_ATTRIBUTES)) {
    const before = previous[field];
    const after = next[field];
    if (!jsonEqual(before, after)) changes[wire] = [before, after];
  }
  return changes;
}
