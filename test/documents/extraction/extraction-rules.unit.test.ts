// Each recognition rule of the extractor on small texts (docs/documents.md §What is recognised), one describe per rule
// file in src/documents/extraction/rules/ plus the document type guess and the label reader.
import { describe, expect, it } from "vitest";
import { guessDocumentType } from "../../../src/documents/extraction/document-types.ts";
import { labelledValues } from "../../../src/documents/extraction/labels.ts";
import { carrierByName, recogniseScac } from "../../../src/documents/extraction/rules/carrier.ts";
import { recogniseContainerNumbers } from "../../../src/documents/extraction/rules/containers.ts";
import { parseDate, recogniseDates } from "../../../src/documents/extraction/rules/dates.ts";
import { recognisePorts, resolvePort } from "../../../src/documents/extraction/rules/ports.ts";
import {
  recogniseBillOfLading,
  recogniseBookingNumber,
  recogniseReferenceNumbers,
} from "../../../src/documents/extraction/rules/references.ts";
import { recogniseVesselVoyage } from "../../../src/documents/extraction/rules/vessel.ts";
import { plainTextLine } from "../../../src/documents/extraction/text-layer.ts";
import { withCheckDigit } from "../../../src/infer/iso6346.ts";

/** Lines as the plain-text reader makes them (two or more spaces, or a tab, start a cell). */
const L = (...texts: string[]) => texts.map(plainTextLine);

const valid = withCheckDigit("CSQU305438"); // CSQU3054383, the ISO 6346 example
const wrong = `${valid.slice(0, 10)}${(Number(valid.slice(10)) + 1) % 10}`;

describe("labelledValues", () => {
  it("reads after the label on its line, else on the next line, and stops at the next label", () => {
    const lines = L("POL: Shanghai POD: Rotterdam", "Port of Loading", "Ningbo");
    expect(labelledValues(lines, "port_of_loading").map((v) => [v.value, v.sameLine])).toEqual([
      ["Shanghai", true],
      ["Ningbo", false],
    ]);
    expect(labelledValues(lines, "port_of_discharge").map((v) => v.value)).toEqual(["Rotterdam"]);
  });

  it("a row of headings: each value is beneath its heading's column; a label | value row reads the next cell", () => {
    const form = L("SHIPPER       BOOKING NO.    B/L NO.", "ACME LTD      241234567      MAEU241234567");
    expect(labelledValues(form, "booking")).toEqual([
      { value: "241234567", sameLine: false, sourceText: "BOOKING NO.\n241234567" },
    ]);
    expect(labelledValues(form, "bill_of_lading").map((v) => v.value)).toEqual(["MAEU241234567"]);
    expect(labelledValues(L("Port of Loading\tShanghai"), "port_of_loading")).toEqual([
      { value: "Shanghai", sameLine: true, sourceText: "Port of Loading Shanghai" },
    ]);
  });

  it("a Vessel/Voyage label is neither a Vessel nor a Voyage label", () => {
    expect(labelledValues(L("Vessel / Voyage: EVER GIVEN / 123E"), "vessel")).toEqual([]);
    expect(labelledValues(L("Vessel / Voyage: EVER GIVEN / 123E"), "voyage")).toEqual([]);
  });
});

describe("recogniseContainerNumbers", () => {
  it("keeps numbers with a valid ISO 6346 check digit, in any spacing, once each", () => {
    const text = `${valid} and ${valid.slice(0, 4)} ${valid.slice(4, 10)} ${valid.slice(10)}\n${wrong}\nx${valid}`;
    const found = recogniseContainerNumbers(text);
    expect(found.map((f) => [f.value, f.confidence])).toEqual([[valid, 0.97]]);
  });

  it("reads lower-case numbers and ignores a wrong check digit", () => {
    expect(recogniseContainerNumbers(valid.toLowerCase()).map((f) => f.value)).toEqual([valid]);
    expect(recogniseContainerNumbers(wrong)).toEqual([]);
  });
});

describe("recogniseBillOfLading / recogniseBookingNumber", () => {
  it("a labelled number with a carrier's BL prefix is surest; without one, less", () => {
    expect(recogniseBillOfLading(L("B/L No: MEDU-1234567"))).toMatchObject({ value: "MEDU1234567", confidence: 0.95 });
    expect(recogniseBillOfLading(L("Bill of Lading No. 9912345678"))).toMatchObject({
      value: "9912345678",
      confidence: 0.8,
    });
    expect(recogniseBillOfLading(L("MBL#", "ONEYTYOB1234567"))).toMatchObject({
      value: "ONEYTYOB1234567",
      confidence: 0.9,
    });
  });

  it("an unlabelled token with a known BL prefix is a weak guess; a container number after a BL label is not a BL", () => {
    expect(recogniseBillOfLading(L("Ref COSU6123456789 attached"))).toMatchObject({
      value: "COSU6123456789",
      confidence: 0.5,
    });
    expect(recogniseBillOfLading(L(`BL No: ${valid}`))).toBeNull();
    expect(recogniseBillOfLading(L("BILL OF LADING", "Shipper: ACME"))).toBeNull();
  });

  it("a booking number needs its label and at least four digits", () => {
    expect(recogniseBookingNumber(L("Booking No.: 241234567"))).toMatchObject({ value: "241234567", confidence: 0.85 });
    expect(recogniseBookingNumber(L("BOOKING CONFIRMATION"))).toBeNull();
    expect(recogniseBookingNumber(L("Bkg Ref", "ABC-12345"))).toMatchObject({ value: "ABC12345", confidence: 0.75 });
    expect(recogniseBookingNumber(L("ABC12345"))).toBeNull();
  });
});

describe("recogniseScac", () => {
  it("a SCAC label names our line; an alternative SCAC maps to the line's own", () => {
    expect(recogniseScac(L("SCAC: MEDU"), null)).toMatchObject({ value: "MSCU", confidence: 0.97 });
    expect(recogniseScac(L("SCAC code: ZZZZ"), null)).toMatchObject({ value: "ZZZZ", confidence: 0.6 });
  });

  it("a carrier name: long names in any case, short ones only in capitals, as whole words", () => {
    expect(carrierByName("shipped by hapag-lloyd ag", false)?.scac).toBe("HLCU");
    expect(carrierByName("Carried by ONE", true)?.scac).toBe("ONEY");
    expect(carrierByName("Carried by ONE", false)).toBeNull();
    expect(carrierByName("one of the boxes", true)).toBeNull();
    expect(carrierByName("SeaLand Europe", false)?.scac).toBe("SEJJ");
    expect(recogniseScac(L("Carrier: Evergreen Line"), null)).toMatchObject({ value: "EGLV", confidence: 0.9 });
    expect(recogniseScac(L("Thank you for choosing CMA CGM"), null)).toMatchObject({ value: "CMDU", confidence: 0.8 });
  });

  it("a short name counts in the letterhead or under a Carrier label, not in the body", () => {
    const body = L("BILL OF LADING", "Shipper: ACME", "Consignee: XYZ", "SAY: ONE (1) CONTAINER ONLY");
    expect(recogniseScac(body, null)).toBeNull();
    expect(recogniseScac(L("ONE", "BILL OF LADING"), null)).toMatchObject({ value: "ONEY", confidence: 0.8 });
    expect(recogniseScac(L("Shipper: ACME", "Consignee: XYZ", "Notify: XYZ", "Carrier: MOL"), null)).toMatchObject({
      value: "MOLU",
      confidence: 0.9,
    });
  });

  it("falls back on the BL prefix when it names one line", () => {
    expect(recogniseScac(L("no carrier named"), "MEDU1234567")).toMatchObject({ value: "MSCU", confidence: 0.7 });
    expect(recogniseScac(L("no carrier named"), null)).toBeNull();
  });

  it("the sandbox carrier's name is not a carrier name", () => {
    expect(carrierByName("Test results attached", true)).toBeNull();
  });
});

describe("recogniseVesselVoyage", () => {
  it("splits a combined label's value at the slash or before a last token with digits", () => {
    expect(recogniseVesselVoyage(L("Vessel/Voyage: CMA CGM MARCO POLO / 0FLB3W1MA"))).toMatchObject({
      vessel: { value: "CMA CGM MARCO POLO", confidence: 0.8 },
      voyage: { value: "0FLB3W1MA", confidence: 0.8 },
    });
    expect(recogniseVesselVoyage(L("Ocean Vessel & Voyage: M/V EVER ACE 1234E"))).toMatchObject({
      vessel: { value: "EVER ACE" },
      voyage: { value: "1234E" },
    });
  });

  it("reads separate labels; a voyage needs a digit", () => {
    expect(recogniseVesselVoyage(L("Vessel Name: one apus", "Voyage: V.012W"))).toMatchObject({
      vessel: { value: "ONE APUS", confidence: 0.85 },
      voyage: { value: "012W", confidence: 0.85 },
    });
    expect(recogniseVesselVoyage(L("Voyage: TBA"))).toEqual({ vessel: null, voyage: null });
  });
});

describe("recognisePorts / resolvePort", () => {
  it("a UN/LOCODE (spaced, or retired) resolves to our port's current code", () => {
    expect(resolvePort("CN SHA")?.port.code).toBe("CNSHA");
    expect(resolvePort("Shanghai (CNSGH)")?.port.code).toBe("CNSHA");
    expect(resolvePort("USLGB Long Beach")).toMatchObject({ confidence: 0.95 });
  });

  it("a port name: its own name before a city; a shared name settled by a country code, else weak", () => {
    expect(resolvePort("Rotterdam, Netherlands")).toMatchObject({ port: { code: "NLRTM" }, confidence: 0.85 });
    expect(resolvePort("Los Angeles, CA")?.port.code).toBe("USLAX");
    expect(resolvePort("Atlantis")).toBeNull();
  });

  it("POL and POD from their labels, one line or the next", () => {
    const ports = recognisePorts(L("Load Port: Yantian", "Discharge Port", "HAMBURG, DE"));
    expect(ports.portOfLoading?.value).toBe("CNYTN");
    expect(ports.portOfDischarge).toMatchObject({ value: "DEHAM", confidence: 0.8 });
  });
});

describe("parseDate / recogniseDates", () => {
  it("reads ISO, day-month-name and month-name-day dates", () => {
    expect(parseDate("2026-12-05")).toEqual({ date: "2026-12-05", written: true });
    expect(parseDate("05-DEC-2026 14:00")).toEqual({ date: "2026-12-05", written: true });
    expect(parseDate("5 December 2026")).toEqual({ date: "2026-12-05", written: true });
    expect(parseDate("Dec. 5, 2026")).toEqual({ date: "2026-12-05", written: true });
  });

  it("reads a numeric date only when day and month cannot be swapped; rejects impossible dates", () => {
    expect(parseDate("21/12/2026")).toEqual({ date: "2026-12-21", written: false });
    expect(parseDate("12/21/2026")).toEqual({ date: "2026-12-21", written: false });
    expect(parseDate("05/12/2026")).toBeNull();
    expect(parseDate("2027-02-30")).toBeNull();
    expect(parseDate("TBA")).toBeNull();
  });

  it("ETD and ETA from their labels", () => {
    expect(recogniseDates(L("Estimated Time of Departure: 2026-11-30", "ETA", "14 Jan 2027"))).toMatchObject({
      estimatedDeparture: { value: "2026-11-30", confidence: 0.9 },
      estimatedArrival: { value: "2027-01-14", confidence: 0.85 },
    });
  });
});

describe("guessDocumentType", () => {
  it("a title near the top, most specific first", () => {
    expect(guessDocumentType(["ACME", "HOUSE BILL OF LADING"])).toEqual({
      value: "house_bill_of_lading",
      confidence: 0.9,
    });
    expect(guessDocumentType(["Non-negotiable Sea Waybill"])).toEqual({ value: "sea_waybill", confidence: 0.9 });
  });

  it("a number's label is not a title; a title further down is less sure; none is other", () => {
    expect(guessDocumentType(["Bill of Lading No: X", "Delivery Order"])).toEqual({
      value: "delivery_order",
      confidence: 0.9,
    });
    const below = [...Array.from({ length: 8 }, () => "text"), "Commercial Invoice"];
    expect(guessDocumentType(below)).toEqual({ value: "commercial_invoice", confidence: 0.6 });
    expect(guessDocumentType(["Dear customer"])).toEqual({ value: "other", confidence: 0.3 });
  });
});

describe("recogniseReferenceNumbers", () => {
  it("reads PO and customer / shipper references after their labels, each once, dashes dropped", () => {
    const lines = L(
      "PO No.: 4500012345",
      "Purchase Order: PO-88231",
      "Customer Ref: ACME-2026-0042    Shipper's Reference: SR 99812",
      "Order No. 4500012345",
    );
    expect(recogniseReferenceNumbers(lines).map((f) => [f.value, f.confidence])).toEqual([
      ["4500012345", 0.8],
      ["PO88231", 0.8],
      ["ACME20260042", 0.8],
    ]);
  });

  it("not a bare Order or Ref, not POL / POD, not a P.O. Box, not a container, BL or booking number", () => {
    const lines = L(
      "Consignee: TO ORDER",
      "Booking Ref: 241234567",
      "POL: Shanghai  POD: Rotterdam",
      "Consignee: PACIFIC IMPORTS INC, P.O. Box 4411, Long Beach",
      `PO: ${valid}`,
      "Shipper Ref: MAEU241234567",
    );
    expect(recogniseReferenceNumbers(lines, ["MAEU241234567", "241234567"])).toEqual([]);
  });
});
