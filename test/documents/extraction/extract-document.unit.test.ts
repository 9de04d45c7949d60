// The extractor end to end on fixture documents made here (test/fixtures/documents.ts): PDF text layers read by unpdf
// in workerd (this file runs in the Workers pool), every field checked (docs/documents.md §Document extraction).
import { describe, expect, it } from "vitest";
import {
  DOCUMENT_TYPES,
  EXTRACTION_SCHEMA_VERSION,
  type ExtractionOutcome,
  type ExtractionSuccess,
  extractDocument,
  MAX_BYTES,
  MAX_PAGES,
} from "../../../src/documents/extraction/index.ts";
import {
  arrivalNoticePdf,
  billOfLadingPdf,
  blankPagesPdf,
  bookingConfirmationText,
  boxedBillOfLadingPdf,
  corruptPdf,
  encryptedPdf,
  FIXTURE_CONTAINERS,
  scannedPdf,
  truncatedPdf,
  WRONG_CHECK_DIGIT,
} from "../../fixtures/documents.ts";

function extracted(outcome: ExtractionOutcome): ExtractionSuccess {
  if (outcome.status !== "extracted") throw new Error(`expected an extraction, got ${JSON.stringify(outcome)}`);
  return outcome;
}

/** value and confidence of a field, or null. */
const vc = (f: { value: string; confidence: number } | null) =>
  f ? { value: f.value, confidence: f.confidence } : null;

describe("extractDocument on a bill of lading PDF", () => {
  it("reads every field with its confidence", async () => {
    const result = extracted(await extractDocument(await billOfLadingPdf(), "application/pdf"));
    expect(result.documentType).toBe("bill_of_lading");
    expect(result.schemaVersion).toBe(EXTRACTION_SCHEMA_VERSION);
    expect(result.pageCount).toBe(1);
    const p = result.payload;
    expect(p.document_type).toEqual({ value: "bill_of_lading", confidence: 0.9 });
    // Labelled and starting with Maersk's BL prefix.
    expect(vc(p.bill_of_lading_number)).toEqual({ value: "MAEU241234567", confidence: 0.95 });
    expect(vc(p.booking_number)).toEqual({ value: "241234567", confidence: 0.85 });
    // The SCAC label, and the BL prefix agrees: 0.97 + 0.1, capped at 0.99.
    expect(vc(p.shipping_line_scac)).toEqual({ value: "MAEU", confidence: 0.99 });
    expect(p.shipping_line_scac?.source_text).toBe("SCAC: MAEU");
    expect(vc(p.vessel_name)).toEqual({ value: "MAERSK ESSEX", confidence: 0.8 });
    expect(vc(p.voyage_number)).toEqual({ value: "449W", confidence: 0.8 });
    // Two label/value pairs on one line: each value stops at the next label.
    expect(vc(p.port_of_loading)).toEqual({ value: "CNSHA", confidence: 0.85 });
    expect(p.port_of_loading?.source_text).toBe("Port of Loading: Shanghai, China");
    expect(vc(p.port_of_discharge)).toEqual({ value: "USLAX", confidence: 0.85 });
    expect(vc(p.estimated_departure_date)).toEqual({ value: "2026-12-05", confidence: 0.9 });
    expect(vc(p.estimated_arrival_date)).toEqual({ value: "2026-12-21", confidence: 0.9 });
    // Spaced `MSKU 123456-5` and compact forms; the number with a wrong check digit is left out.
    expect(p.container_numbers.map(vc)).toEqual([
      { value: FIXTURE_CONTAINERS.maersk1, confidence: 0.97 },
      { value: FIXTURE_CONTAINERS.maersk2, confidence: 0.97 },
    ]);
    expect(p.container_numbers[0]?.source_text).toMatch(/^MSKU 123456-\d$/);
    expect(JSON.stringify(p)).not.toContain(WRONG_CHECK_DIGIT);
  });

  it("leaves the caller's bytes readable (PDF.js gets a copy)", async () => {
    const bytes = await billOfLadingPdf();
    const before = bytes.slice();
    await extractDocument(bytes, "application/pdf");
    expect(bytes.byteLength).toBe(before.byteLength);
    expect(bytes).toEqual(before);
  });
});

describe("extractDocument on a bill of lading laid out as a form (values beneath box headings)", () => {
  it("reads each value under its heading's column", async () => {
    const result = extracted(await extractDocument(await boxedBillOfLadingPdf(), "application/pdf"));
    const p = result.payload;
    // `BILL OF LADING NO.` is a heading (a label), the title is the line above.
    expect(p.document_type).toEqual({ value: "bill_of_lading", confidence: 0.9 });
    // Values on the line below their label: 0.05 less than on the label's line.
    expect(vc(p.bill_of_lading_number)).toEqual({ value: "CMDUCNA0123456", confidence: 0.9 });
    expect(p.bill_of_lading_number?.source_text).toBe("BILL OF LADING NO.\nCMDUCNA0123456");
    expect(vc(p.booking_number)).toEqual({ value: "CNA0123456", confidence: 0.75 });
    // The name in the letterhead, agreeing with the BL prefix CMDU.
    expect(vc(p.shipping_line_scac)).toEqual({ value: "CMDU", confidence: 0.9 });
    expect(vc(p.vessel_name)).toEqual({ value: "CMA CGM JACQUES SAADE", confidence: 0.75 });
    expect(vc(p.voyage_number)).toEqual({ value: "0MEA1W1MA", confidence: 0.75 });
    expect(vc(p.port_of_loading)).toEqual({ value: "CNYTN", confidence: 0.8 });
    expect(vc(p.port_of_discharge)).toEqual({ value: "DEHAM", confidence: 0.8 });
    expect(vc(p.estimated_departure_date)).toEqual({ value: "2027-01-12", confidence: 0.85 });
    expect(vc(p.estimated_arrival_date)).toEqual({ value: "2027-02-18", confidence: 0.85 });
    expect(p.container_numbers.map((c) => c.value)).toEqual([FIXTURE_CONTAINERS.cma1, FIXTURE_CONTAINERS.cma2]);
  });
});

describe("extractDocument on a two-page arrival notice PDF", () => {
  it("reads both pages and every field", async () => {
    const result = extracted(await extractDocument(await arrivalNoticePdf(), "application/pdf; charset=binary"));
    expect(result.documentType).toBe("arrival_notice");
    expect(result.pageCount).toBe(2);
    const p = result.payload;
    // `Bill of Lading Number:` is a label here, not the title.
    expect(p.document_type).toEqual({ value: "arrival_notice", confidence: 0.9 });
    expect(vc(p.bill_of_lading_number)).toEqual({ value: "HLCUSHA2412345", confidence: 0.95 });
    expect(vc(p.booking_number)).toEqual({ value: "87654321", confidence: 0.85 });
    // The carrier's name, agreeing with the BL prefix HLCU: 0.8 + 0.1.
    expect(vc(p.shipping_line_scac)).toEqual({ value: "HLCU", confidence: 0.9 });
    expect(vc(p.vessel_name)).toEqual({ value: "BERLIN EXPRESS", confidence: 0.85 });
    expect(vc(p.voyage_number)).toEqual({ value: "051E", confidence: 0.85 });
    expect(vc(p.port_of_loading)).toEqual({ value: "CNNGB", confidence: 0.95 });
    expect(vc(p.port_of_discharge)).toEqual({ value: "NLRTM", confidence: 0.85 });
    expect(p.estimated_departure_date).toBeNull();
    // 12/21/2026: the month cannot be 21, so the numeric date is read (0.75).
    expect(vc(p.estimated_arrival_date)).toEqual({ value: "2026-12-21", confidence: 0.75 });
    // Page 2's containers, each once.
    expect(p.container_numbers.map((c) => c.value)).toEqual([FIXTURE_CONTAINERS.hapag1, FIXTURE_CONTAINERS.hapag2]);
  });
});

describe("extractDocument on a plain-text booking confirmation", () => {
  it("reads text/plain as one page", async () => {
    const result = extracted(await extractDocument(bookingConfirmationText(), "text/plain; charset=utf-8"));
    expect(result.pageCount).toBe(1);
    const p = result.payload;
    expect(p.document_type).toEqual({ value: "booking_confirmation", confidence: 0.9 });
    expect(p.bill_of_lading_number).toBeNull();
    expect(vc(p.booking_number)).toEqual({ value: "178KLM123456", confidence: 0.85 });
    // `MSC` is a short name: matched in capitals under the Carrier label.
    expect(vc(p.shipping_line_scac)).toEqual({ value: "MSCU", confidence: 0.9 });
    expect(vc(p.vessel_name)).toEqual({ value: "MSC ANNA", confidence: 0.85 });
    expect(vc(p.voyage_number)).toEqual({ value: "FA612A", confidence: 0.85 });
    expect(vc(p.port_of_loading)).toEqual({ value: "ESVLC", confidence: 0.85 });
    expect(vc(p.port_of_discharge)).toEqual({ value: "USNYC", confidence: 0.95 });
    expect(vc(p.estimated_departure_date)).toEqual({ value: "2027-01-09", confidence: 0.9 });
    expect(p.estimated_arrival_date).toBeNull();
    expect(p.container_numbers.map((c) => c.value)).toEqual([FIXTURE_CONTAINERS.msc1]);
  });
});

describe("extractDocument failures", () => {
  it("a scanned PDF (an image, no text layer) fails with no_text_layer: OCR is out of scope", async () => {
    expect(await extractDocument(await scannedPdf(), "application/pdf")).toEqual({
      status: "failed",
      reason: "no_text_layer",
      detail: "The PDF has no text layer (a scanned image?); OCR is not supported.",
      pageCount: 1,
    });
  });

  it("garbage after a PDF header, and a PDF cut short, are corrupt_file", async () => {
    for (const bytes of [corruptPdf(), await truncatedPdf()]) {
      const outcome = await extractDocument(bytes, "application/pdf");
      expect(outcome).toMatchObject({ status: "failed", reason: "corrupt_file", pageCount: null });
    }
  });

  it("a password-protected PDF is encrypted", async () => {
    expect(await extractDocument(await encryptedPdf(), "application/pdf")).toEqual({
      status: "failed",
      reason: "encrypted",
      detail: "The PDF is password-protected; it cannot be read.",
      pageCount: null,
    });
  });

  it("bytes without a PDF header sent as a PDF are corrupt_file", async () => {
    const outcome = await extractDocument(bookingConfirmationText(), "application/pdf");
    expect(outcome).toEqual({
      status: "failed",
      reason: "corrupt_file",
      detail: "The file is not a PDF (no %PDF- header).",
      pageCount: null,
    });
  });

  it(`more than ${MAX_PAGES} pages is too_many_pages, with the page count`, async () => {
    const outcome = await extractDocument(await blankPagesPdf(MAX_PAGES + 1), "application/pdf");
    expect(outcome).toMatchObject({ status: "failed", reason: "too_many_pages", pageCount: MAX_PAGES + 1 });
  });

  it("a PDF of blank pages within the limit has no text layer", async () => {
    const outcome = await extractDocument(await blankPagesPdf(3), "application/pdf");
    expect(outcome).toMatchObject({ status: "failed", reason: "no_text_layer", pageCount: 3 });
  });

  it("more than MAX_BYTES is too_large, before anything is parsed", async () => {
    const outcome = await extractDocument(new Uint8Array(MAX_BYTES + 1), "application/pdf");
    expect(outcome).toMatchObject({ status: "failed", reason: "too_large", pageCount: null });
  });

  it("other content types are unsupported_content_type", async () => {
    for (const type of ["image/png", "application/vnd.ms-excel", ""]) {
      const outcome = await extractDocument(await scannedPdf(), type);
      expect(outcome).toMatchObject({ status: "failed", reason: "unsupported_content_type" });
    }
  });

  it("text/plain that is not UTF-8 or holds NUL bytes is corrupt_file; an empty one has no text", async () => {
    expect(await extractDocument(new Uint8Array([0x41, 0xff, 0xfe, 0x42]), "text/plain")).toMatchObject({
      reason: "corrupt_file",
    });
    expect(await extractDocument(new Uint8Array([0x41, 0x00, 0x42]), "text/plain")).toMatchObject({
      reason: "corrupt_file",
    });
    expect(await extractDocument(new TextEncoder().encode(" \n\t\n"), "text/plain")).toMatchObject({
      reason: "no_text_layer",
      pageCount: 1,
    });
  });
});

describe("DOCUMENT_TYPES", () => {
  it("lists each code once, with a label, including every type the extractor can answer", async () => {
    const codes = DOCUMENT_TYPES.map((t) => t.code);
    expect(new Set(codes).size).toBe(codes.length);
    for (const t of DOCUMENT_TYPES) expect(t.label).not.toBe("");
    for (const code of ["bill_of_lading", "arrival_notice", "booking_confirmation", "other"]) {
      expect(codes).toContain(code);
    }
  });
});
