import type { LineSourceKind } from "../tracking/sources";

export type { LineSourceKind } from "../tracking/sources";

/**
 * The container fields a line's `provided_data` flags (docs/api.md §Shipping line resource, sample A.7), in the
 * sample's order.
 */
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
 * last free day (src/tracking/sources/dcsa/). The sandbox's static shipment has seals, weights and equipment and
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
 * A shipping line's `provided_data` (docs/api.md §Shipping line resource): for each container field the line's source
 * supplies here, `true`, with a `<field>_notes` string (`""`, or why all are false). All false for a line no source
 * serves (issue 15 item 3).
 */
export function lineProvidedData(kind: LineSourceKind | null): Record<string, boolean | string> {
  const out: Record<string, boolean | string> = {};
  for (const field of LINE_FIELDS) {
    out[field] = kind ? PROVIDED[kind].has(field) : false;
    out[`${field}_notes`] = kind ? "" : "No source for this line is configured here.";
  }
  return out;
}
