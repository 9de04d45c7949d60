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

// What the server announces at `initialize` lives apart (src/mcp/server-info.ts), so the agent creates its server
// without loading this registry: the agent imports it when a session starts (src/mcp/agent.ts `init`).
export { SERVER_INFO, SERVER_INSTRUCTIONS } from "./server-info";

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
