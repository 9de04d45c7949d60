/**
 * The MCP side of the container route (tool `get_container_route`, paid feature `routing`): the one
 * `forbidden_feature` error for an account without the entitlement. The route itself is built by
 * src/containers/shipping-route.ts.
 */

import { ROUTING_ENTITLEMENT, ROUTING_NOT_ENABLED_DETAIL } from "../containers/shipping-route";
import { TrackingApiError } from "./api";

/**
 * The `forbidden_feature` error of `getContainerRoute` for an account without the `routing` entitlement: the
 * REST 403 detail (REFERENCE-SERVICE.md §4) plus what to do instead, with `feature: "routing"`.
 */
export function routingNotEnabledError(): TrackingApiError {
  return new TrackingApiError(
    "forbidden_feature",
    `${ROUTING_NOT_ENABLED_DETAIL}. Ask the account owner to enable the \`${ROUTING_ENTITLEMENT}\` feature; until then use get_container_transport_events and get_shipment_details for the journey.`,
    { feature: ROUTING_ENTITLEMENT },
  );
}
