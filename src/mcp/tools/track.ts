import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import type { CreateTrackingRequestInput, InferNumberResult } from "../api";
import {
  ContainerSummary,
  containerSummary,
  type McpDeps,
  orNull,
  registerTrackingTool,
  ShipmentSummary,
  scacArg,
  shipmentSummary,
  TrackingRequestSummary,
  trackingRequestSummary,
} from "./common";

/** Request types `track_container` accepts (REST `request_type`, DECISIONS.md §Tracking requests). */
export const TRACK_NUMBER_TYPES = ["container", "bill_of_lading", "booking_number", "booking"] as const;

/** Tracking requests in these statuses mean the number is already tracked (a failed one does not). */
const ACTIVE_REQUEST_STATUSES = new Set(["pending", "awaiting_manifest", "created", "tracking_stopped"]);

const Candidate = z.object({ scac: z.string(), name: z.string(), confidence: z.number() });

/**
 * `track_container` (SPEC.md §4.7, issue 6): the one write tool. It first looks for an existing match in the
 * account (container, shipment, or an active tracking request for the number) and then returns it without
 * creating anything. Otherwise it infers the number type and the carrier (SPEC.md §4.6) when not given, and
 * creates a tracking request only when the carrier is given or inferred with `auto_select` confidence (≥ 0.95);
 * below that it asks for the SCAC (`needs_carrier`) with the ranked candidates instead of guessing.
 */
export function registerTrackTool(server: McpServer, deps: McpDeps): void {
  registerTrackingTool(server, deps, {
    name: "track_container",
    title: "Track a container, bill of lading or booking",
    description:
      "Start tracking a container number, bill of lading or booking number. First checks whether the account already tracks it (then nothing is created). When number type or carrier SCAC are missing they are inferred from the number; if the carrier cannot be inferred with high confidence the tool returns candidates and asks for `scac` instead of creating anything. A created request starts as `pending` and is looked up at the carrier within minutes (check with list_tracking_requests or search_container). Counts against the account's rate limits.",
    input: {
      number: z.string().min(1).max(64).describe("Container number (ISO 6346), bill of lading or booking number."),
      numberType: z
        .enum(TRACK_NUMBER_TYPES)
        .optional()
        .describe("What the number is; inferred when omitted (container numbers look like ABCU1234567)."),
      scac: scacArg.optional().describe("SCAC of the shipping line (e.g. MAEU); inferred when omitted."),
      refNumbers: z
        .array(z.string().min(1).max(255))
        .max(50)
        .optional()
        .describe("Your own reference numbers to attach (PO, job numbers)."),
    },
    output: {
      outcome: z
        .enum(["already_tracked", "created", "needs_carrier"])
        .describe(
          "already_tracked: found in the account, nothing created; created: a tracking request was created; needs_carrier: nothing created, pass `scac`.",
        ),
      tracking_request_created: z.boolean(),
      number: z.string(),
      number_type: orNull(z.string()),
      scac: orNull(z.string()),
      inference: z.object({
        source: z.enum(["given", "inferred", "search_match"]),
        decision: orNull(z.string()).describe("auto_select, needs_confirmation or no_prediction when inferred."),
        confidence: orNull(z.number()),
        candidates: z.array(Candidate),
      }),
      tracking_request: TrackingRequestSummary.nullable(),
      shipment: ShipmentSummary.nullable(),
      containers: z.array(ContainerSummary),
      next_step: z.string(),
    },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    async run(args, { api, log }) {
      const number = args.number.trim();
      const scacGiven = args.scac?.toUpperCase();
      const found = await api.searchContainers(number, { limit: 20 });
      const activeRequests = found.tracking_requests.filter(
        (t) => ACTIVE_REQUEST_STATUSES.has(t.status) && (!scacGiven || t.scac === scacGiven),
      );
      if (found.containers.length > 0 || found.shipments.length > 0 || activeRequests.length > 0) {
        const request = activeRequests[0] ?? null;
        const shipment = found.shipments[0] ?? null;
        const containers = found.containers.map(containerSummary);
        const first = containers[0];
        return {
          structured: {
            outcome: "already_tracked" as const,
            tracking_request_created: false,
            number,
            number_type: request?.request_type ?? (containers.length > 0 ? "container" : null),
            scac: request?.scac ?? shipment?.shipping_line_scac ?? null,
            inference: { source: "search_match" as const, decision: null, confidence: null, candidates: [] },
            tracking_request: request ? trackingRequestSummary(request) : null,
            shipment: shipment ? shipmentSummary(shipment) : null,
            containers,
            next_step: first
              ? `Already tracked: call get_container with id ${first.id} for status, readiness and last free day.`
              : shipment
                ? `Already tracked: call get_shipment_details with id ${shipment.id}.`
                : `Already requested (status ${request?.status ?? "pending"}); check again later with list_tracking_requests.`,
          },
          text: first
            ? `${number} is already tracked in this account (container ${first.number}, ${first.current_status}). No tracking request was created.`
            : shipment
              ? `${number} is already tracked in this account (shipment ${shipment.bill_of_lading_number}). No tracking request was created.`
              : `${number} already has a ${request?.status ?? "pending"} tracking request in this account. No new request was created.`,
        };
      }

      let inferred: InferNumberResult | null = null;
      if (!args.numberType || !scacGiven) inferred = await api.inferNumber(number);
      const numberType: CreateTrackingRequestInput["requestType"] =
        args.numberType ?? (inferred?.number_type === "booking" ? "booking" : (inferred?.number_type ?? "container"));
      const selected = inferred?.shipping_line.selected ?? null;
      const scac = scacGiven ?? (inferred?.shipping_line.decision === "auto_select" && selected ? selected.scac : null);
      const inference = {
        source: scacGiven && args.numberType ? ("given" as const) : ("inferred" as const),
        decision: inferred?.shipping_line.decision ?? null,
        confidence: scacGiven ? null : (selected?.confidence ?? null),
        candidates: inferred?.shipping_line.candidates ?? [],
      };
      if (!scac) {
        const names = inference.candidates.map((c) => `${c.scac} (${c.name}, ${Math.round(c.confidence * 100)}%)`);
        return {
          structured: {
            outcome: "needs_carrier" as const,
            tracking_request_created: false,
            number,
            number_type: numberType,
            scac: null,
            inference,
            tracking_request: null,
            shipment: null,
            containers: [],
            next_step:
              names.length > 0
                ? `Confirm the carrier with the user, then call track_container again with scac (candidates: ${names.join(", ")}).`
                : "Ask the user for the shipping line, then call track_container again with scac (get_supported_shipping_lines lists SCACs).",
          },
          text:
            names.length > 0
              ? `Not tracked yet. The carrier of ${number} could not be inferred with confidence; candidates: ${names.join(", ")}. No tracking request was created: pass scac to confirm.`
              : `Not tracked yet. The carrier of ${number} could not be inferred. No tracking request was created: pass scac.`,
        };
      }

      const request = await api.createTrackingRequest({
        requestType: numberType,
        requestNumber: number,
        scac,
        ...(args.refNumbers ? { refNumbers: args.refNumbers } : {}),
      });
      await log("info", `Created tracking request ${request.id} for ${number} (${numberType}, ${scac}).`);
      return {
        structured: {
          outcome: "created" as const,
          tracking_request_created: true,
          number,
          number_type: numberType,
          scac,
          inference,
          tracking_request: trackingRequestSummary(request),
          shipment: null,
          containers: [],
          next_step:
            "The carrier lookup runs in the background (usually minutes). Check with list_tracking_requests (status created = tracked) or search_container; do not report the shipment's data until it is created.",
        },
        text: `Tracking request created for ${number} (${numberType}, carrier ${scac}${inference.source === "inferred" && !scacGiven ? ", inferred" : ""}); status ${request.status}. Data appears once the carrier lookup succeeds.`,
      };
    },
  });
}
