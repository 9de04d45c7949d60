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

/** How a result matched (docs/api.md §Search): the whole of one of its terms, the start of one, or inside one. */
const Match = z
  .enum(["exact", "prefix", "contains"])
  .describe("exact: a whole number or name; prefix: one starting with the query; contains: one containing it.");

/** A container of a matched shipment: enough to call get_container next. */
const ShipmentContainer = z.object({ id: z.string(), number: z.string(), current_status: z.string() });

/**
 * `search_container` (docs/mcp.md §Tools): the account's search (`TrackingApi.search`, the service of
 * `GET /v2/search`, docs/api.md §Search): container, BL/booking and request numbers, reference numbers, vessel names,
 * POL/POD names and UN/LOCODEs, ranked exact → prefix → contains. A matched shipment comes with its containers (id,
 * number, status; issue 16 §6), so the agent needs no second call. Nothing found is an empty result, not an error.
 */
export function registerSearchTool(server: McpServer, deps: McpDeps): void {
  registerTrackingTool(server, deps, {
    name: "search_container",
    title: "Search containers and shipments",
    description:
      "Find the account's containers, shipments and tracking requests by container number (ISO 6346, e.g. MSCU1234566), bill of lading or booking number, reference number, vessel name, or port of loading/discharge (name or UN/LOCODE: a vessel or port finds the shipments and containers on it). Whole matches first, then numbers starting with the query, then containing it (3 characters or more); case, spaces and dashes are ignored. Each result says how it matched. A matched shipment lists its containers. Returns ids for get_container / get_shipment_details. An empty result means nothing in this account matches (use track_container to start tracking a number).",
    input: {
      query: z
        .string()
        .min(1)
        .max(100)
        .describe("Container, bill of lading, booking or reference number, vessel name, port name or UN/LOCODE."),
    },
    output: {
      query: z.string(),
      total_results: z.number().int(),
      containers: z.array(ContainerSummary.extend({ match: Match })),
      shipments: z.array(
        ShipmentSummary.extend({
          match: Match,
          containers: z.array(ShipmentContainer).describe("The shipment's containers (up to 100)."),
        }),
      ),
      tracking_requests: z.array(TrackingRequestSummary.extend({ match: Match })),
    },
    annotations: READ_ONLY,
    async run({ query }, { api }) {
      const found = await api.search(query, { limit: 20 });
      const matchOf = (id: string) => found.matches[id] ?? "exact";
      const containers = found.containers.map((c) => ({ ...containerSummary(c), match: matchOf(c.id) }));
      const shipments = await Promise.all(
        found.shipments.map(async (s, i) => {
          const boxes =
            i < SHIPMENTS_WITH_CONTAINERS && toManyIds(s, "containers").length > 0
              ? (await api.listContainers({ "filter[shipment_id]": s.id }, { page: 1, pageSize: 100 })).items
              : [];
          return {
            ...shipmentSummary(s),
            match: matchOf(s.id),
            containers: boxes.map(({ container: c }) => ({
              id: c.id,
              number: c.attributes.number,
              current_status: c.attributes.current_status,
            })),
          };
        }),
      );
      const requests = found.tracking_requests.map((t) => ({ ...trackingRequestSummary(t), match: matchOf(t.id) }));
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
          lines.push(`- Container ${c.number} (${c.current_status}, ${c.match} match) id ${c.id}`);
        }
        for (const s of shipments) {
          lines.push(
            `- Shipment ${s.bill_of_lading_number} (${s.shipping_line_scac}, ${s.port_of_lading_locode ?? "?"} → ${s.port_of_discharge_locode ?? "?"}, ${plural(s.container_count, "container")}, ${s.match} match) id ${s.id}`,
          );
          for (const c of s.containers) lines.push(`  - Container ${c.number} (${c.current_status}) id ${c.id}`);
        }
        for (const t of requests) {
          lines.push(
            `- Tracking request ${t.request_number} (${t.scac ?? "no SCAC"}, ${t.status}, ${t.match} match) id ${t.id}`,
          );
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
