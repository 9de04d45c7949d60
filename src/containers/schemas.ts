import { z } from "@hono/zod-openapi";
import { ApiError } from "../lib/errors";
import {
  type FilterValues,
  parseBooleanFilter,
  parseEnumFilter,
  parseStringFilter,
  parseTimeBound,
} from "../lib/jsonapi/filters";
import { listDocumentSchema, resourceSchema, singleDocumentSchema } from "../lib/openapi";
import { referenceList } from "../lib/validation";
import { CONTAINER_STATUSES } from "../tracking/status";

const ts = () => z.string().nullable().openapi({ format: "date-time", example: "2024-06-26T15:05:18Z" });

/** An extension attribute saying why the latest poll of a facility failed (issue 13 §1). */
const facilityFailedReason = (facility: string) =>
  z
    .string()
    .nullable()
    .openapi({
      example: "terminal_credentials_rejected",
      description: `Extension (not in the reference service): why the latest attempt to ask ${facility} about the container failed, null when it answered. \`terminal_unreachable\` (no answer in time, network error, HTTP 5xx), \`unrecognized_response\` (not the provider's documented format), \`terminal_credentials_rejected\` (the provider refused our credentials, HTTP 401/403: a configuration error of the operator, TERMINAL_SOURCES; polling backs off until it accepts them), or a source's own reason (e.g. its rate limit).`,
    });

export const TerminalHoldSchema = z
  .object({
    name: z.enum(["freight", "customs", "USDA", "VACIS", "TMF", "other"]),
    status: z.enum(["hold", "pending"]),
    description: z.string().nullable(),
  })
  .openapi("TerminalHold");

export const TerminalFeeSchema = z
  .object({
    type: z.enum(["demurrage", "extended_dwell_time", "exam", "total", "other"]),
    amount: z.number(),
    currency_code: z.string(),
  })
  .openapi("TerminalFee");

/** Container attributes (docs/api.md §Container resource and docs/api.md §Container resource). */
export const ContainerAttributes = z
  .object({
    number: z.string(),
    seal_number: z.string().nullable(),
    created_at: z.string(),
    ref_numbers: z.array(z.string()),
    pod_arrived_at: ts(),
    pod_discharged_at: ts(),
    final_destination_full_out_at: ts(),
    holds_at_pod_terminal: z.array(TerminalHoldSchema),
    available_for_pickup: z.boolean().nullable(),
    delivered_at: ts(),
    current_status: z.enum(CONTAINER_STATUSES),
    empty_out_at: ts(),
    pol_full_in_at: ts(),
    pol_vessel_loaded_at: ts(),
    pol_vessel_departed_at: ts(),
    equipment_type: z.enum(["dry", "reefer", "open top", "flat rack", "bulk", "tank"]).nullable(),
    equipment_length: z.number().int().nullable(),
    equipment_height: z.enum(["standard", "high_cube"]).nullable(),
    pod_full_out_at: ts(),
    empty_terminated_at: ts(),
    terminal_checked_at: ts(),
    fees_at_pod_terminal: z.array(TerminalFeeSchema),
    pickup_lfd: ts(),
    pickup_appointment_at: ts(),
    pod_full_out_chassis_number: z.string().nullable(),
    location_at_pod_terminal: z.string().nullable(),
    pod_last_tracking_request_at: ts(),
    shipment_last_tracking_request_at: ts(),
    rail_last_tracking_request_at: ts(),
    availability_known: z.boolean(),
    pod_timezone: z.string().nullable(),
    final_destination_timezone: z.string().nullable(),
    weight_in_lbs: z.number().nullable(),
    empty_terminated_timezone: z.string().nullable(),
    pod_rail_carrier_scac: z.string().nullable(),
    ind_rail_carrier_scac: z.string().nullable(),
    pod_rail_loaded_at: ts(),
    pod_rail_departed_at: ts(),
    ind_eta_at: ts(),
    ind_ata_at: ts(),
    ind_rail_unloaded_at: ts(),
    ind_facility_holds: z
      .array(TerminalHoldSchema)
      .nullable()
      .openapi({ description: "Holds at the inland facility: always null (no inland facility reports them to us)." }),
    ind_facility_fees: z
      .array(TerminalFeeSchema)
      .nullable()
      .openapi({ description: "Fees at the inland facility: always null (no inland facility reports them to us)." }),
    ind_facility_lfd_on: ts(),
    import_deadlines: z.object({ pickup_lfd_terminal: ts(), pickup_lfd_rail: ts(), pickup_lfd_line: ts() }),
    ssl_lfd: ts().openapi({
      description: "Legacy: the shipping line's last free day (= `import_deadlines.pickup_lfd_line`).",
    }),
    terminal_tracking_last_attempted_at: ts().openapi({
      description:
        "Extension (not in the reference service): when the POD terminal was last asked about the container, answered or not. `pod_last_tracking_request_at` moves only when it answered, `terminal_checked_at` only when it reported the container.",
    }),
    terminal_tracking_failed_reason: facilityFailedReason("the POD terminal"),
    rail_tracking_last_attempted_at: ts().openapi({
      description:
        "Extension: when the inland rail ramp was last asked about the container, answered or not (`rail_last_tracking_request_at` moves only when it answered).",
    }),
    rail_tracking_failed_reason: facilityFailedReason("the inland rail ramp"),
  })
  .openapi("ContainerAttributes");

/** A container's attributes as its serializer writes them (`serializeContainer`). */
export type ContainerAttributes = z.infer<typeof ContainerAttributes>;

export const ContainerResourceSchema = resourceSchema("container", ContainerAttributes, "Container");
export const ContainerDocument = singleDocumentSchema(ContainerResourceSchema, "ContainerDocument");
export const ContainerListDocument = listDocumentSchema(ContainerResourceSchema, "ContainerList");

/**
 * The filters of `GET /v2/containers` (docs/decisions.md §Wire format), as its OpenAPI query declares them: the route's
 * query is `listQuery`, `include` and these.
 */
export const containerFilterParams = {
  "filter[number]": z.string().optional().openapi({ description: "Container number (ISO 6346)." }),
  "filter[status]": z.enum(CONTAINER_STATUSES).optional().openapi({ description: "current_status" }),
  "filter[shipment_id]": z.string().optional(),
  "filter[pod_locode]": z.string().optional().openapi({ description: "UN/LOCODE of the port of discharge." }),
  "filter[scac]": z.string().optional(),
  "filter[updated_at][start]": z.string().optional().openapi({ description: "ISO 8601" }),
  "filter[updated_at][end]": z.string().optional().openapi({ description: "ISO 8601" }),
  "filter[pickup_lfd][start]": z.string().optional().openapi({ description: "ISO 8601" }),
  "filter[pickup_lfd][end]": z.string().optional().openapi({ description: "ISO 8601" }),
  "filter[customer_id]": z.string().optional().openapi({ description: "Id of the shipment's customer party." }),
  "filter[customer_name]": z
    .string()
    .optional()
    .openapi({ description: "Company name of the shipment's customer party (case-insensitive)." }),
  "filter[has_holds]": z.enum(["true", "false"]).optional().openapi({
    description:
      "Extension: `true` for containers with at least one hold in force at the POD terminal (`holds_at_pod_terminal` entries with `status: hold`), `false` for those without.",
  }),
  "filter[custom_field][slug]": z.string().optional().openapi({
    description:
      "Extension: the `api_slug` of a container custom field definition; with `filter[custom_field][value]`, containers whose value of that field equals it.",
  }),
  "filter[custom_field][value]": z.string().optional().openapi({
    description:
      "Extension: the value `filter[custom_field][slug]` must have: compared with the stored value as text, case-insensitively (`true`/`false` for a boolean, any element of an `enum_multi`).",
  }),
  "filter[search]": z.string().optional().openapi({
    description: `Extension: containers the account search (\`GET /search?query=\`) finds: the containers it matches and the containers of the shipments it matches, among its first 1000 results.`,
  }),
};

/** The filters `listContainers` takes, by parameter name: checked and trimmed by {@link parseContainerFilters}. */
export type ContainerFilters = z.infer<z.ZodObject<typeof containerFilterParams>>;

/**
 * The container filters of a request's query (or an MCP tool's arguments), checked in this order: strings trimmed
 * and at most 20 (`number`), 64 (`shipment_id`, `customer_id`), 5 (`pod_locode`), 8 (`scac`) or 255
 * (`customer_name`) characters, `status` one of `CONTAINER_STATUSES`, time bounds ISO 8601 (normalised to UTC
 * seconds); the extensions `has_holds` `true`/`false`, `custom_field` slug (64, lower-cased) and value (1000) both or
 * neither, `search` at most 100 characters. An empty value is no filter.
 * @throws ApiError 400 with `source.parameter` at the first invalid value.
 */
export function parseContainerFilters(values: FilterValues<keyof ContainerFilters>): ContainerFilters {
  return {
    "filter[number]": parseStringFilter(values["filter[number]"], "filter[number]", 20),
    "filter[status]": parseEnumFilter(values["filter[status]"], "filter[status]", CONTAINER_STATUSES),
    "filter[shipment_id]": parseStringFilter(values["filter[shipment_id]"], "filter[shipment_id]", 64),
    "filter[pod_locode]": parseStringFilter(values["filter[pod_locode]"], "filter[pod_locode]", 5),
    "filter[scac]": parseStringFilter(values["filter[scac]"], "filter[scac]", 8),
    "filter[updated_at][start]": parseTimeBound(values["filter[updated_at][start]"], "filter[updated_at][start]"),
    "filter[updated_at][end]": parseTimeBound(values["filter[updated_at][end]"], "filter[updated_at][end]"),
    "filter[pickup_lfd][start]": parseTimeBound(values["filter[pickup_lfd][start]"], "filter[pickup_lfd][start]"),
    "filter[pickup_lfd][end]": parseTimeBound(values["filter[pickup_lfd][end]"], "filter[pickup_lfd][end]"),
    "filter[customer_id]": parseStringFilter(values["filter[customer_id]"], "filter[customer_id]", 64),
    "filter[customer_name]": parseStringFilter(values["filter[customer_name]"], "filter[customer_name]", 255),
    "filter[has_holds]": parseBooleanFilter(values["filter[has_holds]"], "filter[has_holds]"),
    ...parseCustomFieldFilter(values),
    "filter[search]": parseStringFilter(values["filter[search]"], "filter[search]", 100),
  };
}

/** `filter[custom_field][slug]` and `[value]` go together: one without the other is a 400 at the missing one. */
function parseCustomFieldFilter(values: FilterValues<keyof ContainerFilters>) {
  const slug = parseStringFilter(values["filter[custom_field][slug]"], "filter[custom_field][slug]", 64);
  const value = parseStringFilter(values["filter[custom_field][value]"], "filter[custom_field][value]", 1000);
  if ((slug === undefined) !== (value === undefined)) {
    const missing = slug === undefined ? "filter[custom_field][slug]" : "filter[custom_field][value]";
    throw ApiError.badParameter(
      missing,
      "filter[custom_field][slug] and filter[custom_field][value] must be given together.",
    );
  }
  return { "filter[custom_field][slug]": slug?.toLowerCase(), "filter[custom_field][value]": value };
}

/**
 * Body of `PATCH /containers/{id}` (docs/api.md §Container endpoints): `ref_numbers`, replacing the container's list,
 * with the rules of the shipment edit (`referenceList`: at most 50 items of at most 255 characters, free text). The
 * reference declares no other editable attribute, so any other is a 422 `unknown_attribute`. `data.type` may be omitted
 * as on the shipment edit; when present it must be `container` (422 otherwise). `data.id`, when sent, must be the id in
 * the path.
 */
export const UpdateContainerBody = z
  .strictObject({
    data: z.strictObject({
      type: z.literal("container").optional(),
      id: z.string().max(64).optional(),
      attributes: z.strictObject({
        ref_numbers: referenceList()
          .optional()
          .openapi({ example: ["REF-12345"] }),
      }),
    }),
  })
  .openapi("UpdateContainer");
