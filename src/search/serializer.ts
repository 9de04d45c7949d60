import type { Resource } from "../lib/jsonapi/types";
import type { SearchResultAttributes } from "./schemas";
import type { SearchHit } from "./service";

/**
 * A search hit as the reference serves it (docs/api.md §Search): type `search_result` for every kind (its real bodies;
 * docs/api.md §Search), the entity's id, no relationships and no links.
 */
export function serializeSearchResult(hit: SearchHit): Resource<SearchResultAttributes> {
  return {
    id: hit.id,
    type: "search_result",
    attributes: {
      entity_type: hit.entityType,
      number: hit.number,
      shipment_id: hit.shipmentId,
      scac: hit.scac,
      port_of_lading_name: hit.portOfLadingName,
      port_of_discharge_name: hit.portOfDischargeName,
      containers_count: hit.containersCount,
      tracking_stopped: hit.trackingStopped,
      tracking_stopped_reason: hit.trackingStoppedReason,
      status: hit.status,
      failed_reason: hit.failedReason,
      ref_numbers: hit.refNumbers,
      created_at: hit.createdAt,
      updated_at: hit.updatedAt,
    },
  };
}
