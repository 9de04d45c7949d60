/**
 * What the journey planner (plan.ts) draws from: origins, transshipment hubs, PODs and their terminals, inland rail
 * destinations and ramps from the reference data; rail carriers, size-type shares, vessel names and chassis owners.
 */
import { PORTS } from "../../reference/generated/ports";
import { SIZE_TYPES } from "../../reference/generated/size-types";
import { TERMINALS } from "../../reference/generated/terminals";
import { findPortByLocode } from "../../reference/locations";
import type { JourneyFacility, JourneyPlace } from "./types";

/**
 * `build`, run once on the first call and remembered. The planner's tables are drawn from the reference data on the
 * first journey planned, not at module load: the simulator is off in production, yet building them (sorting every
 * POD with terminals by `localeCompare`, above all) was part of every isolate's startup (docs/SCALING.md §Worker bundle, startup and cold start).
 */
function once<T>(build: () => T): () => T {
  let value: { v: T } | undefined;
  return () => {
    value ??= { v: build() };
    return value.v;
  };
}

/** The port of a UN/LOCODE (current or alternative) as a place on the route, under its current code. */
export function placeOf(locode: string): JourneyPlace | null {
  const port = findPortByLocode(locode);
  return port ? { locode: port.code, name: port.name, timeZone: port.timeZone } : null;
}

/**
 * Origins (POLs): every port in Asia or Europe (by its IANA zone) with a listed container terminal in the SMDG
 * list, weighted by its number of terminals, so the big hubs come up most (issue 12: real POLs, real zones).
 */
export const origins: () => readonly (readonly [JourneyPlace, number])[] = once(() => {
  const terminalCount = new Map<string, number>();
  for (const t of TERMINALS) {
    if (t.smdgCode === null || t.validTo !== null || t.facilityType !== "ocean_terminal") continue;
    terminalCount.set(t.portLocode, (terminalCount.get(t.portLocode) ?? 0) + 1);
  }
  return PORTS.flatMap((p) => {
    const count = terminalCount.get(p.code);
    if (!count || !p.timeZone || !/^(Asia|Europe)\//.test(p.timeZone)) return [];
    return [[{ locode: p.code, name: p.name, timeZone: p.timeZone }, count] as const];
  });
});

// Transshipment hubs by UN/LOCODE (the world's largest relay ports); names and zones come from the reference data.
const TRANSSHIPMENT_LOCODES = [
  "SGSIN",
  "MYTPP",
  "MYPKG",
  "LKCMB",
  "AEJEA",
  "ESALG",
  "MAPTM",
  "PAMIT",
  "KRPUS",
  "CNSHK",
];
/** Transshipment hubs the planner relays boxes through (those the reference data has). */
export const transshipmentPorts: () => readonly JourneyPlace[] = once(() =>
  TRANSSHIPMENT_LOCODES.flatMap((c) => placeOf(c) ?? []),
);

/** A POD: a port whose terminals have both a CBP FIRMS code and an IANA time zone in the reference data. */
interface PodChoice {
  place: JourneyPlace;
  terminals: JourneyFacility[];
}
/** Every POD the planner can route to, by UN/LOCODE, with its terminals. */
export const podChoices: () => readonly PodChoice[] = once(() => {
  const byPort = new Map<string, JourneyFacility[]>();
  for (const t of TERMINALS) {
    if (!t.firmsCode || t.validTo !== null || !findPortByLocode(t.portLocode)) continue;
    const list = byPort.get(t.portLocode) ?? [];
    list.push({ code: t.firmsCode, name: t.name, timeZone: t.timeZone });
    byPort.set(t.portLocode, list);
  }
  return [...byPort.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .flatMap(([locode, terminals]) => {
      const place = placeOf(locode);
      const first = terminals[0];
      if (!place || !first) return [];
      return [{ place: { ...place, timeZone: place.timeZone ?? first.timeZone }, terminals }];
    });
});

// Inland rail destinations: the US inland rail points of data/inland-rail.csv, with the reference data's
// names and zones.
const INLAND_LOCODES = ["USCHI", "USMEM", "USDAL", "USKCK", "USCLE", "USCMH"];

/** Inland destinations the simulator routes rail legs to, with IANA time zones. */
export const inlandDestinations: () => readonly (JourneyPlace & { timeZone: string })[] = once(() =>
  INLAND_LOCODES.flatMap((c) => {
    const place = placeOf(c);
    return place?.timeZone ? [{ ...place, timeZone: place.timeZone }] : [];
  }),
);

/**
 * Class I railroads by the coast of the POD (IANA zone of its terminal; docs/api.md §Container resource examples: CSXT,
 * NSRR, BNSF).
 */
export const RAIL_CARRIERS: Record<string, { scac: string; name: string }[]> = {
  "America/Los_Angeles": [{ scac: "BNSF", name: "BNSF" }],
  "America/Chicago": [
    { scac: "BNSF", name: "BNSF" },
    { scac: "CPKC", name: "CPKC" },
  ],
  "America/New_York": [
    { scac: "CSXT", name: "CSX" },
    { scac: "NSRR", name: "Norfolk Southern" },
  ],
};
/** Every railroad of {@link RAIL_CARRIERS} once, for a POD whose coast has none listed. */
export const ALL_RAIL_CARRIERS = [
  ...new Map(Object.values(RAIL_CARRIERS).flatMap((l) => l.map((c) => [c.scac, c]))).values(),
];

/**
 * The simulated ramp at an inland destination served by a rail carrier. Ramp codes are the simulator's own
 * (UN/LOCODE + rail SCAC, e.g. `USCHIBNSF`), not registered FIRMS or BIC codes, and are absent from the reference
 * terminals.
 */
export function rampFor(
  destination: JourneyPlace & { timeZone: string },
  rail: { scac: string; name: string },
): JourneyFacility {
  return {
    code: `${destination.locode}${rail.scac}`,
    name: `${rail.name} ${destination.name} Ramp`,
    timeZone: destination.timeZone,
  };
}

/** Every ramp code the simulator can route to (`inlandDestinations()` × rail carriers). */
export const inlandRampCodes: () => readonly string[] = once(() =>
  inlandDestinations().flatMap((d) => ALL_RAIL_CARRIERS.map((r) => rampFor(d, r).code)),
);

/** FIRMS codes of every POD terminal the simulator can route to. */
export const simulatedPodTerminalCodes: () => readonly string[] = once(() =>
  podChoices().flatMap((c) => c.terminals.map((t) => t.code)),
);

/** Share of boxes by ISO 6346 size-type code; only codes present in the generated size types are used. */
export const SIZE_TYPE_WEIGHTS: readonly (readonly [string, number])[] = (
  [
    ["45G1", 38],
    ["22G1", 24],
    ["42G1", 14],
    ["45R1", 7],
    ["22R1", 4],
    ["L5G1", 4],
    ["22U1", 2],
    ["42P1", 2],
    ["22T6", 2],
    ["25G1", 3],
  ] as const
).filter(([code]) => SIZE_TYPES.some((s) => s.code === code));

/** Second words of the fictional vessel names (`<LINE> <WORD>`). */
export const VESSEL_WORDS = [
  "AURORA",
  "MERIDIAN",
  "HORIZON",
  "ENDEAVOUR",
  "PIONEER",
  "HARMONY",
  "ZENITH",
  "ODYSSEY",
  "LIBERTY",
  "TRIUMPH",
  "VOYAGER",
  "NAVIGATOR",
  "ORION",
  "POLARIS",
  "VEGA",
  "SIRIUS",
  "CORAL",
  "SAPPHIRE",
  "EMERALD",
  "GALAXY",
  "CELESTE",
  "FORTUNE",
  "TENACITY",
  "ALTAIR",
];

/** Owner codes of common US pool chassis (category Z). */
export const CHASSIS_PREFIXES = ["DCLZ", "FLXZ", "TRAZ"];
