import { z } from "@hono/zod-openapi";
import { listDocumentSchema, resourceSchema, singleDocumentSchema } from "../lib/openapi";
import { freeText } from "../lib/validation";

const ts = () => z.string().nullable().openapi({ format: "date-time" });

/** Shipment attributes (R §1.2). */
export const ShipmentAttributes = z
  .object({
    created_at: z.string(),
    ref_numbers: z.array(z.string()),
    tags: z.array(z.string()),
    bill_of_lading_number: z.string(),
    normalized_number: z.string(),
    shipping_line_scac: z.string(),
    shipping_line_name: z.string(),
    shipping_line_short_name: z.string(),
    customer_name: z.string().nullable(),
    port_of_lading_locode: z.string().nullable(),
    port_of_lading_name: z.string().nullable(),
    port_of_discharge_locode: z.string().nullable(),
    port_of_discharge_name: z.string().nullable(),
    pod_vessel_name: z.string().nullable(),
    pod_vessel_imo: z.string().nullable(),
    pod_voyage_number: z.string().nullable(),
    destination_locode: z.string().nullable(),
    destination_name: z.string().nullable(),
    destination_timezone: z.string().nullable(),
    destination_ata_at: ts(),
    destination_eta_at: ts(),
    pol_etd_at: ts(),
    pol_atd_at: ts(),
    pol_timezone: z.string().nullable(),
    pod_eta_at: ts(),
    pod_original_eta_at: ts(),
    pol_original_etd_at: ts(),
    destination_original_eta_at: ts(),
    pod_ata_at: ts(),
    pod_timezone: z.string().nullable(),
    line_tracking_last_attempted_at: ts(),
    line_tracking_last_succeeded_at: ts(),
    line_tracking_stopped_at: ts(),
    line_tracking_stopped_reason: z.string().nullable(),
    line_tracking_failed_reason: z
      .enum(["shipping_line_unreachable", "unrecognized_response", "shipping_line_credentials_rejected"])
      .nullable()
      .openapi({
        description:
          "Extension (not in the reference service): why the latest attempt to track this shipment at the shipping line failed, null when it succeeded. `shipping_line_credentials_rejected`: the line refused our credentials (HTTP 401/403 or its token endpoint refused the client), a configuration error of the operator; polling backs off until it accepts them. Compare `line_tracking_last_attempted_at` (every attempt) with `line_tracking_last_succeeded_at` (answers).",
      }),
  })
  .openapi("ShipmentAttributes");

export const ShipmentResourceSchema = resourceSchema("shipment", ShipmentAttributes, "Shipment");
export const ShipmentDocument = singleDocumentSchema(ShipmentResourceSchema, "ShipmentDocument");
export const ShipmentListDocument = listDocumentSchema(ShipmentResourceSchema, "ShipmentList");

const MAX_LIST_ITEMS = 50;
const MAX_REF_LENGTH = 255;
const stringList = z.array(freeText(MAX_REF_LENGTH)).max(MAX_LIST_ITEMS);

/**
 * Body of `PATCH /shipments/{id}` (R §3.12): `ref_numbers` and/or `tags`, each replacing the shipment's list
 * (at most 50 items of at most 255 characters, no control characters, as on tracking requests). `data.id`, when sent, must be the id
 * in the path. `data.type` may be omitted (the reference's schema requires only `attributes`, issue 15); when
 * present it must be `shipment` (422 otherwise).
 */
export const UpdateShipmentBody = z
  .strictObject({
    data: z.strictObject({
      type: z.literal("shipment").optional(),
      id: z.string().max(64).optional(),
      attributes: z.strictObject({
        ref_numbers: stringList.optional().openapi({ example: ["PO-12345"] }),
        tags: stringList.optional().openapi({ example: ["priority"] }),
      }),
    }),
  })
  .openapi("UpdateShipment");

/**
 * Optional body of `PATCH /shipments/{id}/stop_tracking` and `/resume_tracking`: the official SDK sends
 * `{"data":{"type":"shipment","id":"<id>"}}` (R §3.13); no body at all is just as good.
 */
export const ShipmentActionBody = z
  .strictObject({
    data: z.strictObject({
      type: z.literal("shipment").optional(),
      id: z.string().max(64).optional(),
    }),
  })
  .openapi("ShipmentAction");
