import { env } from "cloudflare:workers";
import type { Env } from "../env";
import { type SourceRegistry, sourcesFor } from "../tracking/sources";

/** The facility codes of a terminal a terminal source may know it by (CBP FIRMS, SMDG, BIC facility code). */
export interface TerminalCodes {
  firmsCode: string | null;
  smdgCode: string | null;
  bicFacilityCode: string | null;
  facilityType: string | null;
}

/** Whether some terminal source serves a facility for boxes of some line this deployment tracks. */
export type ServedFacility = (terminal: TerminalCodes) => boolean;

/** The terminal fields of `provided_data` (R §1.4, sample A.6), in the sample's order. */
const TERMINAL_FIELDS = [
  "pickup_lfd",
  "pod_full_out_at",
  "available_for_pickup",
  "fees_at_pod_terminal",
  "holds_at_pod_terminal",
  "pickup_appointment_at",
  "location_at_pod_terminal",
  "pod_full_out_chassis_number",
] as const;

/**
 * A terminal's `provided_data` (R §1.4, §10.6): every field a terminal poll observes (src/tracking/sources/types.ts
 * `TerminalObservation`: LFD, full-out, availability, fees, holds, appointment, yard location, chassis) is `true` when
 * one of our terminal sources serves the facility, `false` otherwise, each with a `<field>_notes` string. Rail
 * ramps (`facility_type` `rail_terminal`) also flag `empty_terminated_at`, which no ramp source reports here (issue 15
 * item 3 and 5).
 */
export function terminalProvidedData(terminal: TerminalCodes, served: boolean): Record<string, boolean | string> {
  const out: Record<string, boolean | string> = {};
  for (const field of TERMINAL_FIELDS) {
    out[field] = served;
    out[`${field}_notes`] = "";
  }
  if (terminal.facilityType === "rail_terminal") {
    out.empty_terminated_at = false;
    out.empty_terminated_at_notes = "";
  }
  return out;
}

/**
 * The facilities `registry`'s terminal sources serve: a terminal is served when a source supports one of its codes
 * for one of the SCACs the deployment tracks (`TerminalSource.supports`).
 */
export function servedFacilities(registry: Pick<SourceRegistry, "terminals" | "supportedScacs">): ServedFacility {
  const scacs = [...registry.supportedScacs];
  const memo = new Map<string, boolean>();
  return (terminal) => {
    const codes = [terminal.firmsCode, terminal.smdgCode, terminal.bicFacilityCode].filter((c): c is string => !!c);
    const key = codes.join("|");
    const known = memo.get(key);
    if (known !== undefined) return known;
    const served = codes.some((code) => registry.terminals.some((t) => scacs.some((scac) => t.supports(code, scac))));
    memo.set(key, served);
    return served;
  };
}

let memo: { registry: SourceRegistry; served: ServedFacility } | null = null;

/**
 * Whether one of this Worker's terminal sources serves the terminal: `servedFacilities` of `sourcesFor(env)` (the
 * global `env` of `cloudflare:workers`, so REST, queue consumers, the Tracker and the MCP agent all read the same
 * configuration), memoised per registry (`sourcesFor` caches one per configuration).
 */
export function isServedTerminal(terminal: TerminalCodes): boolean {
  const registry = sourcesFor(env as unknown as Env);
  if (memo?.registry !== registry) memo = { registry, served: servedFacilities(registry) };
  return memo.served(terminal);
}
