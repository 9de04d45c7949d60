import { SHIPPING_LINES } from "./generated/shipping-lines.ts";
import type { ShippingLineRecord } from "./types.ts";

const byScac = new Map<string, ShippingLineRecord>();
for (const line of SHIPPING_LINES) byScac.set(line.scac, line);
const byAlternative = new Map<string, ShippingLineRecord>();
for (const line of SHIPPING_LINES)
  for (const alt of line.alternativeScacs) if (!byScac.has(alt)) byAlternative.set(alt, line);

/** Every shipping line, sorted by SCAC (docs/api.md §Reference data endpoints). */
export function allShippingLines(): readonly ShippingLineRecord[] {
  return SHIPPING_LINES;
}

/**
 * The line a SCAC names: its own SCAC, or one of its alternative SCACs (e.g. MEDU → MSCU,
 * docs/api.md §Shipping line resource). Case-insensitive; null when no line is known by that code.
 */
export function findShippingLine(scac: string): ShippingLineRecord | null {
  const code = scac.trim().toUpperCase();
  return byScac.get(code) ?? byAlternative.get(code) ?? null;
}

/** SCAC of the sandbox carrier (docs/decisions.md §Sandbox). */
export const SANDBOX_SCAC = "TEST";
