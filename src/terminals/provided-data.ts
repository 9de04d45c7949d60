import { env } from "cloudflare:workers";
import { facilityCodeOf, findTerminalById } from "../reference/locations";
import { type SourceRegistry, sourcesFor } from "../tracking/sources";
import type { TerminalProvider } from "../tracking/sources/terminal-operators";
import { apmtProvidedData, apmtProvidedDataNotes } from "../tracking/sources/terminal-operators/apmt-provided-data";
import { LBCT_PROVIDED_DATA, LBCT_PROVIDED_DATA_NOTES } from "../tracking/sources/terminal-operators/lbct";
import {
  PORT_OF_VIRGINIA_PROVIDED_DATA,
  PORT_OF_VIRGINIA_PROVIDED_DATA_NOTES,
} from "../tracking/sources/terminal-operators/port-of-virginia";

/** The facility codes of a terminal a terminal source may know it by (CBP FIRMS, SMDG, BIC facility code). */
export interface TerminalCodes {
  /**
   * The reference terminal's id (the `terminals` row id), when known: a terminal with neither FIRMS nor BIC code is
   * ours by its port-qualified SMDG code (`NLRTM:NLMVII`, src/reference/locations.ts `facilityCodeOf`), found by it.
   */
  id?: string | null;
  firmsCode: string | null;
  smdgCode: string | null;
  bicFacilityCode: string | null;
  facilityType: string | null;
}

/** Whether some terminal source serves a facility for boxes of some line this deployment tracks. */
export type ServedFacility = (terminal: TerminalCodes) => boolean;

/** The terminal fields of `provided_data` (docs/api.md §Terminal resource, sample A.6), in the sample's order. */
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

/** A terminal field `provided_data` flags. */
export type TerminalField = (typeof TERMINAL_FIELDS)[number];

/** What a terminal operator's API provides at one facility: its flags, and optionally a note per field. */
export interface TerminalService {
  flags: Readonly<Record<TerminalField, boolean>>;
  notes?: Readonly<Partial<Record<TerminalField, string>>>;
}

/**
 * What each provider's adapter really fills (its own constant, src/tracking/sources/terminal-operators/*.ts), by the
 * provider's facility code (APMT publishes less at some facilities).
 */
const PROVIDER_SERVICE: Partial<Record<TerminalProvider, (providerFacility: string) => TerminalService>> = {
  apmt: (providerFacility) => ({
    flags: apmtProvidedData(providerFacility),
    notes: apmtProvidedDataNotes(providerFacility),
  }),
  lbct: () => ({ flags: LBCT_PROVIDED_DATA, notes: LBCT_PROVIDED_DATA_NOTES }),
  port_of_virginia: () => ({ flags: PORT_OF_VIRGINIA_PROVIDED_DATA, notes: PORT_OF_VIRGINIA_PROVIDED_DATA_NOTES }),
};

/** The note of every field at a terminal nothing serves here (issue 14: what a user sees for it). */
export const NOT_CONNECTED_NOTE = "This terminal is not connected here: no source reports these fields.";

/**
 * A terminal's `provided_data` (docs/api.md §Terminal resource): every field a terminal poll observes
 * (src/tracking/sources/types.ts `TerminalObservation`: LFD, full-out, availability, fees, holds, appointment, yard
 * location, chassis) is `true` when one of our terminal sources serves the facility, `false` otherwise, each with a
 * `<field>_notes` string; a {@link TerminalService} (a terminal operator's API configured for it, issue 14) gives its
 * own flags and notes. Rail ramps (`facility_type` `rail_terminal`) also flag `empty_terminated_at`, which no ramp
 * source reports here (issue 15 item 3 and 5).
 */
export function terminalProvidedData(
  terminal: TerminalCodes,
  served: boolean | TerminalService,
): Record<string, boolean | string> {
  const out: Record<string, boolean | string> = {};
  for (const field of TERMINAL_FIELDS) {
    out[field] = typeof served === "boolean" ? served : served.flags[field];
    out[`${field}_notes`] = typeof served === "boolean" ? "" : (served.notes?.[field] ?? "");
  }
  if (terminal.facilityType === "rail_terminal") {
    out.empty_terminated_at = false;
    out.empty_terminated_at_notes = "";
  }
  return out;
}

/**
 * Our facility codes of `terminal` (the keys of `TERMINAL_SOURCES`): FIRMS and BIC facility code, and, for a terminal
 * known by its id with neither, its port-qualified SMDG code (`NLRTM:NLMVII`). Not a bare SMDG code: it names a
 * terminal only within its port.
 */
function ourCodesOf(terminal: TerminalCodes): string[] {
  const reference = terminal.firmsCode || terminal.bicFacilityCode ? null : findTerminalById(terminal.id);
  const qualified = reference ? facilityCodeOf(reference) : null;
  return [terminal.firmsCode, terminal.bicFacilityCode, qualified].filter((c): c is string => !!c);
}

/**
 * The facilities `registry`'s terminal sources serve: a terminal is served when a source supports one of its codes
 * (FIRMS, SMDG, BIC, or {@link ourCodesOf}) for one of the SCACs the deployment tracks (`TerminalSource.supports`).
 */
export function servedFacilities(registry: Pick<SourceRegistry, "terminals" | "supportedScacs">): ServedFacility {
  const scacs = [...registry.supportedScacs];
  const memo = new Map<string, boolean>();
  return (terminal) => {
    const named = [terminal.firmsCode, terminal.smdgCode, terminal.bicFacilityCode, ...ourCodesOf(terminal)];
    const codes = [...new Set(named.filter((c): c is string => !!c))];
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
  const registry = sourcesFor(env);
  if (memo?.registry !== registry) memo = { registry, served: servedFacilities(registry) };
  return memo.served(terminal);
}

/**
 * What a terminal operator's API configured in `TERMINAL_SOURCES` provides at this terminal (issue 14), or null when
 * none is configured for any of its codes (FIRMS, BIC, or port-qualified SMDG for a terminal known by its id): the
 * adapter's own flags (`LBCT_PROVIDED_DATA`, …), for the provider's facility code it is configured with. A bare SMDG
 * code is not asked: it names a terminal only within its port.
 */
export function providerServiceAt(
  registry: Pick<SourceRegistry, "terminalProviderFor" | "providerFacilityFor">,
  terminal: TerminalCodes,
): TerminalService | null {
  for (const code of ourCodesOf(terminal)) {
    const provider = registry.terminalProviderFor?.(code) ?? null;
    const service = provider ? PROVIDER_SERVICE[provider] : undefined;
    if (service) return service(registry.providerFacilityFor?.(code) ?? "");
  }
  return null;
}

/**
 * A terminal's `provided_data` as this Worker serves it (the global `env`, as {@link isServedTerminal}): a configured
 * provider's own flags; else `true` everywhere where the sandbox or the simulator plays the terminal; else all `false`
 * with a note that the terminal is not connected (production without `TERMINAL_SOURCES` for it).
 */
export function providedDataOf(terminal: TerminalCodes): Record<string, boolean | string> {
  const registry = sourcesFor(env);
  const service = providerServiceAt(registry, terminal);
  if (service) return terminalProvidedData(terminal, service);
  if (isServedTerminal(terminal)) return terminalProvidedData(terminal, true);
  const out = terminalProvidedData(terminal, false);
  for (const field of TERMINAL_FIELDS) out[`${field}_notes`] = NOT_CONNECTED_NOTE;
  return out;
}
