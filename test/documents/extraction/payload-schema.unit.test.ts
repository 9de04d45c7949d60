// The payload schema (docs/documents.md §Payload) matches what the extractor writes and what its type says.
import { describe, expect, expectTypeOf, it } from "vitest";
import type { z } from "zod";
import {
  type ExtractionPayload,
  extractDocument,
  extractionPayloadJsonSchema,
  extractionPayloadSchema,
} from "../../../src/documents/extraction/index.ts";
import { arrivalNoticePdf, billOfLadingPdf, bookingConfirmationText } from "../../fixtures/documents.ts";

describe("extractionPayloadSchema", () => {
  it("accepts every fixture's payload", async () => {
    const outcomes = [
      await extractDocument(await billOfLadingPdf(), "application/pdf"),
      await extractDocument(await arrivalNoticePdf(), "application/pdf"),
      await extractDocument(bookingConfirmationText(), "text/plain"),
    ];
    for (const outcome of outcomes) {
      if (outcome.status !== "extracted") throw new Error(outcome.detail);
      expect(extractionPayloadSchema.parse(outcome.payload)).toEqual(outcome.payload);
    }
  });

  it("refuses a missing key, an unknown key, a confidence over 1 and an unknown type", () => {
    const payload = {
      document_type: { value: "other", confidence: 0.3 },
      bill_of_lading_number: null,
      booking_number: null,
      container_numbers: [],
      shipping_line_scac: null,
      vessel_name: null,
      voyage_number: null,
      port_of_loading: null,
      port_of_discharge: null,
      estimated_departure_date: null,
      estimated_arrival_date: null,
      reference_numbers: [],
    };
    expect(extractionPayloadSchema.safeParse(payload).success).toBe(true);
    const { booking_number: _, ...missing } = payload;
    expect(extractionPayloadSchema.safeParse(missing).success).toBe(false);
    expect(extractionPayloadSchema.safeParse({ ...payload, extra: 1 }).success).toBe(false);
    const tooSure = { ...payload, vessel_name: { value: "X", confidence: 1.2, source_text: "X" } };
    expect(extractionPayloadSchema.safeParse(tooSure).success).toBe(false);
    expect(
      extractionPayloadSchema.safeParse({ ...payload, document_type: { value: "x", confidence: 1 } }).success,
    ).toBe(false);
  });

  it("is the ExtractionPayload type", () => {
    expectTypeOf<z.infer<typeof extractionPayloadSchema>>().toEqualTypeOf<ExtractionPayload>();
  });

  it("has a JSON Schema with every key required", () => {
    const schema = extractionPayloadJsonSchema() as { type: string; required: string[]; additionalProperties: boolean };
    expect(schema.type).toBe("object");
    expect(schema.additionalProperties).toBe(false);
    expect([...schema.required].sort()).toEqual(Object.keys(extractionPayloadSchema.shape).sort());
    expect(schema.required).toContain("container_numbers");
  });
});
