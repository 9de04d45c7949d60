/**
 * What the MCP server announces at `initialize`: its name and version and its instructions (docs/mcp.md). Apart from the
 * registry of tools, prompts and resources (src/mcp/register.ts, which re-exports both) so that the agent
 * (src/mcp/agent.ts) builds its server without loading the registry, which it imports when a session starts.
 */

/** Name and version the server announces at `initialize`. */
export const SERVER_INFO = { name: "container-tracking-service", version: "0.2.0" } as const;

/**
 * Server instructions sent at `initialize` (docs/mcp.md §Server instructions): the domain, the tool chain, the rules
 * the tools apply, and what errors mean.
 */
export const SERVER_INSTRUCTIONS = `Ocean container tracking for one account: shipments (bills of lading or bookings), their containers, carrier and terminal milestones, pickup readiness, last free day (LFD), holds and fees.

Only track_container writes (it creates a tracking request when the number is not tracked yet; it never duplicates one). Every other tool is read-only and sees only this account's data.

Usual chain: search_container (by container, BL or booking number) → get_container (status, readiness, LFD, holds, fees) / get_shipment_details (ports, vessel, ETA vs original ETA) → get_container_transport_events (milestone timeline by journey phase) → get_container_route (vessels and legs, the vessel's position now; paid "routing" feature) → get_container_map (the journey as GeoJSON for a map; same feature). Use get_supported_shipping_lines to find a carrier's SCAC before track_container, and list_containers / list_shipments / list_tracking_requests for worklists (page with next_page). Container and shipment arguments accept an id or the number itself. Shipping documents (BLs, arrival notices …): list_documents (by type or file name; each row shows the BL, booking and container numbers read from it) → get_document (the fields read, each with a confidence; the shipments/containers it is linked to).

Rules the tools apply: a container is ready for pickup only when available_for_pickup is true and no hold has status "hold"; LFD urgency is overdue / imminent (≤ 48 h) / upcoming, and "unknown" when tracking stopped or terminal data is over 7 days old; fee sums exclude the terminal's "total" line. Times are UTC with an IANA zone; tools add local times. Statuses are authoritative; do not infer "delivered" or "picked up" from missing data.

Errors are specific: "Not found" (not in this account: search first), "Invalid argument" (fix the named argument), "Rate limited … retry after N seconds" (the account's limit is shared with the REST API; wait that long), "Feature not enabled" (paid feature missing). A freshly created tracking request is pending: do not report shipment data until it is created. Resources: svc://docs/milestone-glossary explains every milestone, svc://docs/mcp-query-guidance maps questions to tools, svc://docs/list-display-columns gives the columns to show for lists.`;
