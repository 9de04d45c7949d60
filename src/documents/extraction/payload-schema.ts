/**
 * The extraction payload's schema (docs/documents.md §Payload) as a zod schema and as JSON Schema: the
 * `document_schema.schema_payload` of every document type at {@link EXTRACTION_SCHEMA_VERSION} (the reference's
 * `GET /document_schemas/{id}`, id `<document_type>@<schema_version>`). One shape for every type: the extractor reads
 * the same fields from each.
 */
import { z } from "zod";
import { DOCUMENT_TYPES } from "./document-types.ts";
import { type DocumentTypeCode, EXTRACTION_SCHEMA_VERSION } from "./types.ts";

const confidence = z.number().min(0).max(1).describe("0..1: how sure the rule that found the value is");

/** One recognised value (`ExtractedField`). */
const extractedField = z
  .object({
    value: z.string().describe("normalised value: upper-case number, SCAC, UN/LOCODE, vessel name, YYYY-MM-DD"),
    confidence,
    source_text: z.string().describe("the text the value was read from"),
  })
  .strict();

const documentTypeCodes = DOCUMENT_TYPES.map((t) => t.code) as [DocumentTypeCode, ...DocumentTypeCode[]];

/** `document_representation.payload` (`ExtractionPayload`); every key present, `null` when not found. */
export const extractionPayloadSchema = z
  .object({
    document_type: z.object({ value: z.enum(documentTypeCodes), confidence }).strict(),
    bill_of_lading_number: extractedField.nullable(),
    booking_number: extractedField.nullable(),
    container_numbers: z.array(extractedField).describe("ISO 6346 numbers with a valid check digit"),
    shipping_line_scac: extractedField.nullable(),
    vessel_name: extractedField.nullable(),
    voyage_number: extractedField.nullable(),
    port_of_loading: extractedField.nullable().describe("UN/LOCODE"),
    port_of_discharge: extractedField.nullable().describe("UN/LOCODE"),
    estimated_departure_date: extractedField.nullable().describe("YYYY-MM-DD"),
    estimated_arrival_date: extractedField.nullable().describe("YYYY-MM-DD"),
    reference_numbers: z.array(extractedField).describe("purchase order and customer / shipper references"),
  })
  .strict();

/** The payload's JSON Schema (draft 2020-12), for `document_schema.schema_payload`. */
export function extractionPayloadJsonSchema(): Record<string, unknown> {
  return {
    ...z.toJSONSchema(extractionPayloadSchema),
    title: `Extraction payload @${EXTRACTION_SCHEMA_VERSION}`,
  };
}
