import { DOCUMENT_TYPES, EXTRACTION_SCHEMA_VERSION } from "./extraction";

/**
 * `document_schema` resources (docs/api.md §Documents "Document schemas"): one per document type, id
 * `<document_type>@<schema_version>`, whose `schema_payload` is the JSON Schema of the extractor's
 * `document_representation.payload` (src/documents/extraction/types.ts `ExtractionPayload`). Every type shares that
 * payload, since the extractor reads the same fields from each; only the current version is served.
 */

const field = {
  type: ["object", "null"],
  required: ["value", "confidence", "source_text"],
  properties: {
    value: { type: "string" },
    confidence: { type: "number", minimum: 0, maximum: 1 },
    source_text: { type: "string" },
  },
} as const;

/** The JSON Schema of an extraction payload. */
export const PAYLOAD_JSON_SCHEMA = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  required: [
    "document_type",
    "bill_of_lading_number",
    "booking_number",
    "container_numbers",
    "shipping_line_scac",
    "vessel_name",
    "voyage_number",
    "port_of_loading",
    "port_of_discharge",
    "estimated_departure_date",
    "estimated_arrival_date",
  ],
  properties: {
    document_type: {
      type: "object",
      required: ["value", "confidence"],
      properties: {
        value: { enum: DOCUMENT_TYPES.map((t) => t.code) },
        confidence: { type: "number", minimum: 0, maximum: 1 },
      },
    },
    bill_of_lading_number: field,
    booking_number: field,
    container_numbers: { type: "array", items: { ...field, type: "object" } },
    shipping_line_scac: field,
    vessel_name: field,
    voyage_number: field,
    port_of_loading: { ...field, description: "UN/LOCODE" },
    port_of_discharge: { ...field, description: "UN/LOCODE" },
    estimated_departure_date: { ...field, description: "YYYY-MM-DD" },
    estimated_arrival_date: { ...field, description: "YYYY-MM-DD" },
  },
} as const;

/** When this schema version became active (the extractor's version date, midnight UTC). */
const ACTIVE_AT = `${EXTRACTION_SCHEMA_VERSION}T00:00:00Z`;

/** The `document_schema` resource of `id`, or undefined when no such type and version exists. */
export function documentSchemaResource(id: string) {
  const at = id.lastIndexOf("@");
  const code = id.slice(0, at);
  const version = id.slice(at + 1);
  const type = DOCUMENT_TYPES.find((t) => t.code === code);
  if (at <= 0 || !type || version !== EXTRACTION_SCHEMA_VERSION) return undefined;
  return {
    id,
    type: "document_schema",
    attributes: {
      document_type: type.code,
      label: type.label,
      schema_version: EXTRACTION_SCHEMA_VERSION,
      full_version: id,
      current: true,
      draft: false,
      active_at: ACTIVE_AT,
      schema_format: "json_schema",
      description: `Fields the built-in extractor reads from a ${type.label.toLowerCase()}.`,
      schema_payload: PAYLOAD_JSON_SCHEMA,
      created_at: ACTIVE_AT,
      updated_at: ACTIVE_AT,
    },
    links: { self: `/v2/document_schemas/${id}` },
  };
}
