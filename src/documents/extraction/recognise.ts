/**
 * Recognition: a document's text → the extraction payload (docs/documents.md §What is recognised). Each field comes
 * from one small rule in rules/; this file only puts them together. Pure.
 */
import { guessDocumentType } from "./document-types.ts";
import { recogniseScac } from "./rules/carrier.ts";
import { recogniseContainerNumbers } from "./rules/containers.ts";
import { recogniseDates } from "./rules/dates.ts";
import { recognisePorts } from "./rules/ports.ts";
import { recogniseBillOfLading, recogniseBookingNumber } from "./rules/references.ts";
import { recogniseVesselVoyage } from "./rules/vessel.ts";
import type { ExtractionPayload } from "./types.ts";

/** Splits a page into non-empty lines. */
export function linesOf(text: string): string[] {
  return text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "");
}

/** The payload recognised in `pages` (one string per page, lines separated by `\n`). */
export function recognise(pages: readonly string[]): ExtractionPayload {
  const lines = pages.flatMap(linesOf);
  const billOfLading = recogniseBillOfLading(lines);
  const { vessel, voyage } = recogniseVesselVoyage(lines);
  const { portOfLoading, portOfDischarge } = recognisePorts(lines);
  const { estimatedDeparture, estimatedArrival } = recogniseDates(lines);
  return {
    document_type: guessDocumentType(linesOf(pages[0] ?? "")),
    bill_of_lading_number: billOfLading,
    booking_number: recogniseBookingNumber(lines),
    container_numbers: recogniseContainerNumbers(lines.join("\n")),
    shipping_line_scac: recogniseScac(lines, billOfLading?.value ?? null),
    vessel_name: vessel,
    voyage_number: voyage,
    port_of_loading: portOfLoading,
    port_of_discharge: portOfDischarge,
    estimated_departure_date: estimatedDeparture,
    estimated_arrival_date: estimatedArrival,
  };
}
