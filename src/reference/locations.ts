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
/** Every terminal by its bare SMDG code or upper-cased nickname, whatever its port (to say which ports a code names). */
const terminalsByLocalCode = new Map<string, TerminalRecord[]>();
const addLocal = (code: string, t: TerminalRecord) => {
  const list = terminalsByLocalCode.get(code) ?? [];
  if (!list.includes(t)) list.push(t);
  terminalsByLocalCode.set(code, list);
};
for (const t of TERMINALS) {
  if (t.firmsCode) terminalsByCode.set(t.firmsCode, t);
  if (t.bicFacilityCode) terminalsByCode.set(t.bicFacilityCode, t);
  if (t.smdgCode) {
    terminalsBySmdg.set(`${t.portLocode}:${t.smdgCode}`, t);
    addLocal(t.smdgCode, t);
  }
}
// A nickname two terminals of one port share (`SSA`, `Shippers Transport Express`) names neither.
const sharedNicknames = new Map<string, TerminalRecord[]>();
for (const t of TERMINALS) {
  if (!t.nickname) continue;
  const key = `${t.portLocode}:${t.nickname.toUpperCase()}`;
  addLocal(t.nickname.toUpperCase(), t);
  const other = terminalsByNickname.get(key);
  if (other) sharedNicknames.set(key, [...(sharedNicknames.get(key) ?? [other]), t]);
  terminalsByNickname.set(key, t);
}
for (const key of sharedNicknames.keys()) terminalsByNickname.delete(key);
const terminalsById = new Map<string, TerminalRecord>(TERMINALS.map((t) => [t.id, t]));

/**
 * Separator of a port-qualified facility code, `<port UN/LOCODE>:<code at that port>` (`NLRTM:NLMVII`): how we name a
 * terminal that has neither a FIRMS nor a BIC facility code (most terminals outside the US), since its SMDG code is
 * unique only within its port (`APMT` is a different terminal at USLAX, DKAAR, INPAV, MAPTM, …).
 */
export const PORT_QUALIFIER = ":";

/** `NLRTM:NLMVII` → `{ locode: "NLRTM", code: "NLMVII" }` (trimmed, upper case); null when `code` is not port-qualified. */
function splitPortQualified(code: string): { locode: string; code: string } | null {
  const at = code.indexOf(PORT_QUALIFIER);
  if (at < 0) return null;
  return {
    locode: code.slice(0, at).trim().toUpperCase(),
    code: code
      .slice(at + PORT_QUALIFIER.length)
      .trim()
      .toUpperCase(),
  };
}

/**
 * Our facility code of a terminal, the one key every source, the poll plan and `TERMINAL_SOURCES` use for it: its
 * CBP FIRMS code (US terminals; the reference service keys terminals by it), else its BIC facility code, else its
 * port-qualified SMDG code `<port UN/LOCODE>:<SMDG code>` (`NLRTM:NLMVII`, the terminal's current UN/LOCODE); null
 * for a terminal with none of them (a handful of terminals.csv rows).
 */
export function facilityCodeOf(
  terminal: Pick<TerminalRecord, "firmsCode" | "bicFacilityCode" | "smdgCode" | "portLocode">,
): string | null {
  if (terminal.firmsCode) return terminal.firmsCode;
  if (terminal.bicFacilityCode) return terminal.bicFacilityCode;
  return terminal.smdgCode ? `${terminal.portLocode}${PORT_QUALIFIER}${terminal.smdgCode}` : null;
}

/** The terminal with this reference id (`TerminalRecord.id`, the `terminals` row id), or null. */
export function findTerminalById(id: string | null | undefined): TerminalRecord | null {
  return id ? (terminalsById.get(id) ?? null) : null;
}

/**
 * The port with this UN/LOCODE, current or alternative (case-insensitive): `CNSGH` finds Shanghai, whose `code` is
 * `CNSHA`. Null for an unknown code or none.
 */
export function findPortByLocode(locode: string | null | undefined): PortRecord | null {
  if (!locode) return null;
  return portsByCode.get(locode.trim().toUpperCase()) ?? null;
}

/**
 * The terminal with this facility code of ours (case-insensitive), or null: a CBP FIRMS code or BIC facility code, or
 * a port-qualified code `<port UN/LOCODE>:<code>` (`NLRTM:NLMVII`; see {@link PORT_QUALIFIER}) naming a terminal at
 * that port only (its SMDG code, BIC code with or without the UN/LOCODE, FIRMS code, or a nickname no other terminal
 * of the port shares). A bare SMDG code is not ours: it names a terminal only at its port (see {@link resolveTerminal}).
 */
export function findTerminalByCode(code: string | null | undefined): TerminalRecord | null {
  if (!code) return null;
  const wanted = code.trim().toUpperCase();
  const qualified = splitPortQualified(wanted);
  if (!qualified) return terminalsByCode.get(wanted) ?? null;
  const port = findPortByLocode(qualified.locode);
  return port && qualified.code ? terminalAtPort(qualified.code, port, qualified.locode) : null;
}

/**
 * The terminal of `port` that `code` (upper case) names: a FIRMS or BIC code of a terminal at that port, its SMDG
 * code there (a retired UN/LOCODE such as CNNBO finds the port's terminals under CNNGB), a BIC code written as
 * UN/LOCODE + code (`AEJEA` + `DPWJ2`, under the current or the given UN/LOCODE), or a nickname there; else null.
 */
function terminalAtPort(code: string, port: PortRecord, locode: string): TerminalRecord | null {
  const byCode = terminalsByCode.get(code);
  if (byCode && byCode.portId === port.id) return byCode;
  return (
    terminalsBySmdg.get(`${port.code}:${code}`) ??
    terminalsByCode.get(`${port.code}${code}`) ??
    terminalsByCode.get(`${locode}${code}`) ??
    terminalsByNickname.get(`${port.code}:${code}`) ??
    null
  );
}

/** How a `TERMINAL_SOURCES` facility key resolves ({@link lookupFacilityKey}). */
export type FacilityKeyLookup =
  /** One terminal; `facilityCode` is our code for it ({@link facilityCodeOf}). */
  | { kind: "found"; terminal: TerminalRecord; facilityCode: string }
  /** No terminal of the reference data. */
  | { kind: "unknown" }
  /**
   * A code that names a terminal only within a port (a bare SMDG code or nickname), or a nickname several terminals
   * of the port share: `candidates` are our codes of the terminals it may mean, sorted.
   */
  | { kind: "ambiguous"; candidates: string[] };

/**
 * Resolves a facility key an operator writes in `TERMINAL_SOURCES` (issue 14;
 * src/tracking/sources/terminal-operators/index.ts) to one of our terminals: a FIRMS or BIC facility code (`W185`), or
 * a port-qualified code (`NLRTM:NLMVII`, see {@link findTerminalByCode}). A bare SMDG code or nickname (`APMT`,
 * `NLMVII`) is `ambiguous` even when one port has it today, since SMDG codes are unique only within a port: its
 * candidates say which port-qualified key to write.
 * Case-insensitive; pure.
 */
export function lookupFacilityKey(key: string): FacilityKeyLookup {
  const wanted = key.trim().toUpperCase();
  const terminal = findTerminalByCode(wanted);
  const facilityCode = terminal ? facilityCodeOf(terminal) : null;
  if (terminal && facilityCode) return { kind: "found", terminal, facilityCode };
  const qualified = splitPortQualified(wanted);
  const port = qualified ? findPortByLocode(qualified.locode) : null;
  const meant = qualified
    ? port
      ? (sharedNicknames.get(`${port.code}:${qualified.code}`) ?? [])
      : []
    : (terminalsByLocalCode.get(wanted) ?? []);
  const candidates = [...new Set(meant.map(facilityCodeOf).filter((c): c is string => c !== null))].sort();
  return candidates.length > 0 ? { kind: "ambiguous", candidates } : { kind: "unknown" };
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
 * A port-qualified code of ours (`NLRTM:NLMVII`, {@link facilityCodeOf}) is looked up at the port it names.
 */
export function resolveTerminal(
  code: string | null | undefined,
  locode: string | null | undefined,
): TerminalRecord | null {
  const wanted = code?.trim().toUpperCase();
  if (!wanted) return null;
  // A port-qualified code (ours, `NLRTM:NLMVII`) names its port itself.
  if (splitPortQualified(wanted)) return findTerminalByCode(wanted);
  const byCode = terminalsByCode.get(wanted) ?? null;
  const port = findPortByLocode(locode);
  if (!locode) return byCode;
  return (port ? terminalAtPort(wanted, port, locode.trim().toUpperCase()) : null) ?? byCode;
}

/**
 * The code a source should carry for a terminal it found ({@link resolveTerminal} of `code` at `locode`): our facility
 * code of it ({@link facilityCodeOf}): the FIRMS code when it has one (terminal sources and the reference service key
 * terminals by it), else its BIC code, else its port-qualified SMDG code (`NLMVII` at NLRTM → `NLRTM:NLMVII`, so the
 * POD terminal of a box outside the US is one unambiguous code for the poll plan and `TERMINAL_SOURCES`). A code the
 * reference data does not know (or a terminal with none of these codes): as given.
 */
export function canonicalFacilityCode(
  code: string | null | undefined,
  locode: string | null | undefined,
): string | null {
  if (!code) return null;
  const t = resolveTerminal(code, locode);
  return (t ? facilityCodeOf(t) : null) ?? code;
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
