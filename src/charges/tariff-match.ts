/**
 * Which tariff applies to a box: the most specific scope wins, and the choice is explained (issue 27 §1). A tariff's
 * scope is any of shipping line (SCAC), port (UN/LOCODE), terminal, equipment length and type; a field left null
 * matches every box. Among the tariffs whose every set field equals the box's, the one with the highest specificity
 * wins: terminal 16, port 8, SCAC 4, equipment type 2, equipment length 1 (a terminal is narrower than its port, a port
 * than a line's worldwide tariff, and any place than any equipment). A tie goes to the most recently updated tariff,
 * and the explanation says so.
 */

/** Kinds of charge a tariff prices (issue 27 §1 wire names). */
export const TARIFF_KINDS = ["demurrage", "detention", "combined", "terminal_storage"] as const;
/** One of {@link TARIFF_KINDS}. */
export type TariffKind = (typeof TARIFF_KINDS)[number];
/** Events a tariff's clock can start from. */
export const CLOCK_STARTS = ["discharged", "available", "full_out"] as const;
/** One of {@link CLOCK_STARTS}. */
export type ClockStart = (typeof CLOCK_STARTS)[number];

/**
 * A rate tier: chargeable days `fromDay`..`toDay` (1 is the first day after free time; `toDay` null is open-ended),
 * priced `ratePerDay` (a decimal string in `currencyCode`, ISO 4217) for each of them.
 */
export interface RateTier {
  fromDay: number;
  toDay: number | null;
  ratePerDay: string;
  currencyCode: string;
}

/** A tariff as the calculator reads it (a `tariffs` row without its bookkeeping). */
export interface Tariff {
  id: string;
  name: string | null;
  kind: TariffKind;
  scac: string | null;
  portCode: string | null;
  terminalId: string | null;
  equipmentLength: number | null;
  equipmentType: string | null;
  freeDays: number;
  freeDaysBasis: "calendar" | "business";
  clockStartsAt: ClockStart;
  tiers: RateTier[];
  /** ISO 8601 UTC; breaks ties between equally specific tariffs (the later wins). */
  updatedAt: string;
}

/** The scope facts of a box that tariffs are matched on. */
export interface TariffScopeFacts {
  scac: string | null;
  podLocode: string | null;
  podTerminalId: string | null;
  equipmentLength: number | null;
  equipmentType: string | null;
}

/** The tariff chosen for a kind of charge, with why. */
export interface TariffChoice {
  tariff: Tariff;
  /** Specificity score of the winner (see the module's docstring). */
  specificity: number;
  /** Sentences a person can read: what matched, what lost and why. */
  explanation: string[];
}

const SCOPE_FIELDS = [
  { key: "terminalId", wire: "terminal_id", weight: 16, fact: (b: TariffScopeFacts) => b.podTerminalId },
  { key: "portCode", wire: "port_code", weight: 8, fact: (b: TariffScopeFacts) => b.podLocode },
  { key: "scac", wire: "scac", weight: 4, fact: (b: TariffScopeFacts) => b.scac },
  { key: "equipmentType", wire: "equipment_type", weight: 2, fact: (b: TariffScopeFacts) => b.equipmentType },
  { key: "equipmentLength", wire: "equipment_length", weight: 1, fact: (b: TariffScopeFacts) => b.equipmentLength },
] as const;

function describeScope(t: Tariff): string {
  const parts = SCOPE_FIELDS.filter((f) => t[f.key] !== null).map((f) => `${f.wire}=${t[f.key]}`);
  return parts.length > 0 ? parts.join(", ") : "every box (no scope)";
}

function label(t: Tariff): string {
  return t.name ? `tariff ${t.id} (${t.name})` : `tariff ${t.id}`;
}

/**
 * The most specific of `tariffs` of one of `kinds` that matches `box`, or null when none does.
 * @returns the winner, its specificity and an explanation naming the runner-up (if any) and why it lost.
 */
export function chooseTariff(
  tariffs: readonly Tariff[],
  box: TariffScopeFacts,
  kinds: readonly TariffKind[],
): TariffChoice | null {
  const scored: { tariff: Tariff; specificity: number }[] = [];
  for (const t of tariffs) {
    if (!kinds.includes(t.kind)) continue;
    let specificity = 0;
    let matches = true;
    for (const f of SCOPE_FIELDS) {
      const want = t[f.key];
      if (want === null) continue;
      if (want !== f.fact(box)) {
        matches = false;
        break;
      }
      specificity += f.weight;
    }
    if (matches) scored.push({ tariff: t, specificity });
  }
  if (scored.length === 0) return null;
  scored.sort(
    (a, b) =>
      b.specificity - a.specificity ||
      b.tariff.updatedAt.localeCompare(a.tariff.updatedAt) ||
      a.tariff.id.localeCompare(b.tariff.id),
  );
  const [winner, runnerUp] = scored as [(typeof scored)[0], ...typeof scored];
  const explanation = [
    `${label(winner.tariff)} applies to ${describeScope(winner.tariff)} (specificity ${winner.specificity}).`,
  ];
  if (runnerUp) {
    explanation.push(
      runnerUp.specificity === winner.specificity
        ? `${label(runnerUp.tariff)} is as specific (${describeScope(runnerUp.tariff)}); the more recently updated one wins.`
        : `${label(runnerUp.tariff)} also matches (${describeScope(runnerUp.tariff)}, specificity ${runnerUp.specificity}) but is less specific.`,
    );
    if (scored.length > 2) explanation.push(`${scored.length - 2} other matching tariff(s) are less specific still.`);
  }
  return { tariff: winner.tariff, specificity: winner.specificity, explanation };
}
