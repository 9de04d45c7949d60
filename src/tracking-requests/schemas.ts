import { z } from "@hono/zod-openapi";
import { InitialCustomFieldsInput } from "../custom-fields/initial";
import { type FilterValues, parseEnumFilter, parseStringFilter, parseTimeBound } from "../lib/jsonapi/filters";
import { listDocumentSchema, resourceSchema, singleDocumentSchema } from "../lib/openapi";
import { freeText, MAX_REF_LENGTH, referenceList } from "../lib/validation";

/**
 * Request types accepted on create: docs/api.md §Tracking request endpoints plus the reference spelling
 * `booking_number` (docs/decisions.md).
 */
export const REQUEST_TYPES = ["bill_of_lading", "booking", "booking_number", "container"] as const;

/** Tracking request statuses (docs/decisions.md §Tracking requests). */
export const TRACKING_REQUEST_STATUSES = [
  "pending",
  "awaiting_manifest",
  "created",
  "failed",
  "tracking_stopped",
] as const;

/** Longest request number or reference string accepted. */
export const MAX_NUMBER_LENGTH = 64;
/** Reference numbers and tags: free text, no control characters (`referenceList`). */
const stringList = referenceList();

/**
 * Body of `POST /tracking_requests` (docs/api.md §Tracking request endpoints). Structure and types are checked here;
 * the rules that need data (SCAC known and supported, duplicates, blank after trimming) are checked by the
 * service so that they are reported together.
 */
export const CreateTrackingRequestBody = z
  .strictObject({
    data: z.strictObject({
      type: z.literal("tracking_request"),
      attributes: z.strictObject({
        request_type: z.enum(REQUEST_TYPES).openapi({ example: "bill_of_lading" }),
        request_number: z.string().max(MAX_NUMBER_LENGTH).openapi({ example: "TEST-TR-SUCCEEDED" }),
        scac: z
          .string()
          .max(MAX_NUMBER_LENGTH)
          .nullable()
          .optional()
          .openapi({ example: "TEST", description: "Required unless auto_detect_vocc_scac is true." }),
        ref_numbers: stringList.optional(),
        shipment_tags: stringList.optional(),
        auto_detect_vocc_scac: z.boolean().optional(),
        initial_custom_fields: InitialCustomFieldsInput.optional().openapi({
          description:
            "Custom field values for the shipment (`shipment`) and containers (`containers`, `number` targets one container) the lookup creates; checked at create (docs/api.md §Custom fields).",
        }),
      }),
      relationships: z
        .strictObject({
          customer: z.strictObject({
            data: z.strictObject({ id: z.string().max(64), type: z.literal("party") }).nullable(),
          }),
        })
        .optional(),
    }),
  })
  .openapi("CreateTrackingRequest");

/**
 * Body of `PATCH /tracking_requests/{id}`: `ref_numbers` (array), or the reference spec's singular
 * `ref_number` (docs/api.md §Tracking request endpoints), replacing the request's reference numbers. `data.type` may be
 * omitted (issue 15); when present it must be `tracking_request`. (Create, by contrast, requires it:
 * docs/api.md §Tracking request endpoints.)
 */
export const UpdateTrackingRequestBody = z
  .strictObject({
    data: z.strictObject({
      type: z.literal("tracking_request").optional(),
      id: z.string().max(64).optional(),
      attributes: z.strictObject({
        ref_numbers: stringList.optional(),
        ref_number: freeText(MAX_REF_LENGTH).optional(),
        shipment_tags: stringList.optional(),
      }),
    }),
  })
  .openapi("UpdateTrackingRequest");

export const TrackingRequestAttributes = z
  .object({
    request_number: z.string(),
    request_type: z.enum(REQUEST_TYPES),
    scac: z.string().nullable(),
    ref_numbers: z.array(z.string()),
    shipment_tags: z.array(z.string()),
    created_at: z.string(),
    updated_at: z.string(),
    status: z.enum(TRACKING_REQUEST_STATUSES),
    failed_reason: z.string().nullable(),
    is_retrying: z.boolean(),
    retry_count: z.number().int().nullable(),
  })
  .openapi("TrackingRequestAttributes");

/** A tracking request's attributes as its serializer writes them (`serializeTrackingRequest`). */
export type TrackingRequestAttributes = z.infer<typeof TrackingRequestAttributes>;

export const TrackingRequestResourceSchema = resourceSchema(
  "tracking_request",
  TrackingRequestAttributes,
  "TrackingRequest",
);
export const TrackingRequestDocument = singleDocumentSchema(TrackingRequestResourceSchema, "TrackingRequestDocument");
export const TrackingRequestListDocument = listDocumentSchema(TrackingRequestResourceSchema, "TrackingRequestList");

/**
 * The filters of `GET /v2/tracking_requests` (docs/decisions.md §Wire format, docs/api.md §Tracking request endpoints),
 * as its OpenAPI query declares them: the route's query is `listQuery`, `include` and these.
 */
export const trackingRequestFilterParams = {
  "filter[request_number]": z.string().optional(),
  "filter[status]": z.enum(TRACKING_REQUEST_STATUSES).optional(),
  "filter[scac]": z.string().optional(),
  "filter[request_type]": z.enum(REQUEST_TYPES).optional(),
  "filter[created_at][start]": z.string().optional().openapi({ description: "ISO 8601" }),
  "filter[created_at][end]": z.string().optional().openapi({ description: "ISO 8601" }),
  "filter[updated_at][start]": z.string().optional().openapi({ description: "ISO 8601" }),
  "filter[updated_at][end]": z.string().optional().openapi({ description: "ISO 8601" }),
  q: z.string().optional().openapi({
    description:
      "Deprecated (kept for the reference's clients): the request number or a reference number, matched whole.",
  }),
};

/**
 * The filters `listTrackingRequests` takes, by parameter name: checked and trimmed by
 * {@link parseTrackingRequestFilters}.
 */
export type TrackingRequestFilters = z.infer<z.ZodObject<typeof trackingRequestFilterParams>>;

/**
 * The tracking-request filters of a request's query (or an MCP tool's arguments), checked in this order: strings
 * trimmed and at most 64 (`request_number`), 8 (`scac`) or 255 (`q`) characters, `status` and `request_type` one of
 * their values, time bounds ISO 8601 (normalised to UTC seconds). An empty value is no filter.
 * @throws ApiError 400 with `source.parameter` at the first invalid value.
 */
export function parseTrackingRequestFilters(
  values: FilterValues<keyof TrackingRequestFilters>,
): TrackingRequestFilters {
  return {
    "filter[request_number]": parseStringFilter(values["filter[request_number]"], "filter[request_number]", 64),
    "filter[status]": parseEnumFilter(values["filter[status]"], "filter[status]", TRACKING_REQUEST_STATUSES),
    "filter[scac]": parseStringFilter(values["filter[scac]"], "filter[scac]", 8),
    "filter[request_type]": parseEnumFilter(values["filter[request_type]"], "filter[request_type]", REQUEST_TYPES),
    "filter[created_at][start]": parseTimeBound(values["filter[created_at][start]"], "filter[created_at][start]"),
    "filter[created_at][end]": parseTimeBound(values["filter[created_at][end]"], "filter[created_at][end]"),
    "filter[updated_at][start]": parseTimeBound(values["filter[updated_at][start]"], "filter[updated_at][start]"),
    "filter[updated_at][end]": parseTimeBound(values["filter[updated_at][end]"], "filter[updated_at][end]"),
    q: parseStringFilter(values.q, "q", 255),
  };
}
