import { PORTS } from "./generated/ports.ts";
import { TERMINALS } from "./generated/terminals.ts";
import type { PortRecord, TerminalRecord } from "./types.ts";

const portsByLocode = new Map(PORTS.map((p) => [p.code, p]));
const terminalsByCode = new Map<string, TerminalRecord>();
for (const t of TERMINALS) {
  if (t.firmsCode) terminalsByCode.set(t.firmsCode, t);
  if (t.bicFacilityCode) terminalsByCode.set(t.bicFacilityCode, t);
}

/** The port with this UN/LOCODE (case-insensitive), or null. */
export function findPortByLocode(locode: string | null | undefined): PortRecord | null {
  if (!locode) return null;
  return portsByLocode.get(locode.toUpperCase()) ?? null;
}

/** The terminal with this FIRMS code or BIC facility code, or null. */
export function findTerminalByCode(code: string | null | undefined): TerminalRecord | null {
  if (!code) return null;
  return terminalsByCode.get(code.toUpperCase()) ?? null;
}
