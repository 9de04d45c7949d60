import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { toManyIds } from "../../lib/jsonapi/types";
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

/** Shipments whose containers are listed in a search result (a BL or booking number matches one or a few). */
const SHIPMENTS_WITH_CONTAINERS = 5;

/** A container of a matched shipment: enough to call get_container next. */
const ShipmentContainer = z.object({ id: z.string(), number: z.string(), current_status: z.string() });

/**
 * `search_container` (docs/mcp.md §Tools): exact matches of a container number, a BL/booking number or a tracking
 * request number in the account. A matched shipment comes with its containers (id, number, status; issue 16 §6),
 * so the agent needs no second call. Nothing found is an empty result, not an error.
 */
export function registerSearchTool(server: McpServer, deps: McpDeps): void {
  registerTrackingTool(server, deps, {
    name: "search_container",
    title: "Search containers and shipments",
    description:
      "Find the account's containers, shipments and tracking requests by container number (ISO 6346, e.g. MSCU1234566), bill of lading or booking number. Exact match, case-insensitive; spaces and dashes are ignored in container numbers. A matched shipment lists its containers. Returns ids for get_container / get_shipment_details. An empty result means the number is not tracked in this account (use track_container to start).",
    input: {
      query: z.string().min(1).max(64).describe("Container, bill of lading or booking number."),
    },
    output: {
      query: z.string(),
      total_results: z.number().int(),
      containers: z.array(ContainerSummary),
      shipments: z.array(
        ShipmentSummary.extend({
          containers: z.array(ShipmentContainer).describe("The shipment's containers (up to 100)."),
        }),
      ),
      tracking_requests: z.array(TrackingRequestSummary),
    },
    annotations: READ_ONLY,
    async run({ query }, { api }) {
      const found = await api.searchContainers(query, { limit: 20 });
      const containers = found.containers.map(containerSummary);
      const shipments = await Promise.all(
        found.shipments.map(async (s, i) => {
          const boxes =
            i < SHIPMENTS_WITH_CONTAINERS && toManyIds(s, "containers").length > 0
              ? (await api.listContainers({ "filter[shipment_id]": s.id }, { page: 1, pageSize: 100 })).items
              : [];
          return {
            ...shipmentSummary(s),
            containers: boxes.map(({ container: c }) => ({
              id: c.id,
              number: c.attributes.number,
              current_status: c.attributes.current_status,
            })),
          };
        }),
      );
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
          for (const c of s.containers) lines.push(`  - Container ${c.number} (${c.current_status}) id ${c.id}`);
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
