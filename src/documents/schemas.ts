import { DOCUMENT_TYPES, EXTRACTION_SCHEMA_VERSION, extractionPayloadJsonSchema } from "./extraction";

/**
 * `document_schema` resources (docs/api.md §Documents "Document schemas"): one per document type, id
 * `<document_type>@<schema_version>`, whose `schema_payload` is the JSON Schema of `document_representation.payload`
 * (the extractor's `extractionPayloadJsonSchema`, src/documents/extraction/). Every type shares that payload, since
 * the extractor reads the same fields from each; only the current version is served.
 */

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
      schema_payload: extractionPayloadJsonSchema(),
      created_at: ACTIVE_AT,
      updated_at: ACTIVE_AT,
    },
    links: { self: `/v2/document_schemas/${id}` },
  };
}
