import type { Env } from "../env";
import { SANDBOX_SCAC } from "../reference/shipping-lines";
import { parseDcsaSources } from "../tracking/sources/dcsa";
import { SIMULATED_SCACS } from "../tracking/sources/simulator";

/** Which of our carrier sources serves a line here: the sandbox (`TEST`), a DCSA Track & Trace API, the simulator. */
export type LineSourceKind = "sandbox" | "dcsa" | "simulator";

/**
 * The source kind of each SCAC under this configuration (the same rules as `sourcesFor`, src/tracking/sources): the
 * sandbox always serves `TEST`, `DCSA_SOURCES` names DCSA lines (they win over the simulator), `SIMULATOR_ENABLED`
 * adds the simulated lines. Returns null for a line no source serves.
 */
export function lineSourceKinds(
  env: Pick<Env, "DCSA_SOURCES" | "SIMULATOR_ENABLED">,
): (scac: string) => LineSourceKind | null {
  const dcsa = parseDcsaSources(env.DCSA_SOURCES);
  const simulated = env.SIMULATOR_ENABLED === "true" ? new Set(SIMULATED_SCACS) : new Set<string>();
  return (scac) => {
    if (scac === SANDBOX_SCAC) return "sandbox";
    if (dcsa.has(scac)) return "dcsa";
    if (simulated.has(scac)) return "simulator";
    return null;
  };
}

/** The container fields a line's `provided_data` flags (R §1.8, sample A.7), in the sample's order. */
const LINE_FIELDS = [
  "ssl_lfd",
  "seal_number",
  "weight_in_lbs",
  "equipment_type",
  "pod_arrived_at",
  "pod_full_out_at",
  "equipment_height",
  "equipment_length",
  "pod_discharged_at",
  "empty_terminated_at",
  "final_destination_full_out_at",
] as const;

type LineField = (typeof LINE_FIELDS)[number];

/**
 * What each source kind fills in. DCSA Track & Trace events give the moves (arrival, discharge, gate-outs, the empty
 * return), seals on equipment events and the ISO 6346 size-type code (type, length, height), but no weight and no
 * last free day (src/tracking/sources/dcsa.ts). The sandbox's static shipment has seals, weights and equipment and
 * the POD moves, but no LFD and no inland leg (src/tracking/sources/sandbox.ts). The simulator fills everything,
 * the line's LFD (`pickup_lfd_line`) included (src/tracking/simulator).
 */
const PROVIDED: Record<LineSourceKind, ReadonlySet<LineField>> = {
  dcsa: new Set<LineField>([
    "seal_number",
    "equipment_type",
    "pod_arrived_at",
    "pod_full_out_at",
    "equipment_height",
    "equipment_length",
    "pod_discharged_at",
    "empty_terminated_at",
    "final_destination_full_out_at",
  ]),
  sandbox: new Set<LineField>([
    "seal_number",
    "weight_in_lbs",
    "equipment_type",
    "pod_arrived_at",
    "pod_full_out_at",
    "equipment_height",
    "equipment_length",
    "pod_discharged_at",
    "empty_terminated_at",
  ]),
  simulator: new Set<LineField>(LINE_FIELDS),
};

/**
 * A shipping line's `provided_data` (R §1.8): for each container field the line's source supplies here, `true`, with
 * a `<field>_notes` string (`""`, or why all are false). All false for a line no source serves (issue 15 item 3).
 */
export function lineProvidedData(kind: LineSourceKind | null): Record<string, boolean | string> {
  const out: Record<string, boolean | string> = {};
  for (const field of LINE_FIELDS) {
    out[field] = kind ? PROVIDED[kind].has(field) : false;
    out[`${field}_notes`] = kind ? "" : "No source for this line is configured here.";
  }
  return out;
}
