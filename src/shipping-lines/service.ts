import { allShippingLines } from "../reference/shipping-lines";
import type { ShippingLineRecord } from "../reference/types";

/**
 * The known shipping lines (the compiled reference registry, sorted by SCAC) whose SCAC, alternative SCACs, name or
 * short name contains `search`, case-insensitively; every line without one (`GET /shipping_lines?search=`,
 * docs/api.md §Reference data endpoints).
 * @param search already trimmed; undefined or "" for no filter.
 */
export function searchShippingLines(search?: string): readonly ShippingLineRecord[] {
  const s = search?.toLowerCase() ?? "";
  if (s === "") return allShippingLines();
  return allShippingLines().filter(
    (l) =>
      l.scac.toLowerCase().includes(s) ||
      l.name.toLowerCase().includes(s) ||
      l.shortName.toLowerCase().includes(s) ||
      l.alternativeScacs.some((a) => a.toLowerCase().includes(s)),
  );
}
