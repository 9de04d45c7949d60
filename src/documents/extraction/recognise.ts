/**
 * Recognition: a document's text → the extraction payload (docs/documents.md §What is recognised). Each field comes
 * from one small rule in rules/; this file only puts them together. Pure.
 */
import { guessDocumentType } from "./document-types.ts";
import { recogniseScac } from "./rules/carrier.ts";
import { recogniseContainerNumbers } from "./rules/containers.ts";
import { recogniseDates } from "./rules/dates.ts";
import { recognisePorts } from "./rules/ports.ts";
import { recogniseBillOfLading, recogniseBookingNumber, recogniseReferenceNumbers } from "./rules/references.ts";
import { recogniseVesselVoyage } from "./rules/vessel.ts";
import type { TextLine } from "./text-layer.ts";
import type { ExtractionPayload } from "./types.ts";

/** The payload recognised in `pages` (each a list of lines, top to bottom). */
export function recognise(pages: readonly (readonly TextLine[])[]): ExtractionPayload {
  const lines = pages.flat();
  const billOfLading = recogniseBillOfLading(lines);
  const booking = recogniseBookingNumber(lines);
  const { vessel, voyage } = recogniseVesselVoyage(lines);
  const { portOfLoading, portOfDischarge } = recognisePorts(lines);
  const { estimatedDeparture, estimatedArrival } = recogniseDates(lines);
  return {
    document_type: guessDocumentType((pages[0] ?? []).map((l) => l.text)),
    bill_of_lading_number: billOfLading,
    booking_number: booking,
    container_numbers: recogniseContainerNumbers(lines.map((l) => l.text).join("\n")),
    shipping_line_scac: recogniseScac(lines, billOfLading?.value ?? null),
    vessel_name: vessel,
    voyage_number: voyage,
    port_of_loading: portOfLoading,
    port_of_discharge: portOfDischarge,
    estimated_departure_date: estimatedDeparture,
    estimated_arrival_date: estimatedArrival,
    reference_numbers: recogniseReferenceNumbers(lines, [billOfLading?.value, booking?.value]),
  };
}
