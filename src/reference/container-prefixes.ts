import { CONTAINER_PREFIXES } from "./generated/container-prefixes.ts";
import { findShippingLine } from "./shipping-lines.ts";

const byScac = new Map<string, string[]>();
for (const record of CONTAINER_PREFIXES) {
  for (const scac of record.mappedScacs) {
    const list = byScac.get(scac) ?? [];
    list.push(record.prefix);
    byScac.set(scac, list);
  }
}

/**
 * ISO 6346 owner prefixes (owner code + category, e.g. `MSKU`) of a shipping line's own boxes: the line's
 * `container_prefixes` in data/carriers.csv, else the prefixes data/container-prefixes.csv
 * maps to its SCAC. Empty when neither names any. `scac` is the line's own SCAC (case-insensitive).
 */
export function containerPrefixesForScac(scac: string): string[] {
  const code = scac.trim().toUpperCase();
  const fromLine = findShippingLine(code)?.containerPrefixes ?? [];
  if (fromLine.length > 0) return [...fromLine];
  return [...(byScac.get(code) ?? [])];
}
