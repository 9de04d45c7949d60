import type { Milestone, MilestoneName } from "./sources/types";

/**
 * Identity of an actual milestone (issue 13 item 2, docs/architecture.md §One event identity): what happened, to which
 * box, where, and on which transport — never the upstream's event id, so a carrier that re-issues its events under
 * new `eventID`s (after a reload of its system), a pushed and a polled copy of one event, or two sources reporting
 * the same move, all name one fact. The box is implicit: identities are compared within one box's Tracker.
 *
 * `act|{event}|{UN/LOCODE}|{facility}|{transport}`, where `transport` is, for moves on a vessel or barge
 * (`vessel_*`, `transshipment_*`, `feeder_*`), the vessel (IMO number, else the upper-cased name) and the voyage
 * number; for rail, truck and gate moves it is empty: they never carry a vessel (DCSA TNT 2.2 `modeOfTransport`),
 * and the event name already says the mode.
 *
 * The time is not part of it. DCSA TNT 2.2 (`eventClassifierCode`) says an `ACT` event "has happened": a later
 * `ACT` report of the same move at the same place with another `eventDateTime` is the carrier correcting the time
 * of that one move, not a second move, so it updates the recorded event instead of adding one. Genuinely repeated
 * moves of one box differ in place or transport: the two loads of a transshipment happen at different ports or onto
 * different vessels, a rail leg's load and unload at different ramps. Each of our milestones sets one attribute of
 * the container once per journey (docs/api.md §Milestones and attributes: `empty_out_at`, `pol_full_in_at`, …), so a
 * second gate-out of the same kind at the same facility within one tracked journey is taken as a correction, by design.
 *
 * Estimates (`EST`, `PLN`) have no identity here: they are values that move, announced as
 * `container.transport.estimated.*` when their time changes (src/tracking/events.ts).
 *
 * Terminal-sourced actuals (issue 14): a terminal that reports a box's discharge, full-out or empty return
 * (src/tracking/terminal-milestones.ts) and the carrier reporting the same move rarely agree on facility code or
 * vessel (the terminal names neither the carrier's SMDG code nor, for gate moves, any vessel), so their identities
 * differ. Each of those actuals is therefore also remembered under its {@link milestoneSiteAlias} (event and
 * UN/LOCODE only), and src/tracking/events.ts matches through it in one direction only: the carrier's copy of a
 * move first recorded from the terminal is that same event (the row is corrected in place, quietly), and the
 * terminal's copy of a move the carrier recorded adds nothing. Two carrier reports never match through the alias,
 * so genuinely different carrier moves (another vessel, another facility) stay different events.
 */
export function milestoneIdentity(m: Milestone): string {
  return `act|${m.event}|${m.locationLocode ?? ""}|${m.facilityCode ?? ""}|${transportRef(m)}`;
}

/** The milestones a terminal reports too, and so the only ones with a {@link milestoneSiteAlias}. */
const TERMINAL_REPORTED: ReadonlySet<MilestoneName> = new Set<MilestoneName>([
  "container.transport.vessel_discharged",
  "container.transport.full_out",
  "container.transport.empty_in",
]);

/**
 * The alias of an actual discharge, full-out or empty return by what and where only (issue 14): `site|{event}|{UN/LOCODE}`,
 * or `site|container.transport.empty_in|` for an empty return wherever it happened (a box is returned empty once per
 * journey, docs/decisions.md §Containers `empty_terminated_at`, and carrier and terminal may name the depot's place
 * differently, e.g. USLGB for a Los Angeles terminal's empty yard). Null for every other milestone and for estimates.
 * Used to match a terminal's report of a move with the carrier's (see {@link milestoneIdentity}).
 */
export function milestoneSiteAlias(m: Milestone): string | null {
  if (m.estimated || !TERMINAL_REPORTED.has(m.event)) return null;
  const place = m.event === "container.transport.empty_in" ? "" : (m.locationLocode ?? "");
  return `site|${m.event}|${place}`;
}

/** Milestones that happen on a vessel or barge, whose identity includes the vessel and voyage. */
const ON_VESSEL = /^container\.transport\.(vessel|transshipment|feeder)_/;

/** Whether a milestone is a move of a vessel or barge (and so may name one). */
export function isVesselMilestone(event: MilestoneName): boolean {
  return ON_VESSEL.test(event);
}

function transportRef(m: Milestone): string {
  if (!isVesselMilestone(m.event)) return "";
  const vessel = m.vesselImo?.trim() || m.vesselName?.trim().toUpperCase() || "";
  return `${vessel}/${m.voyageNumber?.trim().toUpperCase() ?? ""}`;
}

/**
 * The keys an earlier version of the engine recorded an actual milestone under (the upstream event id with the
 * event, or what/where/when without one). A Tracker snapshot written before identities existed lists these; they
 * let it adopt its recorded events instead of recording them again.
 */
export function legacyMilestoneKeys(m: Milestone): string[] {
  const keys = [`${m.event}|${m.locationLocode ?? ""}|${m.timestamp}`];
  if (m.sourceEventId) keys.unshift(`src:${m.sourceEventId}|${m.event}`);
  return keys;
}
