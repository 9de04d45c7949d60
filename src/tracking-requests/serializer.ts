import { and, inArray } from "drizzle-orm";
import { parties, type trackingRequests } from "../db/schema";
import { registerResourceType } from "../lib/jsonapi/include-registry";
import type { Resource } from "../lib/jsonapi/types";
import { ownedBy } from "../lib/tenant";
import type { TrackingRequestAttributes } from "./schemas";

/** A `tracking_requests` row as drizzle returns it. */
export type TrackingRequestRow = typeof trackingRequests.$inferSelect;

/** Serialises a tracking request in the reference order (docs/api.md §Tracking request resource) with `links.self`. */
export function serializeTrackingRequest(row: TrackingRequestRow): Resource<TrackingRequestAttributes> {
  return {
    id: row.id,
    type: "tracking_request",
    attributes: {
      request_number: row.requestNumber,
      // The enum columns are text in D1 typed `string`; only the schema's values are ever written to them.
      request_type: row.requestType as TrackingRequestAttributes["request_type"],
      scac: row.scac,
      ref_numbers: row.refNumbers,
      shipment_tags: row.shipmentTags,
      created_at: row.createdAt,
      updated_at: row.updatedAt,
      status: row.status as TrackingRequestAttributes["status"],
      failed_reason: row.failedReason,
      is_retrying: row.isRetrying,
      retry_count: row.retryCount,
    },
    relationships: {
      tracked_object: { data: row.shipmentId ? { id: row.shipmentId, type: "shipment" } : null },
      customer: { data: row.customerId ? { id: row.customerId, type: "party" } : null },
      user: { data: null },
    },
    links: { self: `/v2/tracking_requests/${row.id}` },
  };
}

/**
 * JSON:API type `tracking_request`; includable: `tracked_object` (the default include, docs/api.md §Includes),
 * `customer`.
 */
export const trackingRequestResource = registerResourceType<TrackingRequestRow>({
  type: "tracking_request",
  serializerName: "V2::TrackingRequestSerializer",
  serialize: serializeTrackingRequest,
  relationships: {
    tracked_object: { target: "shipment", idOf: (t) => t.shipmentId },
    customer: {
      target: "party",
      load: async (ctx, parents) => {
        const ids = [...new Set(parents.map((t) => t.customerId).filter((id): id is string => !!id))];
        if (ids.length === 0) return [];
        return ctx.db
          .select()
          .from(parties)
          .where(and(ownedBy(parties.accountId, ctx.accountId), inArray(parties.id, ids)));
      },
    },
  },
});
