import { PORTS } from "./generated/ports.ts";
import { TERMINALS } from "./generated/terminals.ts";
import type { PortRecord, TerminalRecord } from "./types.ts";

// The one place every source, writer and serializer resolves a port or terminal (issue 12): the compiled reference
// data in memory, looked up by the codes carriers and terminals use.

const portsByCode = new Map<string, PortRecord>();
for (const p of PORTS) {
  portsByCode.set(p.code, p);
  for (const alt of p.alternativeCodes) if (!portsByCode.has(alt)) portsByCode.set(alt, p);
}
/** FIRMS and BIC facility codes: unique across all terminals (scripts/compile-data.mjs checks it). */
const terminalsByCode = new Map<string, TerminalRecord>();
/** `<port UN/LOCODE>:<SMDG code or upper-cased nickname>`. */
const terminalsBySmdg = new Map<string, TerminalRecord>();
const terminalsByNickname = new Map<string, TerminalRecord>();
for (const t of TERMINALS) {
  if (t.firmsCode) terminalsByCode.set(t.firmsCode, t);
  if (t.bicFacilityCode) terminalsByCode.set(t.bicFacilityCode, t);
  if (t.smdgCode) terminalsBySmdg.set(`${t.portLocode}:${t.smdgCode}`, t);
}
// A nickname two terminals of one port share (`SSA`, `Shippers Transport Express`) names neither.
const sharedNicknames = new Set<string>();
for (const t of TERMINALS) {
  if (!t.nickname) continue;
  const key = `${t.portLocode}:${t.nickname.toUpperCase()}`;
  if (terminalsByNickname.has(key)) sharedNicknames.add(key);
  terminalsByNickname.set(key, t);
}
for (const key of sharedNicknames) terminalsByNickname.delete(key);

/**
 * The port with this UN/LOCODE, current or alternative (case-insensitive): `CNSGH` finds Shanghai, whose `code` is
 * `CNSHA`. Null for an unknown code or none.
 */
export function findPortByLocode(locode: string | null | undefined): PortRecord | null {
  if (!locode) return null;
  return portsByCode.get(locode.trim().toUpperCase()) ?? null;
}

/** The terminal with this CBP FIRMS code or BIC facility code (case-insensitive), or null. */
export function findTerminalByCode(code: string | null | undefined): TerminalRecord | null {
  if (!code) return null;
  return terminalsByCode.get(code.trim().toUpperCase()) ?? null;
}

/**
 * The terminal a source names by `code` at the port `locode`, whatever list the code comes from (DCSA
 * `facilityCodeListProvider` SMDG or BIC, a CBP FIRMS code, a nickname), or null. In order:
 * 1. a FIRMS or BIC code of a terminal at that port (or anywhere, without a port);
 * 2. an SMDG code at that port (a retired UN/LOCODE such as CNNBO finds the port's terminals under CNNGB);
 * 3. a BIC code written as UN/LOCODE + code (`AEJEA` + `DPWJ2`);
 * 4. a nickname at that port (`FMS` at USLAX);
 * 5. a FIRMS or BIC code of a terminal at another port (the carrier's UN/LOCODE is then the wrong one).
 * An SMDG code or nickname is only ever looked up at its own port: `APMT` names a different terminal in each port.
 */
export function resolveTerminal(
  code: string | null | undefined,
  locode: string | null | undefined,
): TerminalRecord | null {
  const wanted = code?.trim().toUpperCase();
  if (!wanted) return null;
  const byCode = terminalsByCode.get(wanted) ?? null;
  const port = findPortByLocode(locode);
  if (!locode) return byCode;
  if (byCode && byCode.portId === port?.id) return byCode;
  if (port) {
    const found =
      terminalsBySmdg.get(`${port.code}:${wanted}`) ??
      terminalsByCode.get(`${port.code}${wanted}`) ??
      terminalsByCode.get(`${locode.trim().toUpperCase()}${wanted}`) ??
      terminalsByNickname.get(`${port.code}:${wanted}`);
    if (found) return found;
  }
  return byCode;
}

/**
 * The code a source should carry for a terminal it found: the FIRMS code when it has one (terminal sources and the
 * reference service key terminals by it), else its BIC code, else the code as given. Unknown: as given.
 */
export function canonicalFacilityCode(
  code: string | null | undefined,
  locode: string | null | undefined,
): string | null {
  if (!code) return null;
  const t = resolveTerminal(code, locode);
  return t?.firmsCode ?? t?.bicFacilityCode ?? code;
}

/** A place as a source names it: a UN/LOCODE and, optionally, a facility code there. */
export interface NamedPlace {
  locode?: string | null;
  facilityCode?: string | null;
}

/**
 * The codes among `places` the reference data does not know, each once, sorted: `XXYYY` for a port, `USLAX/ZZQX`
 * for a facility (at its port). Pure. Rows keep such codes as given (issue 12: never dropped, never an error).
 */
export function unknownLocations(places: Iterable<NamedPlace>): string[] {
  const unknown = new Set<string>();
  for (const { locode, facilityCode } of places) {
    if (locode && !findPortByLocode(locode)) unknown.add(locode);
    if (facilityCode && !resolveTerminal(facilityCode, locode)) unknown.add(`${locode ?? ""}/${facilityCode}`);
  }
  return [...unknown].sort();
}

/**
 * Logs one line counting the location codes a write keeps as given because the reference data does not know them
 * (`unknown locations: 2 kept as given (box update): USLAX/ZZQX, XXYYY`), so gaps in the data show in the logs.
 * Nothing when `codes` is empty.
 */
export function logUnknownLocations(context: string, codes: readonly string[]): void {
  if (codes.length === 0) return;
  console.warn(`unknown locations: ${codes.length} kept as given (${context}): ${codes.join(", ")}`);
}
