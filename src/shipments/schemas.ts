import { z } from "@hono/zod-openapi";
import { type FilterValues, parseBooleanFilter, parseStringFilter, parseTimeBound } from "../lib/jsonapi/filters";
import { listDocumentSchema, resourceSchema, singleDocumentSchema } from "../lib/openapi";
import { referenceList } from "../lib/validation";

const ts = () => z.string().nullable().openapi({ format: "date-time" });

/** Shipment attributes (docs/api.md §Shipment resource). */
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

/** A shipment's attributes as its serializer writes them (`serializeShipment`). */
export type ShipmentAttributes = z.infer<typeof ShipmentAttributes>;

export const ShipmentResourceSchema = resourceSchema("shipment", ShipmentAttributes, "Shipment");
export const ShipmentDocument = singleDocumentSchema(ShipmentResourceSchema, "ShipmentDocument");
export const ShipmentListDocument = listDocumentSchema(ShipmentResourceSchema, "ShipmentList");

/**
 * The filters of `GET /v2/shipments` (docs/decisions.md §Wire format, docs/api.md §Shipment endpoints), as its OpenAPI
 * query declares them: the route's query is `listQuery`, `include` and these.
 */
export const shipmentFilterParams = {
  number: z.string().optional().openapi({ description: "The tracked bill of lading or booking number." }),
  "filter[tracking_stopped]": z.enum(["true", "false"]).optional(),
  "filter[scac]": z.string().optional(),
  "filter[pod_locode]": z.string().optional(),
  "filter[updated_at][start]": z.string().optional().openapi({ description: "ISO 8601" }),
  "filter[updated_at][end]": z.string().optional().openapi({ description: "ISO 8601" }),
  "filter[customer_id]": z.string().optional().openapi({ description: "Id of the customer party." }),
  q: z.string().optional().openapi({
    description:
      "Deprecated (kept for the reference's clients): the tracked number, a reference number or a container number, matched whole.",
  }),
};

/** The filters `listShipments` takes, by parameter name: checked and trimmed by {@link parseShipmentFilters}. */
export type ShipmentFilters = z.infer<z.ZodObject<typeof shipmentFilterParams>>;

/**
 * The shipment filters of a request's query (or an MCP tool's arguments), checked in this order: strings trimmed and
 * at most 64 (`number`, `customer_id`), 8 (`scac`), 5 (`pod_locode`) or 255 (`q`) characters, `tracking_stopped`
 * `true` or `false`, time bounds ISO 8601 (normalised to UTC seconds). An empty value is no filter.
 * @throws ApiError 400 with `source.parameter` at the first invalid value.
 */
export function parseShipmentFilters(values: FilterValues<keyof ShipmentFilters>): ShipmentFilters {
  return {
    number: parseStringFilter(values.number, "number", 64),
    "filter[tracking_stopped]": parseBooleanFilter(values["filter[tracking_stopped]"], "filter[tracking_stopped]"),
    "filter[scac]": parseStringFilter(values["filter[scac]"], "filter[scac]", 8),
    "filter[pod_locode]": parseStringFilter(values["filter[pod_locode]"], "filter[pod_locode]", 5),
    "filter[updated_at][start]": parseTimeBound(values["filter[updated_at][start]"], "filter[updated_at][start]"),
    "filter[updated_at][end]": parseTimeBound(values["filter[updated_at][end]"], "filter[updated_at][end]"),
    "filter[customer_id]": parseStringFilter(values["filter[customer_id]"], "filter[customer_id]", 64),
    q: parseStringFilter(values.q, "q", 255),
  };
}

const stringList = referenceList();

/**
 * Body of `PATCH /shipments/{id}` (docs/api.md §Shipment endpoints): `ref_numbers` and/or `tags`, each replacing the
 * shipment's list (at most 50 items of at most 255 characters, no control characters, as on tracking requests).
 * `data.id`, when sent, must be the id in the path. `data.type` may be omitted (the reference's schema requires only
 * `attributes`, issue 15); when present it must be `shipment` (422 otherwise).
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
 * `{"data":{"type":"shipment","id":"<id>"}}` (docs/api.md §Shipment endpoints); no body at all is just as good.
 */
export const ShipmentActionBody = z
  .strictObject({
    data: z.strictObject({
      type: z.literal("shipment").optional(),
      id: z.string().max(64).optional(),
    }),
  })
  .openapi("ShipmentAction");
