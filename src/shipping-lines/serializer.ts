import type { Resource } from "../lib/jsonapi/types";
import type { ShippingLineRecord } from "../reference/types";
import { type LineSourceKind, lineProvidedData } from "./provided-data";
import type { ShippingLineAttributes } from "./schemas";

/**
 * Serialises a shipping line (docs/api.md §Shipping line resource, sample A.7). `supported` (ours) says whether a
 * source is configured here, i.e. whether `POST /tracking_requests` accepts the SCAC; `provided_data` which container
 * fields that source (`source`, null for none) supplies.
 */
export function serializeShippingLine(
  line: ShippingLineRecord,
  source: LineSourceKind | null,
): Resource<ShippingLineAttributes> {
  return {
    id: line.id,
    type: "shipping_line",
    attributes: {
      scac: line.scac,
      name: line.name,
      provided_data: lineProvidedData(source),
      short_name: line.shortName,
      alternative_scacs: line.alternativeScacs,
      bol_prefix: line.bolPrefixes[0] ?? null,
      tracking_url: null,
      contact_url: null,
      bill_of_lading_tracking_support: line.billOfLadingTrackingSupport,
      booking_number_tracking_support: line.bookingNumberTrackingSupport,
      container_number_tracking_support: line.containerNumberTrackingSupport,
      supported: source !== null,
    },
  };
}
