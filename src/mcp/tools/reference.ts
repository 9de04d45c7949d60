import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { orNull } from "../../lib/nullable";
import { SANDBOX_SCAC } from "../../reference/shipping-lines";
import { TRACKING_REQUEST_STATUSES } from "../../tracking-requests/schemas";
import {
  isoDateArg,
  type McpDeps,
  pageOptions,
  pagingAliases,
  pagingInput,
  pagingOf,
  pagingOutput,
  plural,
  READ_ONLY,
  registerTrackingTool,
  scacArg,
  TrackingRequestSummary,
  trackingRequestSummary,
} from "./common";
import { TRACK_NUMBER_TYPES } from "./track";

const ShippingLine = z.object({
  scac: z.string().describe("Standard Carrier Alpha Code."),
  name: z.string(),
  short_name: z.string(),
  alternative_scacs: z.array(z.string()),
  bol_prefix: orNull(z.string()),
  supported: z.boolean().describe("Whether track_container accepts this SCAC here."),
  container_number_tracking: z.boolean(),
  bill_of_lading_tracking: z.boolean(),
  booking_number_tracking: z.boolean(),
});

/**
 * `get_supported_shipping_lines` (hides the sandbox `TEST` line, docs/decisions.md §Sandbox) and
 * `list_tracking_requests` (docs/mcp.md §Tools).
 */
export function registerReferenceTools(server: McpServer, deps: McpDeps): void {
  registerTrackingTool(server, deps, {
    name: "get_supported_shipping_lines",
    title: "Shipping lines and SCACs",
    description:
      "Ocean carriers (shipping lines) with their SCAC, names and BL prefix, sorted by name, and whether this service accepts tracking requests for them (`supported`). Use it to find the SCAC for track_container. `search` filters on SCAC or name.",
    input: {
      search: z.string().min(1).max(100).optional().describe("Part of a SCAC or carrier name, e.g. maersk or MSC."),
      supported_only: z.boolean().optional().describe("Only lines that can be tracked here (default false)."),
    },
    output: {
      total_lines: z.number().int(),
      supported_lines: z.number().int().describe("How many of them can be tracked here."),
      shipping_lines: z.array(ShippingLine),
    },
    annotations: READ_ONLY,
    async run(args, { api }) {
      const lines = (await api.listShippingLines(args.search))
        .map((l) => l.attributes)
        .filter((l) => l.scac !== SANDBOX_SCAC)
        .filter((l) => !args.supported_only || l.supported)
        .sort((a, b) => a.name.localeCompare(b.name))
        .map((l) => ({
          scac: l.scac,
          name: l.name,
          short_name: l.short_name,
          alternative_scacs: l.alternative_scacs,
          bol_prefix: l.bol_prefix,
          supported: l.supported,
          container_number_tracking: l.container_number_tracking_support,
          bill_of_lading_tracking: l.bill_of_lading_tracking_support,
          booking_number_tracking: l.booking_number_tracking_support,
        }));
      const supported = lines.filter((l) => l.supported).length;
      const shown = lines.slice(0, 40);
      const text =
        lines.length === 0
          ? `No shipping line matches${args.search ? ` "${args.search}"` : ""}.`
          : `${plural(lines.length, "shipping line")} (${supported} trackable here):\n${shown
              .map((l) => `- ${l.scac}: ${l.name}${l.supported ? "" : " (not trackable here)"}`)
              .join(
                "\n",
              )}${lines.length > shown.length ? `\n… and ${lines.length - shown.length} more (see structured content)` : ""}`;
      return { structured: { total_lines: lines.length, supported_lines: supported, shipping_lines: lines }, text };
    },
  });

  registerTrackingTool(server, deps, {
    name: "list_tracking_requests",
    title: "List tracking requests",
    description:
      "A page of the account's tracking requests, newest first: what was asked to be tracked and its state (pending, awaiting_manifest, created = tracked, failed with failed_reason, tracking_stopped). Filter by status, request type, number, SCAC or time. Page with `page`; `next_page` says what to ask for next.",
    input: {
      status: z.enum(TRACKING_REQUEST_STATUSES).optional(),
      request_type: z.enum(TRACK_NUMBER_TYPES).optional(),
      filters: z
        .object({
          request_number: z.string().min(1).max(64).optional(),
          scac: scacArg.optional(),
          created_after: isoDateArg.optional(),
          updated_after: isoDateArg.optional(),
        })
        .strict()
        .optional()
        .describe("More filters: request_number, scac, created_after, updated_after."),
      ...pagingInput,
    },
    // The reference's `filter[...]` names, top level or inside `filters`
    // (docs/mcp.md §Compatibility with the reference server).
    aliases: {
      "filter[status]": (v) => ({ status: v }),
      "filter[request_type]": (v) => ({ request_type: v }),
      "filter[request_number]": (v) => ({ filters: { request_number: v } }),
      "filter[scac]": (v) => ({ filters: { scac: v } }),
      "filter[created_at][start]": (v) => ({ filters: { created_after: v } }),
      "filter[updated_at][start]": (v) => ({ filters: { updated_after: v } }),
      ...pagingAliases,
    },
    fields: {
      "filter[status]": "status",
      "filter[request_type]": "request_type",
      "filter[request_number]": "filters.request_number",
      "filter[scac]": "filters.scac",
      "filter[created_at][start]": "filters.created_after",
      "filter[updated_at][start]": "filters.updated_after",
    },
    output: {
      items: z.array(TrackingRequestSummary),
      ...pagingOutput,
      status_counts_on_page: z.record(z.string(), z.number().int()),
    },
    annotations: READ_ONLY,
    async run(args, { api }) {
      const f = args.filters ?? {};
      const page = await api.listTrackingRequests(
        {
          "filter[status]": args.status,
          "filter[request_type]": args.request_type,
          "filter[request_number]": f.request_number,
          "filter[scac]": f.scac?.toUpperCase(),
          "filter[created_at][start]": f.created_after,
          "filter[updated_at][start]": f.updated_after,
        },
        pageOptions(args),
      );
      const items = page.items.map(trackingRequestSummary);
      const counts: Record<string, number> = {};
      for (const t of items) counts[t.status] = (counts[t.status] ?? 0) + 1;
      const paging = pagingOf(page);
      const text =
        items.length === 0
          ? page.total === 0
            ? "No tracking requests match."
            : `Page ${paging.page} is past the last page (${page.total} requests).`
          : `${plural(page.total, "tracking request")} match; page ${paging.page} has ${items.length}${paging.next_page ? ` (next_page ${paging.next_page})` : ""}:\n${items
              .map(
                (t) =>
                  `- ${t.request_number} (${t.request_type}, ${t.scac ?? "no SCAC"}): ${t.status}${t.failed_reason ? ` (${t.failed_reason})` : ""} (id ${t.id})`,
              )
              .join("\n")}`;
      return { structured: { items, ...paging, status_counts_on_page: counts }, text };
    },
  });
}
