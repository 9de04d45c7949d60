import { describe, expect, it } from "vitest";
import type { ExtractionPayload } from "../../src/documents/extraction";
import {
  MAX_REFERENCE_LENGTH,
  MAX_REFERENCES_PER_DOCUMENT,
  normalizeReference,
  referenceTokens,
} from "../../src/documents/references";

// Reference tokens of documents (docs/documents.md §Links): what a document's extraction and manual data name, in the
// normalized form links and filter[reference] compare.

const field = (value: string) => ({ value, confidence: 0.9, source_text: value });

function payload(overrides: Partial<ExtractionPayload> = {}): ExtractionPayload {
  return {
    document_type: { value: "bill_of_lading", confidence: 0.9 },
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
    ...overrides,
  };
}

describe("normalizeReference", () => {
  it("upper-cases and drops spaces, dashes, dots, slashes and underscores, nothing else", () => {
    expect(normalizeReference("msku 123456-7")).toBe("MSKU1234567");
    expect(normalizeReference("PO/2026.11_004-a")).toBe("PO202611004A");
    expect(normalizeReference("A#1")).toBe("A#1");
    expect(normalizeReference(" - ")).toBe("");
  });
});

describe("referenceTokens", () => {
  it("the payload's BL, booking and container numbers, then the manual data's, each (kind, value) once", () => {
    const tokens = referenceTokens(
      payload({
        bill_of_lading_number: field("MAEU241234567"),
        booking_number: field("241234567"),
        container_numbers: [field("MSKU1234565"), field("MRKU7654320")],
        reference_numbers: [field("4500012345")],
      }),
      {
        bill_of_lading_number: "maeu-241234567",
        po_numbers: ["PO 4711", { value: "PO-4712" }, 12],
        reference_numbers: "REF-1",
        container_numbers: [{ value: "TSTU1000006" }],
        unrelated: "IGNORED1",
      },
    );
    expect(tokens.map((t) => [t.kind, t.normalizedValue])).toEqual([
      ["bill_of_lading", "MAEU241234567"],
      ["booking", "241234567"],
      ["container", "MSKU1234565"],
      ["container", "MRKU7654320"],
      ["reference", "4500012345"],
      ["container", "TSTU1000006"],
      ["reference", "REF1"],
      ["reference", "PO4711"],
      ["reference", "PO4712"],
    ]);
    expect(tokens.find((t) => t.normalizedValue === "PO4711")?.value).toBe("PO 4711");
  });

  it("nothing without a payload or manual data; blank and over-long values dropped; at most 500", () => {
    expect(referenceTokens(null, null)).toEqual([]);
    expect(
      referenceTokens(null, { po_number: ["  ", "-", "X".repeat(MAX_REFERENCE_LENGTH + 1), "X".repeat(50)] }),
    ).toHaveLength(1);
    const many = Array.from({ length: 600 }, (_, i) => `PO${i}`);
    expect(referenceTokens(null, { po_numbers: many })).toHaveLength(MAX_REFERENCES_PER_DOCUMENT);
  });
});
