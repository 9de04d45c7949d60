/**
 * `registerAll`: every tool, prompt and resource of the MCP server, registered once against a `TrackingApi`
 * resolver (docs/architecture.md §MCP). The Worker's McpAgent (src/mcp/agent.ts) resolves the caller's API over the
 * services; the stdio bin relays to it (src/mcp/stdio.ts), so this is the only MCP server.
 */

import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { type LoggingLevel, SetLevelRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { type Clock, systemClock } from "../lib/clock";
import { registerPrompts } from "./prompts";
import { registerResources } from "./resources";
import { registerChargeTools } from "./tools/charges";
import type { ApiResolver, McpDeps } from "./tools/common";
import { registerContainerTools } from "./tools/containers";
import { registerDocumentTools } from "./tools/documents";
import { registerMapTool } from "./tools/map";
import { registerReferenceTools } from "./tools/reference";
import { registerSearchTool } from "./tools/search";
import { registerShipmentTools } from "./tools/shipments";
import { registerTrackTool } from "./tools/track";

/** Name and version the server announces at `initialize`. */
export const SERVER_INFO = { name: "container-tracking-service", version: "0.2.0" } as const;

/** Names of the tools, in registration order (docs/mcp.md §Tools). */
export const TOOL_NAMES = [
  "search_container",
  "track_container",
  "get_container",
  "get_container_transport_events",
  "get_container_route",
  "get_container_map",
  "get_demurrage_report",
  "list_containers",
  "get_shipment_details",
  "list_shipments",
  "get_supported_shipping_lines",
  "list_tracking_requests",
  "list_documents",
  "get_document",
] as const;

/** Names of the prompts (docs/mcp.md §Tools). */
export const PROMPT_NAMES = ["track-shipment", "check-demurrage", "analyze-delays"] as const;

/**
 * Server instructions sent at `initialize` (docs/mcp.md §Server instructions): the domain, the tool chain, the rules
 * the tools apply, and what errors mean.
 */
export const SERVER_INSTRUCTIONS = `Ocean container tracking for one account: shipments (bills of lading or bookings), their containers, carrier and terminal milestones, pickup readiness, last free day (LFD), holds and fees.

Only track_container writes (it creates a tracking request when the number is not tracked yet; it never duplicates one). Every other tool is read-only and sees only this account's data.

Usual chain: search_container (by container, BL or booking number) → get_container (status, readiness, LFD, holds, fees) / get_shipment_details (ports, vessel, ETA vs original ETA) → get_container_transport_events (milestone timeline by journey phase) → get_container_route (vessels and legs, the vessel's position now; paid "routing" feature) → get_container_map (the journey as GeoJSON for a map; same feature). Use get_supported_shipping_lines to find a carrier's SCAC before track_container, and list_containers / list_shipments / list_tracking_requests for worklists (page with next_page). Container and shipment arguments accept an id or the number itself. Shipping documents (BLs, arrival notices …): list_documents (by type or file name; each row shows the BL, booking and container numbers read from it) → get_document (the fields read, each with a confidence; the shipments/containers it is linked to).

Rules the tools apply: a container is ready for pickup only when available_for_pickup is true and no hold has status "hold"; LFD urgency is overdue / imminent (≤ 48 h) / upcoming, and "unknown" when tracking stopped or terminal data is over 7 days old; fee sums exclude the terminal's "total" line. Times are UTC with an IANA zone; tools add local times. Statuses are authoritative; do not infer "delivered" or "picked up" from missing data.

Errors are specific: "Not found" (not in this account: search first), "Invalid argument" (fix the named argument), "Rate limited … retry after N seconds" (the account's limit is shared with the REST API; wait that long), "Feature not enabled" (paid feature missing). A freshly created tracking request is pending: do not report shipment data until it is created. Resources: svc://docs/milestone-glossary explains every milestone, svc://docs/mcp-query-guidance maps questions to tools, svc://docs/list-display-columns gives the columns to show for lists.`;

/** MCP log levels, least severe first (RFC 5424 order, MCP `LoggingLevel`). */
const LOG_SEVERITY: readonly LoggingLevel[] = [
  "debug",
  "info",
  "notice",
  "warning",
  "error",
  "critical",
  "alert",
  "emergency",
];

/** Options of {@link registerAll}. */
export interface RegisterOptions {
  /** Resolves the caller's API per request (may reject with `TrackingApiError` `unauthorized` / `rate_limited`). */
  resolveApi: ApiResolver;
  /** Clock for LFD urgency (default: the system clock). */
  clock?: Clock;
  /** Receives unexpected errors with the reference shown to the client (default: one JSON line on stderr). */
  reportError?: McpDeps["reportError"];
}

/**
 * Registers the 13 tools, 3 prompts, the `svc://container/{id}` template and the three guide documents on `server`
 * (an SDK v1 `McpServer` created with {@link SERVER_INFO}, {@link SERVER_INSTRUCTIONS} and the `logging`
 * capability). Call once per server instance.
 */
export function registerAll(server: McpServer, options: RegisterOptions): void {
  // The SDK's own `logging/setLevel` handler keeps the level private; this one keeps it where tools can read it
  // (one server instance serves one session, so one level).
  let minimum: LoggingLevel | undefined;
  server.server.setRequestHandler(SetLevelRequestSchema, async (request) => {
    minimum = request.params.level;
    return {};
  });
  const deps: McpDeps = {
    logging: {
      enabled: (level) => minimum === undefined || LOG_SEVERITY.indexOf(level) >= LOG_SEVERITY.indexOf(minimum),
    },
    resolveApi: options.resolveApi,
    clock: options.clock ?? systemClock,
    reportError:
      options.reportError ??
      ((err, reference, where) => {
        console.error(
          JSON.stringify({
            level: "error",
            component: "mcp",
            reference,
            where,
            message: String(err),
            stack: err instanceof Error ? err.stack : undefined,
          }),
        );
      }),
  };
  registerSearchTool(server, deps);
  registerTrackTool(server, deps);
  registerContainerTools(server, deps);
  registerMapTool(server, deps);
  registerChargeTools(server, deps);
  registerShipmentTools(server, deps);
  registerReferenceTools(server, deps);
  registerDocumentTools(server, deps);
  registerPrompts(server, deps);
  registerResources(server, deps);
}
