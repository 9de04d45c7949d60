import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { classifyNumber, InvalidReferenceNumber } from "../../infer/classify";
import { computeCheckDigit } from "../../infer/iso6346";
import type { InferNumberAttributes } from "../../infer/schemas";
import { orNull } from "../../lib/nullable";
import { freeText } from "../../lib/validation";
import type { CreateTrackingRequestInput } from "../../tracking-requests/service";
import {
  ContainerSummary,
  containerSummary,
  type McpDeps,
  registerTrackingTool,
  ShipmentSummary,
  scacArg,
  shipmentSummary,
  TrackingRequestSummary,
  trackingRequestSummary,
} from "./common";

/** Request types `track_container` accepts (REST `request_type`, docs/decisions.md §Tracking requests). */
export const TRACK_NUMBER_TYPES = ["container", "bill_of_lading", "booking_number", "booking"] as const;

/** Tracking requests in these statuses mean the number is already tracked (a failed one does not). */
const ACTIVE_REQUEST_STATUSES = new Set(["pending", "awaiting_manifest", "created", "tracking_stopped"]);

/** Fewer characters than this cannot be a container, BL or booking number (after removing spaces and dashes). */
export const MIN_TRACK_NUMBER_LENGTH = 6;

/** Why a number cannot be tracked as given, or the corrected number to confirm. */
export interface NumberCheck {
  outcome: "invalid_number" | "needs_confirmation";
  /** The number with the ISO 6346 check digit recomputed (`needs_confirmation` only). */
  suggested_number: string | null;
  reason: string;
}

/**
 * Checks a number before anything is created (issue 16 §7, ISO 6346): null when it may be tracked; otherwise
 * `invalid_number` (garbage, too short for any number type, or declared a container without the ISO 6346 shape
 * `^[A-Z]{3}[UJZ]\d{7}$`) or `needs_confirmation` (the ISO 6346 shape with a wrong check digit; the corrected
 * number is suggested). `numberType` is the declared type, when given.
 */
export function checkTrackNumber(number: string, numberType: string | undefined): NumberCheck | null {
  let kind: ReturnType<typeof classifyNumber>;
  try {
    kind = classifyNumber(number);
  } catch (err) {
    if (!(err instanceof InvalidReferenceNumber)) throw err;
    return {
      outcome: "invalid_number",
      suggested_number: null,
      reason: `"${number}" is not a reference number (${err.message}).`,
    };
  }
  const n = kind.normalized;
  if (numberType === "container" && kind.numberType !== "container") {
    return {
      outcome: "invalid_number",
      suggested_number: null,
      reason: `"${number}" is not an ISO 6346 container number: that is 3 letters of owner code, U, J or Z, 6 digits and a check digit (e.g. MSCU1234566).`,
    };
  }
  if (
    kind.numberType === "container" &&
    kind.validation.checkDigitPassed === false &&
    (numberType ?? "container") === "container"
  ) {
    const corrected = `${n.slice(0, 10)}${computeCheckDigit(n.slice(0, 10))}`;
    return {
      outcome: "needs_confirmation",
      suggested_number: corrected,
      reason: `The ISO 6346 check digit of ${n} is wrong (it should be ${corrected.slice(10)}): probably a typo for ${corrected}.`,
    };
  }
  if (n.length < MIN_TRACK_NUMBER_LENGTH) {
    return {
      outcome: "invalid_number",
      suggested_number: null,
      reason: `"${number}" is too short for a container, bill of lading or booking number (at least ${MIN_TRACK_NUMBER_LENGTH} characters).`,
    };
  }
  return null;
}

const Candidate = z.object({ scac: z.string(), name: z.string(), confidence: z.number() });

/**
 * `track_container` (docs/mcp.md §Tools, issue 6): the one write tool. It first looks for an existing match in the
 * account (container, shipment, or an active tracking request for the number) and then returns it without
 * creating anything. Otherwise it infers the number type and the carrier (docs/api.md §Infer number) when not given,
 * and creates a tracking request only when the carrier is given or inferred with `auto_select` confidence (≥ 0.95);
 * below that it asks for the SCAC (`needs_carrier`) with the ranked candidates instead of guessing.
 */
export function registerTrackTool(server: McpServer, deps: McpDeps): void {
  registerTrackingTool(server, deps, {
    name: "track_container",
    title: "Track a container, bill of lading or booking",
    description:
      "Start tracking a container number, bill of lading or booking number. First checks whether the account already tracks it (then nothing is created). When number type or carrier SCAC are missing they are inferred from the number; if the carrier cannot be inferred with high confidence the tool returns candidates and asks for `scac` instead of creating anything; an impossible number or a wrong ISO 6346 check digit creates nothing either (outcome says why). A created request starts as `pending` and is looked up at the carrier within minutes (check with list_tracking_requests or search_container). Counts against the account's rate limits.",
    input: {
      number: z.string().min(1).max(64).describe("Container number (ISO 6346), bill of lading or booking number."),
      numberType: z
        .enum(TRACK_NUMBER_TYPES)
        .optional()
        .describe("What the number is; inferred when omitted (container numbers look like ABCU1234567)."),
      scac: scacArg.optional().describe("SCAC of the shipping line (e.g. MAEU); inferred when omitted."),
      refNumbers: z
        .array(freeText(255).min(1))
        .max(50)
        .optional()
        .describe("Your own reference numbers to attach (PO, job numbers)."),
      confirm_number: z
        .boolean()
        .optional()
        .describe(
          "true: track a container number exactly as given although its ISO 6346 check digit is wrong (only after the user confirmed it).",
        ),
    },
    // The reference server's deprecated argument names (docs/mcp.md §Compatibility with the reference server).
    aliases: {
      containerNumber: (v) => ({ number: v, numberType: "container" }),
      bookingNumber: (v) => ({ number: v, numberType: "booking_number" }),
    },
    output: {
      outcome: z
        .enum(["already_tracked", "created", "needs_carrier", "invalid_number", "needs_confirmation"])
        .describe(
          "already_tracked: found in the account, nothing created; created: a tracking request was created; needs_carrier: nothing created, pass `scac`; invalid_number: nothing created, the number cannot exist; needs_confirmation: nothing created, the check digit is wrong (see suggested_number).",
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
      suggested_number: orNull(z.string()).describe("needs_confirmation: the number with a correct check digit."),
      next_step: z.string(),
    },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    async run(args, { api, log, progress }) {
      const number = args.number.trim();
      const scacGiven = args.scac?.toUpperCase();
      const found = await api.searchContainers(number, { limit: 20 });
      const activeRequests = found.tracking_requests.filter(
        (t) => ACTIVE_REQUEST_STATUSES.has(t.attributes.status) && (!scacGiven || t.attributes.scac === scacGiven),
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
            number_type: request?.attributes.request_type ?? (containers.length > 0 ? "container" : null),
            scac: request?.attributes.scac ?? shipment?.attributes.shipping_line_scac ?? null,
            inference: { source: "search_match" as const, decision: null, confidence: null, candidates: [] },
            tracking_request: request ? trackingRequestSummary(request) : null,
            shipment: shipment ? shipmentSummary(shipment) : null,
            containers,
            suggested_number: null,
            next_step: first
              ? `Already tracked: call get_container with id ${first.id} for status, readiness and last free day.`
              : shipment
                ? `Already tracked: call get_shipment_details with id ${shipment.id}.`
                : `Already requested (status ${request?.attributes.status ?? "pending"}); check again later with list_tracking_requests.`,
          },
          text: first
            ? `${number} is already tracked in this account (container ${first.number}, ${first.current_status}). No tracking request was created.`
            : shipment
              ? `${number} is already tracked in this account (shipment ${shipment.attributes.bill_of_lading_number}). No tracking request was created.`
              : `${number} already has a ${request?.attributes.status ?? "pending"} tracking request in this account. No new request was created.`,
        };
      }

      const check = args.confirm_number ? null : checkTrackNumber(number, args.numberType);
      if (check) {
        const suggestion = check.suggested_number;
        return {
          structured: {
            outcome: check.outcome,
            tracking_request_created: false,
            number,
            number_type: args.numberType ?? (suggestion ? "container" : null),
            scac: scacGiven ?? null,
            inference: { source: "given" as const, decision: null, confidence: null, candidates: [] },
            tracking_request: null,
            shipment: null,
            containers: [],
            suggested_number: suggestion,
            next_step: suggestion
              ? `Ask the user whether they meant ${suggestion}; call track_container with number ${suggestion}, or with confirm_number: true to track ${number} as typed${args.numberType ? "" : " (or pass numberType if it is a bill of lading or booking number)"}.`
              : "Ask the user for the full number (a container number looks like MSCU1234566; a bill of lading or booking number is usually 8–20 letters and digits).",
          },
          text: `Not tracked: ${check.reason} No tracking request was created.`,
        };
      }

      let inferred: InferNumberAttributes | null = null;
      if (!args.numberType || !scacGiven) {
        await progress("Inferring the number type and carrier");
        inferred = await api.inferNumber(number);
      }
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
            suggested_number: null,
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

      await progress("Creating the tracking request");
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
          suggested_number: null,
          next_step:
            "The carrier lookup runs in the background (usually minutes). Check with list_tracking_requests (status created = tracked) or search_container; do not report the shipment's data until it is created.",
        },
        text: `Tracking request created for ${number} (${numberType}, carrier ${scac}${inference.source === "inferred" && !scacGiven ? ", inferred" : ""}); status ${request.attributes.status}. Data appears once the carrier lookup succeeds.`,
      };
    },
  });
}
