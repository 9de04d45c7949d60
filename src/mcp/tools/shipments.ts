import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { hoursBetween, shortUtc } from "../../containers/derived-views";
import { toManyIds } from "../../lib/jsonapi/types";
import { orNull } from "../../lib/nullable";
import type { ShipmentDetails } from "../api";
import {
  ContainerSummary,
  CustomFieldOutput,
  containerSummary,
  customFieldsOutput,
  isoDateArg,
  listFilterFields,
  locodeArg,
  type McpDeps,
  pageOptions,
  pagingAliases,
  pagingInput,
  pagingOf,
  pagingOutput,
  plural,
  READ_ONLY,
  registerTrackingTool,
  resolveShipmentId,
  ShipmentSummary,
  scacArg,
  shipmentIdArg,
  shipmentSummary,
  withNotFound,
} from "./common";

const nullableString = orNull(z.string());

const PortCall = z.object({
  locode: nullableString.describe("UN/LOCODE."),
  name: nullableString,
  timezone: nullableString,
});

/** Output of `get_shipment_details`. */
const ShipmentDetailsOutput = {
  id: z.string(),
  bill_of_lading_number: z.string(),
  shipping_line: z.object({ scac: z.string(), name: z.string(), short_name: z.string() }),
  customer_name: nullableString,
  ref_numbers: z.array(z.string()),
  tags: z.array(z.string()),
  port_of_lading: PortCall.extend({
    etd: nullableString.describe("Estimated departure (UTC)."),
    original_etd: nullableString,
    atd: nullableString.describe("Actual departure (UTC)."),
  }),
  port_of_discharge: PortCall.extend({
    eta: nullableString,
    original_eta: nullableString,
    ata: nullableString,
    terminal: z.object({ name: z.string(), firms_code: nullableString }).nullable(),
  }),
  destination: PortCall.extend({ eta: nullableString, original_eta: nullableString, ata: nullableString })
    .nullable()
    .describe("Inland destination, when different from the port of discharge."),
  vessel: z
    .object({ name: z.string(), imo: nullableString, voyage_number: nullableString })
    .nullable()
    .describe("The vessel arriving at the port of discharge."),
  delay: z.object({
    pod_eta_shift_hours: orNull(z.number()).describe(
      "Current POD ETA (or ATA) minus the original ETA, in hours; positive = later than first announced.",
    ),
    pol_etd_shift_hours: orNull(z.number()).describe("POL ATD (or ETD) minus the original ETD, in hours."),
  }),
  tracking: z.object({
    stopped_at: nullableString,
    stopped_reason: nullableString,
    last_succeeded_at: nullableString,
  }),
  container_count: z.number().int(),
  custom_fields: z.array(CustomFieldOutput).describe("The account's own fields on this shipment (PO numbers …)."),
  containers: z.array(ContainerSummary).optional().describe("Present unless include_containers is false."),
};

function shipmentDetailsOf(d: ShipmentDetails): z.infer<z.ZodObject<typeof ShipmentDetailsOutput>> {
  const s = d.shipment.attributes;
  const terminal = d.pod_terminal?.attributes;
  const hasDestination = s.destination_locode !== null && s.destination_locode !== s.port_of_discharge_locode;
  const out: z.infer<z.ZodObject<typeof ShipmentDetailsOutput>> = {
    id: d.shipment.id,
    bill_of_lading_number: s.bill_of_lading_number,
    shipping_line: { scac: s.shipping_line_scac, name: s.shipping_line_name, short_name: s.shipping_line_short_name },
    customer_name: s.customer_name,
    ref_numbers: s.ref_numbers,
    tags: s.tags,
    port_of_lading: {
      locode: s.port_of_lading_locode,
      name: s.port_of_lading_name,
      timezone: s.pol_timezone,
      etd: s.pol_etd_at,
      original_etd: s.pol_original_etd_at,
      atd: s.pol_atd_at,
    },
    port_of_discharge: {
      locode: s.port_of_discharge_locode,
      name: s.port_of_discharge_name,
      timezone: s.pod_timezone,
      eta: s.pod_eta_at,
      original_eta: s.pod_original_eta_at,
      ata: s.pod_ata_at,
      terminal: terminal ? { name: terminal.name, firms_code: terminal.firms_code } : null,
    },
    destination: hasDestination
      ? {
          locode: s.destination_locode,
          name: s.destination_name,
          timezone: s.destination_timezone,
          eta: s.destination_eta_at,
          original_eta: s.destination_original_eta_at,
          ata: s.destination_ata_at,
        }
      : null,
    vessel: s.pod_vessel_name
      ? { name: s.pod_vessel_name, imo: s.pod_vessel_imo, voyage_number: s.pod_voyage_number }
      : null,
    delay: {
      pod_eta_shift_hours: hoursBetween(s.pod_original_eta_at, s.pod_ata_at ?? s.pod_eta_at),
      pol_etd_shift_hours: hoursBetween(s.pol_original_etd_at, s.pol_atd_at ?? s.pol_etd_at),
    },
    tracking: {
      stopped_at: s.line_tracking_stopped_at,
      stopped_reason: s.line_tracking_stopped_reason,
      last_succeeded_at: s.line_tracking_last_succeeded_at,
    },
    container_count: toManyIds(d.shipment, "containers").length,
    custom_fields: customFieldsOutput(d.custom_fields),
  };
  if (d.containers) out.containers = d.containers.map(containerSummary);
  return out;
}

/** Shipment tools (docs/mcp.md §Tools): `get_shipment_details` and `list_shipments`. */
export function registerShipmentTools(server: McpServer, deps: McpDeps): void {
  registerTrackingTool(server, deps, {
    name: "get_shipment_details",
    title: "Get a shipment",
    description:
      "A shipment (one bill of lading or booking): shipping line, port of lading (POL) and port of discharge (POD) with ETD/ETA/ATD/ATA and their original estimates (delay shift in hours), POD terminal, vessel and voyage, inland destination, tracking state and its containers.",
    input: {
      id: shipmentIdArg,
      include_containers: z.boolean().optional().describe("Include the container list (default true)."),
    },
    output: ShipmentDetailsOutput,
    annotations: READ_ONLY,
    async run(args, { api }) {
      const id = await resolveShipmentId(api, args.id);
      const details = await withNotFound("shipment", id, () =>
        api.getShipment(id, { includeContainers: args.include_containers !== false }),
      );
      const out = shipmentDetailsOf(details);
      const shift = out.delay.pod_eta_shift_hours;
      const lines = [
        `Shipment ${out.bill_of_lading_number} (${out.shipping_line.name}, ${out.shipping_line.scac})`,
        `- ${out.port_of_lading.name ?? out.port_of_lading.locode ?? "?"} → ${out.port_of_discharge.name ?? out.port_of_discharge.locode ?? "?"}${out.destination ? ` → ${out.destination.name ?? out.destination.locode}` : ""}`,
        `- Departed ${shortUtc(out.port_of_lading.atd)}; POD ETA ${shortUtc(out.port_of_discharge.eta)}, ATA ${shortUtc(out.port_of_discharge.ata)}${shift !== null && shift !== 0 ? ` (${shift > 0 ? "+" : ""}${shift} h vs. original ETA)` : ""}`,
      ];
      if (out.vessel)
        lines.push(`- Vessel ${out.vessel.name}${out.vessel.voyage_number ? ` voy. ${out.vessel.voyage_number}` : ""}`);
      if (out.tracking.stopped_at)
        lines.push(`- Tracking stopped ${shortUtc(out.tracking.stopped_at)} (${out.tracking.stopped_reason})`);
      if (out.custom_fields.length > 0) {
        lines.push(
          `- Custom fields: ${out.custom_fields.map((f) => `${f.api_slug} = ${f.display_value ?? "—"}`).join(", ")}`,
        );
      }
      if (out.containers) {
        lines.push(
          `- ${plural(out.container_count, "container")}: ${out.containers.map((c) => `${c.number} (${c.current_status})`).join(", ") || "none yet"}`,
        );
      }
      return { structured: out, text: lines.join("\n") };
    },
  });

  registerTrackingTool(server, deps, {
    name: "list_shipments",
    title: "List shipments",
    description:
      "A page of the account's shipments, newest first, optionally filtered by tracking status, port of discharge (UN/LOCODE), carrier SCAC, BL/booking number or last update. include_containers adds each shipment's containers. Page with `page`; `next_page` says what to ask for next.",
    input: {
      status: z
        .enum(["tracking", "tracking_stopped"])
        .optional()
        .describe("tracking: still tracked; tracking_stopped: tracking has ended."),
      port: locodeArg.optional(),
      carrier: scacArg.optional(),
      number: z.string().min(1).max(64).optional().describe("The tracked bill of lading or booking number."),
      updated_after: isoDateArg.optional().describe("Only shipments updated at or after this time (ISO 8601)."),
      include_containers: z.boolean().optional().describe("Add each shipment's containers (default false)."),
      ...pagingInput,
    },
    aliases: {
      // The reference server's boolean filter (docs/mcp.md §Compatibility with the reference server).
      tracking_stopped: (v) => ({ status: v === true ? "tracking_stopped" : v === false ? "tracking" : v }),
      ...pagingAliases,
    },
    fields: listFilterFields,
    output: {
      items: z.array(ShipmentSummary.extend({ containers: z.array(ContainerSummary).optional() })),
      ...pagingOutput,
      applied_filters: z.object({
        status: nullableString,
        port: nullableString,
        carrier: nullableString,
        number: nullableString,
        updated_after: nullableString,
      }),
    },
    annotations: READ_ONLY,
    async run(args, { api }) {
      const stopped = args.status === undefined ? undefined : String(args.status === "tracking_stopped");
      const page = await api.listShipments(
        {
          "filter[tracking_stopped]": stopped,
          "filter[pod_locode]": args.port?.toUpperCase(),
          "filter[scac]": args.carrier?.toUpperCase(),
          number: args.number,
          "filter[updated_at][start]": args.updated_after,
        },
        pageOptions(args),
        { includeContainers: args.include_containers === true },
      );
      const items = page.items.map((d) => ({
        ...shipmentSummary(d.shipment),
        ...(d.containers ? { containers: d.containers.map(containerSummary) } : {}),
      }));
      const paging = pagingOf(page);
      const text =
        items.length === 0
          ? page.total === 0
            ? "No shipments match."
            : `Page ${paging.page} is past the last page (${page.total} shipments).`
          : `${plural(page.total, "shipment")} match; page ${paging.page} has ${items.length}${paging.next_page ? ` (next_page ${paging.next_page})` : ""}:\n${items
              .map(
                (s) =>
                  `- ${s.bill_of_lading_number} (${s.shipping_line_scac}) ${s.port_of_lading_locode ?? "?"} → ${s.port_of_discharge_locode ?? "?"}, ETA ${shortUtc(s.pod_eta_at)}, ${plural(s.container_count, "container")}${s.tracking_stopped ? ", tracking stopped" : ""} (id ${s.id})`,
              )
              .join("\n")}`;
      return {
        structured: {
          items,
          ...paging,
          applied_filters: {
            status: args.status ?? null,
            port: args.port?.toUpperCase() ?? null,
            carrier: args.carrier?.toUpperCase() ?? null,
            number: args.number ?? null,
            updated_after: args.updated_after ?? null,
          },
        },
        text,
      };
    },
  });
}
