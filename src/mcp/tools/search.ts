import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import {
  ContainerSummary,
  containerSummary,
  type McpDeps,
  plural,
  READ_ONLY,
  registerTrackingTool,
  ShipmentSummary,
  shipmentSummary,
  TrackingRequestSummary,
  trackingRequestSummary,
} from "./common";

/**
 * `search_container` (SPEC.md §4.7): exact matches of a container number, a BL/booking number or a tracking
 * request number in the account. Nothing found is an empty result, not an error.
 */
export function registerSearchTool(server: McpServer, deps: McpDeps): void {
  registerTrackingTool(server, deps, {
    name: "search_container",
    title: "Search containers and shipments",
    description:
      "Find the account's containers, shipments and tracking requests by container number (ISO 6346, e.g. MSCU1234566), bill of lading or booking number. Exact match, case-insensitive; spaces and dashes are ignored in container numbers. Returns ids for get_container / get_shipment_details. An empty result means the number is not tracked in this account (use track_container to start).",
    input: {
      query: z.string().min(1).max(64).describe("Container, bill of lading or booking number."),
    },
    output: {
      query: z.string(),
      total_results: z.number().int(),
      containers: z.array(ContainerSummary),
      shipments: z.array(ShipmentSummary),
      tracking_requests: z.array(TrackingRequestSummary),
    },
    annotations: READ_ONLY,
    async run({ query }, { api }) {
      const found = await api.searchContainers(query, { limit: 20 });
      const containers = found.containers.map(containerSummary);
      const shipments = found.shipments.map(shipmentSummary);
      const requests = found.tracking_requests.map(trackingRequestSummary);
      const total = containers.length + shipments.length + requests.length;
      const lines: string[] = [];
      if (total === 0) {
        lines.push(
          `Nothing in this account matches "${query.trim()}". It is not tracked here; track_container starts tracking it.`,
        );
      } else {
        lines.push(
          `"${query.trim()}": ${plural(containers.length, "container")}, ${plural(shipments.length, "shipment")}, ${plural(requests.length, "tracking request")}.`,
        );
        for (const c of containers) {
          lines.push(`- Container ${c.number} (${c.current_status}) id ${c.id}`);
        }
        for (const s of shipments) {
          lines.push(
            `- Shipment ${s.bill_of_lading_number} (${s.shipping_line_scac}, ${s.port_of_lading_locode ?? "?"} → ${s.port_of_discharge_locode ?? "?"}, ${plural(s.container_count, "container")}) id ${s.id}`,
          );
        }
        for (const t of requests) {
          lines.push(`- Tracking request ${t.request_number} (${t.scac ?? "no SCAC"}, ${t.status}) id ${t.id}`);
        }
      }
      return {
        structured: {
          query: query.trim(),
          total_results: total,
          containers,
          shipments,
          tracking_requests: requests,
        },
        text: lines.join("\n"),
      };
    },
  });
}
